"""``native-ida``: optimal IDA* for the cube, compiled with numba, on one or more processes.

Each iteration searches every canonical move sequence of exactly ``bound`` moves whose
states pass the lower bound: by default the phase-1 table on three axes of the cube and,
near the leaves, of its inverse, and the corner table (:mod:`.phase1`,
:mod:`.phase1_kernel`), or Korf's pattern databases looked up on the cube and its
inverse (``tables=full`` or ``small``: :mod:`.tables`, :mod:`.kernels`).  A cube
that symmetries fix (the superflip) is searched below one prefix per symmetry class
(:class:`rubik_prefixes.PrefixReduction`).
With ``tables=auto`` and the large set not yet built, the search starts on the small set
(built in a fraction of a second) and builds the large one only when an iteration would take
the small set more than ``ESCALATE_SECONDS`` in all: it then goes on at the same bound, so the
answer is still optimal (every shorter bound was searched to the end, on whichever tables).
With several workers, the iterations from ``parallel_from`` on are cut into subtrees by their
first four moves, grouped into chunks of decreasing predicted work (:func:`plan_chunks`,
weighted by the previous iteration's nodes per subtree) and handed out one at a time to
worker processes forked from this one once the tables are in place, so they share its
tables' pages (:class:`~puzzlesat.core.processes.TaskPool`; they die with this process).  The
share of the previous iteration's nodes already covered is reported as progress
(:mod:`puzzlesat.core.progress`).  An answer is OPTIMAL because every shorter
bound was searched to the end.  In QTM the bound grows by 2: a quarter turn changes the
corner permutation's parity, so every solution's length has the parity of the position's.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from puzzlesat.core import Limits, Option, Result, Status, Strategy, progress
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FULL
from puzzlesat.domains.rubik import METRICS, Cube, Instance, Solution, max_depth_of, metric_of, parity, simplify

if TYPE_CHECKING:
    import numpy as np

    from puzzlesat.core.processes import TaskPool
    from puzzlesat.native.rubik.phase1 import Phase1Tables
    from puzzlesat.native.rubik.prefixes import PrefixReduction
    from puzzlesat.native.rubik.tables import MoveSet

STRATEGY = Strategy(
    "native-ida",
    "puzzlesat.native.rubik.ida:solve",
    "optimal: solutions up to 10 moves (12 in QTM) by bidirectional breadth-first search in numpy "
    "(no tables, nothing to compile), longer ones by IDA* in numba: phase-1 tables on three axes + corner "
    "table (Reid, Kociemba; or Korf's pattern databases with -O tables=full), split by first moves over "
    "--workers",
    options=(
        Option("progress", bool, True, "report the progress of long searches and table builds"),
        Option(
            "plain_depth",
            int,
            None,
            "the longest solution the breadth-first search looks for before the IDA* "
            "(default 10 htm / 12 qtm; 0: none)",
            low=0,
        ),
    ),
    modes=("all", "extra"),
    puzzle="rubik",
    engine="native",
    parallel=True,
)

ESCALATE_SECONDS = 10.0  # tables=auto: search on the small set up to this long, then build the large one
GROWTH_GUESS = {"htm": 13.0, "qtm": 80.0}  # an iteration's nodes over the last one's, before two are measured
PREFIX_DEPTH = 3  # subtrees of an iteration searched in this process
POOL_PREFIX_DEPTH = 4  # subtrees of an iteration split over the workers (43,254 in HTM)
GUIDE = 4  # a chunk holds at most 1/(GUIDE * workers) of the iteration's predicted work left
MAX_CHUNKS = 1024  # ... and at least 1/MAX_CHUNKS of its whole predicted work
MAX_SHARE = 64  # ... and at most 1/MAX_SHARE of it
MAX_SOLUTIONS = 100_000
RATE_GUESS = 2_000_000  # nodes per second, before the first measurement
MIN_RATE = 200_000  # floor of the measured rate used for node budgets
SYM_LOOKUPS = 8  # edge-PDB lookups on rotated cubes, on top of the plain ones
PARALLEL_FROM = 10  # Korf's tables: bounds below this are searched in the calling process
HUGE_FROM = 15  # phase1: from this bound on a search takes seconds: tables into huge pages, then workers
EARLY_COPY = 4  # phase1: start that copy at once when the position's lower bound is this close to HUGE_FROM

_WORKER: dict[str, Any] = {}
Task = tuple[int, "np.ndarray", int, bool, int]  # chunk id, prefixes, bound, find all, node budget
Outcome = tuple[int, int, "np.ndarray", int, "np.ndarray", float]  # chunk id, status, solutions, count, nodes, s


def cube_arrays(cube: Cube) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' cubie codes: for each corner ``position * 3 + twist``, each edge ``position * 2 + flip``."""
    import numpy as np  # here, not at the top: listing the strategies imports this module

    cc = np.zeros(8, np.int64)
    ec = np.zeros(12, np.int64)
    for i in range(8):
        cc[cube.cp[i]] = 3 * i + cube.co[i]
    for i in range(12):
        ec[cube.ep[i]] = 2 * i + cube.eo[i]
    return cc, ec


