"""``native-rowscan``: a numba row-scan backtracker for edge matching with seeded restarts.

The search (the candidate lookup, the kernel's slices) is in native/eternity/search.py.  Each
restart shuffles the order within every candidate list with the run's seed, so different
seeds (and different restarts) explore differently; the node budget of a restart grows by
half each time, so the last restart always runs to the end and an exhausted search is a
proof that no solution exists.  With ``--workers N`` one tree is shared by N processes
instead (native/eternity/split.py).

A search starts in plain Python (native/eternity/plain.py) for its first ``plain_nodes``
nodes (an Option, :data:`PLAIN_START` by default), and goes on in the numba kernel only when
they were not enough: a small board is answered before numba is imported (about half a
second warm, seconds to compile on a fresh install).  With the kernel built ahead of time
(``puzzlesat kernels build``: native/aot.py), the kernel runs from the first node and numba is
not imported at all.

Counting (``--count``): one search, no restarts, runs to the end in the kernel, which adds up
the completed boards; with a corner tile fixed, that is one board per class of rotations.  On a
board of 64 tiles or fewer (without the colour-count check) the count runs the same tree on tile
bitsets, about three times the nodes a second (native/eternity/count_search.py), and on a square
without hints it walks the smallest of eight trees: which corner tile is fixed, and the board as
given or mirrored (native/eternity/count_tree.py).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from puzzlesat.core import Limits, Option, PuzzlesatError, Result, Status, Strategy
from puzzlesat.core.deadline import hard_deadline, held_off
from puzzlesat.core.kernel_status import EXHAUSTED, FOUND, decision_status
from puzzlesat.core.knobs import plain_budget, plain_nodes
from puzzlesat.core.options import defaults
from puzzlesat.domains.eternity import Instance, Solution
from puzzlesat.native.eternity.knobs import HEAD_START
from puzzlesat.native.eternity.knobs import OPTIONS as SCORE_KNOBS

if TYPE_CHECKING:
    from puzzlesat.native.eternity.count_search import CountSearch
    from puzzlesat.native.eternity.search import Lookup, Search

# nodes searched in plain Python before the kernel takes over: about 0.03 s at ~2 M nodes/s,
# a tenth of what the kernel's import and load cost when its cache is warm (the kernel runs
# ~35 M nodes/s, so a larger budget would slow every board the kernel has to finish)
PLAIN_START = 50_000

ROWSCAN_OPTIONS = (
    Option(
        "colour_check",
        bool,
        False,
        "refuse a tile that leaves more cells needing a (class, north colour) than tiles left to fill them",
    ),
    Option("twins", bool, True, "identical pieces tried once per cell (counts multiplied back)"),
    Option(
        "count_tree",
        str,
        "smallest",
        "the tree a count of a square board without hints walks: smallest (of the eight a corner tile and a "
        "mirror give, by the nodes of their first two rows) or first (the first corner tile's, as published)",
        choices=("smallest", "first"),
    ),
    HEAD_START,
    plain_nodes(PLAIN_START),
    *SCORE_KNOBS,
)
STRATEGY = Strategy(
    "native-rowscan",
    "puzzlesat.native.eternity.rowscan:solve",
    "numba row-scan backtracker, (west, north) lookup of pre-rotated tiles, seeded restarts; "
    "--workers N shares one tree between N processes",
    options=ROWSCAN_OPTIONS,
    modes=("count", "score", "checkpoint", "resume", "target", "boards"),
    puzzle="eternity",
    engine="native",
    parallel=True,
)

# restarts from 10 M nodes, doubling: at the hardness peak (about one solution) a restart mostly
# throws away the tree searched so far, and on generated 7x7 boards (seeds 200-239 and 300-339,
# three orders each: benchmarks/eternity_restarts.py) these cut the median nodes to a first
# solution by 8-17% against restarts from 200 K growing 1.5 times, as one search without any
# restart does, while still reshuffling the rare search that runs long
FIRST_RESTART_NODES = 10_000_000
RESTART_GROWTH = 2.0
# nodes between two looks at the clock: at most SLICE_NODES, and no more than the rate of the
# last slice fits in SLICE_SECONDS or in the time left (20 M nodes took 2.9 s on a busy machine)
SLICE_NODES = 20_000_000
SLICE_SECONDS = 0.25
COUNT_SLICE_NODES = 1_000_000  # a count's first slice, then sized to take COUNT_SLICE_SECONDS
COUNT_SLICE_SECONDS = 0.2
DEFAULTS = defaults(ROWSCAN_OPTIONS)


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Search with restarts until solved, exhausted, or out of time (or count: :func:`count`;
    score: :func:`~puzzlesat.native.eternity.score.solve_score`).

    With ``limits.workers`` above 1 (the default on a machine with more than one core), one
    search tree shared by that many processes instead, once this process has not settled it
    alone (:mod:`puzzlesat.native.eternity.split`).
    """
    if limits.options.get("boards") and limits.options.get("target") is None:
        from puzzlesat.native.eternity.hunt import ALONE

        raise PuzzlesatError(ALONE)
    if limits.options.get("score"):
        began = time.perf_counter()
        with held_off():  # the score search holds its own limit, its imports included
            with hard_deadline(limits.remaining(began), "the score search was loading"):  # nothing held yet
                from puzzlesat.native.eternity.score import solve_score

            return solve_score(instance, limits, began=began)
    if limits.options.get("target") is not None:
        raise PuzzlesatError("--target serves a --score run: add --score")
    for name in ("checkpoint", "resume"):
        if limits.options.get(name) is not None and not limits.options.get("count"):
            raise PuzzlesatError(f"--{name} serves a --score run (add --score) or a --count run (add --count)")
    from puzzlesat.native import aot  # here, not at the top: listing the strategies imports this module
    from puzzlesat.native.eternity.search import Draws, Lookup, Search, load_kernels

    compile_start = time.perf_counter()
    compile_time = 0.0
    opts = {**DEFAULTS, **limits.options}
    check = bool(opts["colour_check"])
    # plain-Python nodes left: none with the check (which runs in the kernel only) or a kernel built ahead of time
    plain = 0 if check else plain_budget(opts, PLAIN_START, loaded=bool(aot.load("eternity")))
    if limits.options.get("count"):
        return _count(instance, limits, opts, compile_start, plain)
    lookup = Lookup(instance, bool(opts["twins"]))
    if limits.workers > 1:
        return _split(instance, lookup, limits, check, compile_start, plain)
    start = time.perf_counter()
    rng = Draws(limits.seed)
    nodes = 0
    pruned = 0  # placements the colour-count check refused, over the finished restarts
    restarts = 0
    restart_budget = float(FIRST_RESTART_NODES)
    room = COUNT_SLICE_NODES  # the kernel's nodes that fit in the next slice, once its rate is seen
    while True:
        search = Search(instance, lookup, rng, check)
        spent = 0
        while True:
            step = int(min(SLICE_NODES, restart_budget - spent, room))
            if plain > 0:
                status, done = search.run(min(step, plain), plain=True)
                plain -= done
            else:
                if not compile_time:
                    compile_time = load_kernels()
                    start += compile_time  # the search's own time leaves the compilation out
                began = time.perf_counter()
                status, done = search.run(step)
                left = limits.remaining(compile_start)
                window = SLICE_SECONDS if left is None else min(SLICE_SECONDS, left)
                room = max(1, int(done / max(time.perf_counter() - began, 1e-6) * window))
            spent += done
            nodes += done
            stats = {"nodes": nodes, "restarts": restarts, "compile_time": round(compile_time, 3)}
            if check:
                stats["pruned"] = pruned + search.pruned
            outcome = decision_status(status)
            if outcome is Status.SOLVED:
                return Result(outcome, search.board(), wall_time=time.perf_counter() - start, stats=stats)
            if outcome is Status.INFEASIBLE:
                return Result(outcome, wall_time=time.perf_counter() - start, stats=stats)
            remaining = limits.remaining(compile_start)  # the limit holds for the compilation too
            if remaining is not None and remaining <= 0:
                return Result(Status.UNKNOWN, wall_time=time.perf_counter() - start, stats=stats, message="time limit")
            if spent >= restart_budget:
                pruned += search.pruned
                break
        restarts += 1
        restart_budget *= RESTART_GROWTH