def prefixes(next_state: np.ndarray, depth: int) -> np.ndarray:
    """Every canonical move sequence of ``depth`` moves, as rows."""
    import numpy as np

    rows: list[list[int]] = [[]]
    states = [0]
    for _ in range(depth):
        new_rows, new_states = [], []
        for row, s in zip(rows, states, strict=True):
            for m in range(next_state.shape[1]):
                ns = int(next_state[s, m])
                if ns >= 0:
                    new_rows.append(row + [m])
                    new_states.append(ns)
        rows, states = new_rows, new_states
    return np.array(rows, np.int64).reshape(len(rows), depth)


class _Prefixed:
    """What both searchers share: the canonical automaton, opened after the prefixes when a
    symmetric cube's prefixes are reduced (:class:`rubik_prefixes.PrefixReduction`)."""

    moves: MoveSet
    reduction: PrefixReduction | None = None

    def automaton(self, rows: np.ndarray) -> np.ndarray:
        """The automaton for a search below ``rows``."""
        if self.reduction is None:
            return self.moves.next_state
        return self.reduction.automaton(rows.shape[1])


class Searcher(_Prefixed):
    """Korf's pattern databases (``--tables full`` or ``small``): everything one search call needs."""

    @property
    def parallel_from(self) -> int:
        """The first bound searched by the workers."""
        return PARALLEL_FROM

    def __init__(self, cube: Cube, metric: str, table_set: str, quiet: bool = False, stop_at: float | None = None):
        import numpy as np

        from puzzlesat.native.first_dispatch import without_blas_probe
        from puzzlesat.native.rubik import tables as rubik_tables

        self.metric = metric
        self.moves = rubik_tables.move_set(metric)
        with without_blas_probe():  # a build's kernels may be numba's first call in the process
            self.tables = rubik_tables.load(table_set, metric, quiet)
        self.state = cube_arrays(cube)
        self.sym = rubik_tables.symmetric_lookups(table_set, SYM_LOOKUPS)
        start = time.perf_counter()
        with without_blas_probe():
            self.run(np.zeros((0, 0), np.int64), 0, False, 1)  # compile, or load the compiled kernel
        self.compile_seconds = time.perf_counter() - start

    def lower_bound(self) -> int:
        """The heuristic value of the position."""
        from puzzlesat.native.rubik import kernels as k

        t = self.tables
        return int(k.full_heuristic(*self.state, t.specs, t.tracked, t.table, True, *self.sym))

    def prepare(self, bound: int) -> None:
        """Nothing to do before a bound: the tables are small."""

    def run(self, rows: np.ndarray, bound: int, find_all: bool, budget: int) -> tuple[int, np.ndarray, int, np.ndarray]:
        """Search the subtrees below ``rows`` to exactly ``bound`` moves."""
        from puzzlesat.native.rubik import kernels as k

        ms, t = self.moves, self.tables
        status, sols, count, nodes = k.search(
            *self.state,
            rows,
            bound,
            ms.ctab,
            ms.etab,
            self.automaton(rows),
            t.specs,
            t.tracked,
            t.table,
            True,
            find_all,
            budget,
            MAX_SOLUTIONS if find_all else 1,
            *self.sym,
        )
        return int(status), sols[: min(count, sols.shape[0])].copy(), int(count), nodes


class Phase1Searcher(_Prefixed):
    """The phase-1 tables on three axes of the cube and of its inverse, plus the corner table
    (``--tables phase1`` or ``phase1x6``)."""

    @property
    def parallel_from(self) -> int:
        """The first bound searched by the workers (each bound below takes milliseconds)."""
        return HUGE_FROM

    def __init__(self, cube: Cube, metric: str, table_set: str, quiet: bool = False, stop_at: float | None = None):
        import numpy as np

        from puzzlesat.native.first_dispatch import without_blas_probe
        from puzzlesat.native.rubik import phase1 as rubik_phase1
        from puzzlesat.native.rubik import tables as rubik_tables

        self.metric = metric
        self.moves = rubik_tables.move_set(metric)
        with without_blas_probe():  # a build's kernels may be numba's first call in the process
            self.tables = rubik_phase1.load(metric, quiet, table_set, stop_at)
        t = self.tables
        self.axes = t.axis_coordinates(cube)
        self.inverse_axes = t.axis_coordinates(cube.inverse())
        twist, _, _, corners = rubik_phase1.coordinates(cube)
        self.corner = corners
        self.corner_dist = int(t.corners[corners * rubik_phase1.N_TWIST + twist])
        self.codes = np.concatenate(cube_arrays(cube))
        self.huge = False
        self.copying: HugeCopy | None = None
        if self.lower_bound() >= HUGE_FROM - EARLY_COPY:
            self.copying = HugeCopy(t)  # while numba starts and the shallow bounds are searched
        start = time.perf_counter()
        with without_blas_probe():
            self.run(np.zeros((0, 0), np.int64), 0, False, 1)  # compile, or load the compiled kernel
        self.compile_seconds = time.perf_counter() - start

    def lower_bound(self) -> int:
        """The heuristic value of the position."""
        from puzzlesat.native.rubik.phase1_kernel import bound_of

        d0, d1, d2 = (int(x) for x in self.axes[:, 3])
        e0, e1, e2 = (int(x) for x in self.inverse_axes[:, 3])
        bound = bound_of.py_func  # in Python: this runs before numba has started
        return max(int(bound(d0, d1, d2, self.corner_dist)), int(bound(e0, e1, e2, 0)))

    def prepare(self, bound: int) -> None:
        """Use the big tables in huge pages from bound ``HUGE_FROM`` on, or as soon as the
        background copy is done, or wait for it from two bounds before (the searches of those
        bounds on the mapped files would fault in most of their pages, as much memory again).
        The mapped files' pages are then let go; workers forked after this share the copy."""
        if self.huge:
            return
        if self.copying is not None and (bound >= HUGE_FROM - 2 or not self.copying.thread.is_alive()):
            self.tables, self.huge, self.copying = self.copying.result(), True, None
        elif bound >= HUGE_FROM:
            self.tables, self.huge = self.tables.in_huge_pages(), True

    def run(self, rows: np.ndarray, bound: int, find_all: bool, budget: int) -> tuple[int, np.ndarray, int, np.ndarray]:
        """Search the subtrees below ``rows`` to exactly ``bound`` moves."""
        from puzzlesat.native.rubik import phase1_kernel as k

        self.prepare(bound)
        t = self.tables
        status, sols, count, nodes = k.search(
            self.axes,
            self.corner,
            self.corner_dist,
            self.codes,
            rows,
            bound,
            self.automaton(rows),
            t.twist_mv,
            t.flip_mv,
            t.slice_mv,
            t.corner_mv,
            t.clsym,
            t.twist_conj,
            t.phase1,
            t.corners,
            t.axis_moves,
            t.inverse,
            t.max_depth - 1,
            t.base,
            find_all,
            budget,
            MAX_SOLUTIONS if find_all else 1,
        )
        return int(status), sols[: min(count, sols.shape[0])].copy(), int(count), nodes


class HugeCopy:
    """The phase-1 tables read into huge pages by a background thread (the reads release the
    GIL).  A daemon thread: a process that ends before it is done does not wait for it."""

    def __init__(self, tables: Phase1Tables) -> None:
        self.done: Phase1Tables | None = None
        self.thread = threading.Thread(target=self._copy, args=(tables,), name="rubik-huge-copy", daemon=True)
        self.thread.start()

    def _copy(self, tables: Phase1Tables) -> None:
        self.done = tables.in_huge_pages()

    def result(self) -> Phase1Tables:
        """The copied tables, once the thread is done."""
        self.thread.join()
        assert self.done is not None
        return self.done