def _count(instance: Instance, limits: Limits, opts: dict[str, Any], compile_start: float, plain: int) -> Result:
    """``--count``: the tree :func:`~puzzlesat.native.eternity.count_tree.choose` picks (one of eight
    on a square board without hints), on tile bitsets when the board fits a word (the same
    tree, node for node, as the row-scan kernel's), shared by ``limits.workers`` processes;
    with ``checkpoint`` or ``resume``, its finished tasks kept on disk
    (:mod:`~puzzlesat.native.eternity.count_checkpoint`)."""
    from puzzlesat.native.eternity import count_tree
    from puzzlesat.native.eternity.count_search import CountSearch, fits
    from puzzlesat.native.eternity.search import Draws, Search, load_kernels

    if opts.get("checkpoint") or opts.get("resume"):  # its finished tasks kept on disk
        from puzzlesat.native.eternity import count_checkpoint

        return count_checkpoint.count(instance, limits, opts, compile_start)
    check, twins = bool(opts["colour_check"]), bool(opts["twins"])
    chosen = count_tree.choose(instance, limits, twins, check, compile_start, str(opts["count_tree"]))
    work, lookup = chosen.puzzle, chosen.lookup
    if limits.workers > 1:
        result = _split(work, lookup, limits, check, compile_start, plain)
    elif fits(work, check):  # on tile bitsets: the same tree, node for node, faster
        result = count(CountSearch(work, lookup), limits, compile_start, load_kernels(bits=True))
    else:
        result = count(Search(work, lookup, Draws(limits.seed), check), limits, compile_start, load_kernels())
    return chosen.answer(result)