def make_searcher(
    cube: Cube, metric: str, table_set: str, quiet: bool = False, stop_at: float | None = None
) -> Searcher | Phase1Searcher:
    """The searcher for a table set: a phase-1 set (``phase1``, ``phase1x6``) or Korf's ``full`` / ``small``;
    a build of its tables stops at ``stop_at`` (:func:`time.monotonic`) with :class:`BuildStopped`."""
    cls = Searcher if table_set in ("full", "small") else Phase1Searcher
    return cls(cube, metric, table_set, quiet, stop_at)


def _worker_adopt(searcher: Searcher | Phase1Searcher) -> None:
    """A forked worker's set-up: the parent's searcher, tables and compiled kernel included."""
    _WORKER["searcher"] = searcher


def plan_chunks(weights: np.ndarray, workers: int) -> list[np.ndarray]:
    """Cut the subtrees ``0 .. len(weights) - 1``, in order, into chunks by predicted work.

    Guided self-scheduling: each chunk holds about ``1 / (GUIDE * workers)`` of the work
    still left after the chunks before it (at least ``1 / MAX_CHUNKS`` of the whole), so the
    chunks shrink towards the end and the workers, each taking the next chunk when done,
    finish together.  A subtree heavier than that is a chunk of its own.  No chunk holds
    more than ``1 / MAX_SHARE`` of the whole: in the last iteration the workers then walk
    the subtrees nearly in order, and a solution is not put off behind a big first chunk.
    """
    import numpy as np

    total = float(weights.sum())
    floor, ceiling = total / MAX_CHUNKS, total / MAX_SHARE
    chunks: list[np.ndarray] = []
    first, acc, left = 0, 0.0, total
    target = min(max(left / (GUIDE * workers), floor), ceiling)
    for i, w in enumerate(weights.tolist()):
        acc += w
        if acc >= target:
            chunks.append(np.arange(first, i + 1))
            first, left, acc = i + 1, left - acc, 0.0
            target = min(max(left / (GUIDE * workers), floor), ceiling)
    if first < len(weights):
        chunks.append(np.arange(first, len(weights)))
    return chunks


def _worker_run(task: Task) -> Outcome:
    chunk_id, rows, bound, find_all, budget = task
    start = time.perf_counter()
    status, sols, count, nodes = _WORKER["searcher"].run(rows, bound, find_all, budget)
    return chunk_id, status, sols, count, nodes, time.perf_counter() - start