def _split(instance: Instance, lookup: Lookup, limits: Limits, check: bool, compile_start: float, plain: int) -> Result:
    """``--workers N`` (the default on more than one core): the seed's search, its first ``plain``
    nodes here in plain Python (a small board ends there, with nothing compiled or started), then
    shared by N processes (:mod:`puzzlesat.native.eternity.split`)."""
    from puzzlesat.native.eternity import split as eternity_split
    from puzzlesat.native.eternity.search import Draws, Search

    start = time.perf_counter()
    head, done = None, 0
    if plain and not limits.options.get("count"):
        head = Search(instance, lookup, Draws(limits.seed), check)
        status, done = head.run(plain, plain=True)
        outcome = decision_status(status)
        if outcome in (Status.SOLVED, Status.INFEASIBLE):
            stats = {"nodes": done, "workers": limits.workers, "compile_time": 0.0}
            board = head.board() if outcome is Status.SOLVED else None
            return Result(outcome, board, wall_time=time.perf_counter() - start, stats=stats)
    # the split loads the kernels it runs (the count kernels for a count on tile bitsets) and times them
    return eternity_split.solve(instance, lookup, limits, check, compile_start, 0.0, head, done)


def count(search: Search | CountSearch, limits: Limits, compile_start: float, compile_time: float) -> Result:
    """Count every board: one search to the end, in slices between looks at the clock.

    What is counted: the boards (a tile id and a turn that looks different per cell) with the
    lookup's corner tile top-left on a square, in the top row on a rectangle, which is one per
    class of the board's rotations (a solution is never its own rotation: see
    :func:`~puzzlesat.domains.eternity.board_rotations`).  The count is proved only when the
    search is exhausted: SOLVED with the count and the first board (which the verifier
    checks), INFEASIBLE for 0; at the time limit UNKNOWN, with the boards found so far in
    ``stats["solutions"]``.  With twins (see :class:`Lookup`) each board found counts
    ``labelings`` times.
    """
    from puzzlesat.native.eternity.search import COUNT_LIMIT

    first: Solution | None = None
    nodes = 0
    slice_nodes = COUNT_SLICE_NODES
    while True:
        began = time.perf_counter()
        status, done = search.run(slice_nodes, limit=1 if first is None else COUNT_LIMIT)
        took = time.perf_counter() - began
        if done >= slice_nodes:  # a slice of about COUNT_SLICE_SECONDS: a node's cost varies with the board
            slice_nodes = int(
                min(SLICE_NODES, max(COUNT_SLICE_NODES, slice_nodes * COUNT_SLICE_SECONDS / max(took, 1e-3)))
            )
        nodes += done
        found = search.found * search.labelings
        stats = {"nodes": nodes, "solutions": found, "kernel": search.kernel, "compile_time": round(compile_time, 3)}
        if search.check:
            stats["pruned"] = search.pruned
        if status == FOUND:  # the first board; the search goes on from it
            first = search.board()
            continue
        elapsed = time.perf_counter() - compile_start - compile_time
        if status == EXHAUSTED:
            if first is None:
                return Result(Status.INFEASIBLE, wall_time=elapsed, stats=stats, count=0)
            return Result(Status.SOLVED, first, wall_time=elapsed, stats=stats, count=found)
        remaining = limits.remaining(compile_start)
        if remaining is not None and remaining <= 0:
            message = f"time limit; {found} solutions found before it"
            return Result(Status.UNKNOWN, wall_time=elapsed, stats=stats, message=message)