def _progress(bound: int, done: float, nodes: int, elapsed: float) -> None:
    rate = nodes / elapsed if elapsed > 0 else 0.0
    progress.update(f"c rubik ida depth {bound}", done, f"{nodes:,} nodes  {rate / 1e6:.1f} M nodes/s")


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Optimal IDA*; see the module docstring.  The lengths up to ``plain_depth`` are searched
    first without numba or tables (:mod:`rubik_plain`), the IDA* goes on from the next one.
    Options: ``metric``, ``all``, ``extra``, ``max_depth``, ``plain_depth`` (default
    :data:`rubik_plain.DEPTH`; 0: none), ``tables`` (``auto``: the largest set under the
    memory cap, after the small one while that is quick enough; ``phase1``, ``phase1x12``,
    ``phase1x6``, ``full``, ``small``), ``progress`` (bool, default on: report the progress of long searches and
    table builds, :mod:`puzzlesat.core.progress`)."""
    import numpy as np

    start = time.perf_counter()
    opts = limits.options
    metric = metric_of(opts)
    if metric not in METRICS:
        return Result(Status.ERROR, message=f"unknown metric {metric!r}; expected htm or qtm")
    find_all = bool(opts.get("all")) or bool(opts.get("extra"))
    extra = int(opts.get("extra") or 0)
    max_depth = max_depth_of("native-ida", opts, metric)
    step = 2 if metric == "qtm" else 1
    # short solutions first, by the plain search (no numba, no tables: rubik_plain)
    from puzzlesat.native.rubik import plain as rubik_plain

    deadline = None if limits.timeout is None else start + limits.timeout
    plain = rubik_plain.first(instance.cube, metric, opts, max_depth, extra if find_all else -1, deadline)
    found, best = list(plain.found), plain.best
    if plain.settles(extra, max_depth) or limits.remaining(start) == 0:
        wall = time.perf_counter() - start
        return _answer(found, best, plain.moves, metric, wall, plain.stats(), plain.message(extra, max_depth))
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.table_build import BuildStopped

    table_set = opts.get("tables") or "auto"
    deeper: str | None = None  # auto: the set to build once the small one is too slow
    if table_set == "auto":
        table_set = tables_for(memory_cap_mb())
        if table_set != "small" and not rubik_cache.is_built(table_set, metric):
            table_set, deeper = "small", table_set
    quiet = not opts.get("progress", True)
    from puzzlesat.native.rubik.prefixes import PrefixReduction

    searcher = make_searcher(instance.cube, metric, table_set, quiet=quiet)
    table_time = time.perf_counter() - start - plain.seconds
    # a symmetric cube needs one prefix per symmetry class (not with --all)
    reduction = None if find_all else PrefixReduction.of(instance.cube, searcher.moves)
    searcher.reduction = reduction
    bound = _first_bound(searcher, instance.cube, metric, plain.next_length)
    stats: dict[str, Any] = {
        "nodes": 0,
        "workers": max(1, limits.workers),
        "lower_bound": bound,
        "tables_s": round(table_time - searcher.compile_seconds, 2),
        "compile_s": round(searcher.compile_seconds, 2),
        "plain_s": round(plain.seconds, 3),
    }
    pool: TaskPool | None = None
    last_nodes: np.ndarray | None = None
    iteration_nodes: list[int] = []  # of the iterations searched to the end on these tables
    over_budget = False  # an iteration on the small set ran out of its budget
    search_start = time.perf_counter()
    rate = float(RATE_GUESS)
    kernel_nodes, kernel_secs = 0, 0.0
    # wall time of the parallel iterations searched to the end, and the workers' kernel time in them (in an
    # iteration cut short, the chunks still running report nothing)
    pool_wall, pool_secs = 0.0, 0.0
    parallel = limits.workers > 1
    message = ""
    try:
        while bound <= max_depth:
            if best is not None and bound > best + extra:
                break
            use_pool = parallel and bound >= searcher.parallel_from
            escalate_at = None  # on the small set: a chunk's node budget before the deeper set is built
            if deeper is not None:
                spent = time.perf_counter() - search_start
                speed = rate * (limits.workers if use_pool else 1)
                if over_budget or spent + _predicted_nodes(iteration_nodes, metric) / speed > ESCALATE_SECONDS:
                    if pool is not None:
                        pool.close()
                        pool = None
                    stats["deeper_from"] = bound
                    searcher, bound, secs = _escalate(
                        instance.cube, metric, deeper, bound, quiet, limits.remaining(start)
                    )
                    searcher.reduction = reduction
                    stats["tables_s"] = round(stats["tables_s"] + secs, 2)
                    table_set, deeper, last_nodes, iteration_nodes = deeper, None, None, []
                    continue
                escalate_at = _small_budget(spent, rate)
            # (not one bound earlier for the weights: in this process, on the mapped files, its
            # 43,254 prefix walks would fault in most of the table's pages)
            depth = POOL_PREFIX_DEPTH if use_pool else PREFIX_DEPTH
            rows = prefixes(searcher.moves.next_state, min(depth, bound))
            if searcher.reduction is not None:
                rows = searcher.reduction.representatives(rows)
            show = not quiet and bound >= 12
            last_shown = time.perf_counter()  # the first line after half a second
            printed = False
            weights = np.ones(len(rows))
            if last_nodes is not None and len(last_nodes) == len(rows):
                weights = last_nodes + 1.0
            # the busiest subtrees of the last bound first: likelier to hold a solution (H48
            # found the same), and the largest jobs first balance the workers
            busiest = np.argsort(-weights, kind="stable")
            rows, weights = rows[busiest], weights[busiest]
            chunks = plan_chunks(weights, limits.workers if use_pool else 1)
            total_weight = float(weights.sum()) or 1.0
            this_nodes = np.zeros(len(rows), np.int64)
            done_weight = 0.0
            iteration_status = EXHAUSTED
            solutions: list[np.ndarray] = []
            if use_pool and pool is None:
                # forked once the tables are in place: the workers share their pages
                from puzzlesat.core.processes import TaskPool

                searcher.prepare(bound)
                pool = TaskPool(limits.workers, _worker_adopt, (searcher,), method="fork")
            iteration_start = time.perf_counter()
            iteration_secs = 0.0
            if use_pool and pool is not None:
                left = limits.remaining(start)
                cap = 2**62 if left is None else max(1000, int(left * rate * 2))
                cap = cap if escalate_at is None else min(cap, escalate_at)
                pool.submit(_worker_run, [(i, rows[c], bound, find_all, cap) for i, c in enumerate(chunks)])
            for i in range(len(chunks)):
                left = limits.remaining(start)
                if left is not None and left <= 0:
                    iteration_status = BUDGET
                    break
                if use_pool and pool is not None:
                    try:
                        out = pool.next(timeout=None if left is None else left + 0.5)
                    except TimeoutError:
                        iteration_status = BUDGET
                        break
                else:
                    cap = 2**62 if left is None else max(1000, int(left * rate))
                    if escalate_at is not None:
                        cap = min(cap, max(1000, escalate_at - int(this_nodes.sum())))
                    out = _local_run(searcher, (i, rows[chunks[i]], bound, find_all, cap))
                chunk_id, st, sols, count, nodes, _secs = out
                this_nodes[busiest[chunks[chunk_id]]] = nodes  # in the prefixes' own order
                stats["nodes"] += int(nodes.sum())
                done_weight += float(weights[chunks[chunk_id]].sum())
                elapsed = time.perf_counter() - search_start
                kernel_nodes += int(nodes.sum())
                kernel_secs += _secs
                iteration_secs += _secs
                if kernel_secs > 0.2:
                    rate = max(MIN_RATE, kernel_nodes / kernel_secs)
                if count:
                    solutions.append(sols[:, :bound])
                now = time.perf_counter()
                if show and (now - last_shown > 0.5 or (printed and i == len(chunks) - 1)):
                    last_shown = now
                    printed = True
                    _progress(bound, done_weight / total_weight, stats["nodes"], elapsed)
                if st != EXHAUSTED:
                    iteration_status = st
                    break
                if escalate_at is not None and int(this_nodes.sum()) >= escalate_at and i < len(chunks) - 1:
                    iteration_status = BUDGET  # the small set's budget is spent, with subtrees left
                    break
            if printed:  # a depth long enough to show stays on record
                progress.end()
                rate = stats["nodes"] / max(1e-9, time.perf_counter() - search_start)
                progress.line(
                    f"c rubik ida depth {bound}: {100 * done_weight / total_weight:.1f}%  {stats['nodes']:,} nodes  "
                    f"{rate / 1e6:.1f} M nodes/s"
                )
            left = limits.remaining(start)
            if iteration_status == BUDGET and deeper is not None and (left is None or left > 0):
                over_budget = True  # this bound again, on the deeper set
                continue
            if use_pool and iteration_status == EXHAUSTED:
                pool_wall += time.perf_counter() - iteration_start
                pool_secs += iteration_secs
            for block in solutions:
                for row in block:
                    found.append(tuple(int(x) for x in row))
            if found and best is None:
                best = bound
            if iteration_status == BUDGET and best is None:
                message = f"time limit during depth {bound}; no solution shorter than {bound}"
                stats["lower_bound"] = bound
                break
            if iteration_status in (BUDGET, FULL):
                message = "time limit or solution cap reached while collecting extra solutions"
                break
            stats["lower_bound"] = bound if best is None else best
            if best is not None and not find_all:
                break
            last_nodes = this_nodes
            iteration_nodes.append(int(this_nodes.sum()))
            bound += step
        else:
            if best is None:
                message = f"no solution within {max_depth} moves (--max-depth)"
    except BuildStopped as exc:
        message = f"{exc}; no solution shorter than {bound}"
        stats["lower_bound"] = bound
        deeper = None  # (the message says which tables)
    finally:
        if pool is not None:
            pool.close()
    wall = time.perf_counter() - start
    stats["search_s"] = round(time.perf_counter() - search_start, 3)
    if stats["search_s"] > 0:
        stats["nodes_per_s"] = int(stats["nodes"] / stats["search_s"])
    if kernel_secs > 0:
        # per process: the kernels' own time, summed over the workers
        stats["nodes_per_kernel_s"] = int(kernel_nodes / kernel_secs)
    if pool_wall > 0:
        # the share of the whole parallel iterations' wall time the workers spent searching
        stats["workers_busy"] = round(pool_secs / (limits.workers * pool_wall), 3)
    stats.update({"tables": table_set, "table_mb": round(searcher.tables.nbytes / 1e6, 1)})
    if deeper is not None and best is None:
        message += f" (a deeper search needs the {deeper} tables: puzzlesat tables build rubik {deeper})"
    return _answer(found, best, searcher.moves.moves, metric, wall, stats, message)


def _answer(
    found: list[tuple[int, ...]],
    best: int | None,
    moves: tuple[tuple[int, int], ...],
    metric: str,
    wall: float,
    stats: dict[str, Any],
    message: str,
) -> Result:
    """The result of a search that found the move sequences ``found`` (indices into ``moves``), shortest
    ``best`` long (None: none found)."""
    if best is None:
        return Result(Status.UNKNOWN, None, None, wall, stats, message=message)
    maneuvers = []
    seen = set()
    for row in sorted(found, key=len):
        man = simplify(tuple(moves[m] for m in row))
        if man not in seen:
            seen.add(man)
            maneuvers.append(man)
    solution = Solution(tuple(maneuvers), metric)
    if len(found) >= MAX_SOLUTIONS:
        message = f"solution list cut at {MAX_SOLUTIONS}"
    stats["solutions"] = len(maneuvers)
    return Result(Status.OPTIMAL, solution, solution.length, wall, stats, message=message)


def _first_bound(searcher: Searcher | Phase1Searcher, cube: Cube, metric: str, at_least: int) -> int:
    """The first bound to search: the position's lower bound (in QTM with the parity of its
    corner permutation), and at least ``at_least`` (every shorter bound was searched)."""
    bound = searcher.lower_bound()
    if metric == "qtm" and bound % 2 != parity(cube.cp):
        bound += 1
    return max(bound, at_least)


def _predicted_nodes(done: list[int], metric: str) -> float:
    """The nodes of the next iteration, from those of the last ones (none before the first)."""
    if not done:
        return 0.0
    growth = done[-1] / done[-2] if len(done) >= 2 and done[-2] > 0 else GROWTH_GUESS[metric]
    return done[-1] * max(growth, 2.0)


def _small_budget(spent: float, rate: float) -> int:
    """The nodes the small set may still search, ``spent`` seconds in, before the deeper set is built."""
    return max(1000, int((ESCALATE_SECONDS - spent) * rate))


def _escalate(
    cube: Cube, metric: str, name: str, bound: int, quiet: bool, left: float | None
) -> tuple[Searcher | Phase1Searcher, int, float]:
    """The searcher of the deeper set ``name``, built now (or its stopped build resumed) since
    the small set is too slow at ``bound``; the bound to go on from, and the seconds it took."""
    if not quiet:
        progress.line(
            f"c rubik: bound {bound} would take the small tables over {ESCALATE_SECONDS:g} s: building the "
            f"{name} tables, once (`puzzlesat tables build rubik {name}` builds them ahead)"
        )
    began = time.perf_counter()
    searcher = make_searcher(cube, metric, name, quiet, None if left is None else time.monotonic() + left)
    return searcher, _first_bound(searcher, cube, metric, bound), time.perf_counter() - began


def memory_cap_mb() -> int | None:
    """The ``RLIMIT_DATA`` cap of this process in MiB (``--memory-limit``), or None."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
    return None if soft == resource.RLIM_INFINITY else soft >> 20


def tables_for(cap_mb: int | None) -> str:
    """The largest table set whose search fits in ``cap_mb`` MiB (no cap: ``phase1``)."""
    from puzzlesat.native.rubik.cache import TABLE_MEMORY_MB

    return next((name for name, need in TABLE_MEMORY_MB.items() if cap_mb is None or need <= cap_mb), "small")


def _local_run(searcher: Searcher | Phase1Searcher, task: Task) -> Outcome:
    chunk_id, rows, bound, find_all, budget = task
    t0 = time.perf_counter()
    status, sols, count, nodes = searcher.run(rows, bound, find_all, budget)
    return chunk_id, status, sols, count, nodes, time.perf_counter() - t0
