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
the small set more than ``escalate_seconds`` (an Option) in all: it then goes on at the same bound, so the
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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from puzzlesat.core import Limits, Option, Result, Status, Strategy, progress
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FULL
from puzzlesat.core.knobs import knob
from puzzlesat.domains.rubik import METRICS, Cube, Instance, Solution, max_depth_of, metric_of, parity, simplify

if TYPE_CHECKING:
    import numpy as np

    from puzzlesat.core.processes import TaskPool
    from puzzlesat.native.rubik.arrays import Phase1Arrays
    from puzzlesat.native.rubik.phase1 import Phase1Tables
    from puzzlesat.native.rubik.plain import Outcome as PlainOutcome
    from puzzlesat.native.rubik.prefixes import PrefixReduction
    from puzzlesat.native.rubik.tables import MoveSet, Tables

ESCALATE = Option(
    "escalate_seconds",
    float,
    10.0,
    "tables=auto: seconds of search on the small tables before the large ones are built",
    low=0.0,
    high=1e6,
)
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
        ESCALATE,
        Option(
            "parallel_from",
            int,
            None,
            "--workers N: the first bound the workers search, shorter ones here "
            "(default 10 on Korf's tables, 15 on the phase-1 ones)",
            low=0,
            high=40,
        ),
    ),
    modes=("all", "extra"),
    puzzle="rubik",
    engine="native",
    parallel=True,
)

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
        """The first bound searched by the workers (the option ``parallel_from`` aside)."""
        return 10

    def __init__(self, cube: Cube, metric: str, table_set: str, quiet: bool = False, stop_at: float | None = None):
        import numpy as np

        from puzzlesat.native.first_dispatch import without_blas_probe
        from puzzlesat.native.rubik import cache as rubik_cache
        from puzzlesat.native.rubik import tables as rubik_tables
        from puzzlesat.native.rubik.arrays import Codes, Pdbs

        self.metric = metric
        self.moves = rubik_tables.move_set(metric)
        with without_blas_probe():  # a build's kernels may be numba's first call in the process
            self.tables: Tables = rubik_cache.load(table_set, metric, quiet, stop_at)  # type: ignore[assignment]
        self.state = Codes(*cube_arrays(cube))
        t = self.tables
        self.pdbs = Pdbs(t.specs, t.tracked, t.table, True, *rubik_tables.symmetric_lookups(table_set, SYM_LOOKUPS))
        start = time.perf_counter()
        with without_blas_probe():
            self.run(np.zeros((0, 0), np.int64), 0, False, 1)  # compile, or load the compiled kernel
        self.compile_seconds = time.perf_counter() - start

    def lower_bound(self) -> int:
        """The heuristic value of the position."""
        from puzzlesat.native.rubik import kernels as k

        return int(k.full_heuristic(self.state, self.pdbs))

    def prepare(self, bound: int) -> None:
        """Nothing to do before a bound: the tables are small."""

    def run(self, rows: np.ndarray, bound: int, find_all: bool, budget: int) -> tuple[int, np.ndarray, int, np.ndarray]:
        """Search the subtrees below ``rows`` to exactly ``bound`` moves."""
        from puzzlesat.native.rubik import kernels as k
        from puzzlesat.native.rubik.arrays import Turns

        turns = Turns(self.moves.ctab, self.moves.etab, self.automaton(rows))
        status, sols, count, nodes = k.search(
            self.state, rows, bound, turns, self.pdbs, find_all, budget, MAX_SOLUTIONS if find_all else 1
        )
        return int(status), sols[: min(count, sols.shape[0])].copy(), int(count), nodes


class Phase1Searcher(_Prefixed):
    """The phase-1 tables on three axes of the cube and of its inverse, plus the corner table
    (``--tables phase1`` or ``phase1x6``)."""

    @property
    def parallel_from(self) -> int:
        """The first bound searched by the workers (each bound below takes milliseconds; the
        option ``parallel_from`` aside)."""
        return HUGE_FROM

    def __init__(self, cube: Cube, metric: str, table_set: str, quiet: bool = False, stop_at: float | None = None):
        import numpy as np

        from puzzlesat.native.first_dispatch import without_blas_probe
        from puzzlesat.native.rubik import cache as rubik_cache
        from puzzlesat.native.rubik import phase1 as rubik_phase1
        from puzzlesat.native.rubik import tables as rubik_tables
        from puzzlesat.native.rubik.arrays import Root

        self.metric = metric
        self.moves = rubik_tables.move_set(metric)
        with without_blas_probe():  # a build's kernels may be numba's first call in the process
            self.tables: Phase1Tables = rubik_cache.load(table_set, metric, quiet, stop_at)  # type: ignore[assignment]
        t = self.tables
        self.axes = t.axis_coordinates(cube)
        self.inverse_axes = t.axis_coordinates(cube.inverse())
        twist, _, _, corners = rubik_phase1.coordinates(cube)
        self.corner_dist = int(t.corners[corners * rubik_phase1.N_TWIST + twist])
        self.root = Root(self.axes, corners, self.corner_dist, np.concatenate(cube_arrays(cube)))
        self.huge = not t.mapped  # tables this process just built are in memory already
        self.copying: HugeCopy | None = None
        if not self.huge and self.lower_bound() >= HUGE_FROM - EARLY_COPY:
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
        status, sols, count, nodes = k.search(
            self.root,
            rows,
            bound,
            self.automaton(rows),
            self.arrays(),
            find_all,
            budget,
            MAX_SOLUTIONS if find_all else 1,
        )
        return int(status), sols[: min(count, sols.shape[0])].copy(), int(count), nodes

    def arrays(self) -> Phase1Arrays:
        """What the kernel reads of the tables (in huge pages once :meth:`prepare` put them there)."""
        from puzzlesat.native.rubik.arrays import Phase1Arrays

        t = self.tables
        return Phase1Arrays(
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
            t.max_depth + 1,  # the inverse cube: looked up where 0 < moves left <= the table's largest value
            t.base,
        )


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
    from puzzlesat.native.rubik.cache import KORF_SETS

    cls = Searcher if table_set in KORF_SETS else Phase1Searcher
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
    table builds, :mod:`puzzlesat.core.progress`).

    The stages: what is asked (:meth:`Ask.of`); the short solutions by the plain search
    (:func:`rubik_plain.first`), which may settle the answer; the tables to start on
    (:func:`choose_tables`); the searcher on them, reduced by the cube's symmetries, and the
    first bound (:class:`Iterations`); the IDA* iterations (:meth:`Iterations.run`), each
    planned (:func:`plan_iteration`), searched chunk by chunk and settled; the answer and its
    stats (:meth:`Iterations.result`)."""
    start = time.perf_counter()
    opts = limits.options
    metric = metric_of(opts)
    if metric not in METRICS:
        return Result(Status.ERROR, message=f"unknown metric {metric!r}; expected htm or qtm")
    ask = Ask.of(opts, metric)
    from puzzlesat.native.rubik import plain as rubik_plain  # no numba, no tables

    deadline = limits.deadline(start)
    plain = rubik_plain.first(instance.cube, metric, opts, ask.max_depth, ask.extra if ask.find_all else -1, deadline)
    if plain.settles(ask.extra, ask.max_depth) or limits.remaining(start) == 0:
        wall = time.perf_counter() - start
        stats, message = plain.stats(), plain.message(ask.extra, ask.max_depth)
        return _answer(list(plain.found), plain.best, plain.moves, metric, wall, stats, message)
    table_set, deeper = choose_tables(opts.get("tables"), metric)
    iterations = Iterations(instance.cube, ask, limits, start, plain, table_set, deeper)
    iterations.run()
    return iterations.result()


@dataclass(frozen=True)
class Ask:
    """What a solve asks for, read from its options once.

    Attributes:
        metric: ``htm`` or ``qtm``.
        find_all: collect every solution of the optimal length (``all``), or up to ``extra``
            moves longer (``extra``), instead of stopping at the first.
        extra: how much longer than optimal the collected solutions may be.
        max_depth: the longest solution searched for.
        step: how much a bound grows: 2 in QTM (every solution's length has the parity of
            the position's corner permutation), 1 in HTM.
        quiet: no progress lines.
        escalate: ``tables=auto``: seconds on the small set before the deeper one is built.
        parallel_from: the first bound the workers search (None: the searcher's own).
    """

    metric: str
    find_all: bool
    extra: int
    max_depth: int
    step: int
    quiet: bool
    escalate: float
    parallel_from: int | None

    @classmethod
    def of(cls, opts: dict[str, Any], metric: str) -> Ask:
        """The request of the options ``opts`` in ``metric``."""
        return cls(
            metric=metric,
            find_all=bool(opts.get("all")) or bool(opts.get("extra")),
            extra=int(opts.get("extra") or 0),
            max_depth=max_depth_of("native-ida", opts, metric),
            step=2 if metric == "qtm" else 1,
            quiet=not opts.get("progress", True),
            escalate=float(knob(opts, ESCALATE)),
            parallel_from=None if opts.get("parallel_from") is None else int(opts["parallel_from"]),
        )


def choose_tables(asked: str | None, metric: str) -> tuple[str, str | None]:
    """The table set to search on first, and the deeper set to build once that one is too slow (or None).

    A set named by ``asked`` is used as asked.  ``auto`` (or None) takes the largest set under
    the memory cap (:func:`tables_for`), or starts on the small set while that one is not built.
    """
    from puzzlesat.native.rubik import cache as rubik_cache

    table_set = asked or "auto"
    if table_set != "auto":
        return table_set, None
    table_set = tables_for(memory_cap_mb())
    if table_set != "small" and not rubik_cache.is_built(table_set, metric):
        return "small", table_set
    return table_set, None


class Plan(NamedTuple):
    """One iteration's subtrees, busiest first, and their chunks (:func:`plan_iteration`)."""

    rows: np.ndarray  # the prefixes, one a row, busiest first
    weights: np.ndarray  # each row's predicted work
    busiest: np.ndarray  # row i is prefix busiest[i] in the prefixes' own order
    chunks: list[np.ndarray]  # indices into rows, handed out in order

    @property
    def total_weight(self) -> float:
        """The iteration's predicted work (1 when there is none)."""
        return float(self.weights.sum()) or 1.0


def plan_iteration(
    searcher: Searcher | Phase1Searcher, bound: int, depth: int, last_nodes: np.ndarray | None, workers: int
) -> Plan:
    """The subtrees of the iteration at ``bound`` below every canonical prefix of ``depth`` moves (one
    per symmetry class under the searcher's reduction), weighted by the nodes the last iteration
    searched below each (``last_nodes``, in the prefixes' own order; None: equal weights), and cut
    into chunks for ``workers`` (:func:`plan_chunks`).

    The busiest subtrees of the last bound go first: they are likelier to hold a solution (H48
    found the same), and the largest jobs first balance the workers."""
    import numpy as np

    rows = prefixes(searcher.moves.next_state, min(depth, bound))
    if searcher.reduction is not None:
        rows = searcher.reduction.representatives(rows)
    weights = np.ones(len(rows))
    if last_nodes is not None and len(last_nodes) == len(rows):
        weights = last_nodes + 1.0
    busiest = np.argsort(-weights, kind="stable")
    rows, weights = rows[busiest], weights[busiest]
    return Plan(rows, weights, busiest, plan_chunks(weights, workers))


@dataclass
class Iteration:
    """What one iteration searched and found, chunk by chunk (:meth:`Iterations.iterate`).

    Attributes:
        bound: the iteration's bound.
        nodes: the nodes searched below each prefix, in the prefixes' own order.
        status: EXHAUSTED (every chunk searched), or why it stopped: FOUND, FULL, BUDGET (the
            time limit, or the small set's node budget).
        solutions: the solutions found, blocks of rows of ``bound`` moves.
        done_weight: the predicted work of the chunks searched.
        kernel_secs: the kernels' time in those chunks, summed over the processes.
        began: when it started (:func:`time.perf_counter`).
    """

    bound: int
    nodes: np.ndarray
    status: int = EXHAUSTED
    solutions: list[np.ndarray] = field(default_factory=list)
    done_weight: float = 0.0
    kernel_secs: float = 0.0
    began: float = field(default_factory=time.perf_counter)


class Shown:
    """One iteration's progress line: from bound 12 on, unless quiet; the first after half a second,
    then every half second, and the last chunk's once one was shown."""

    def __init__(self, bound: int, quiet: bool) -> None:
        self.on = not quiet and bound >= 12
        self.last = time.perf_counter()
        self.printed = False

    def tick(self, iteration: Iteration, share: float, nodes: int, elapsed: float, last_chunk: bool) -> None:
        """Show the iteration ``share`` done, with ``nodes`` searched in ``elapsed`` seconds, when it is time."""
        now = time.perf_counter()
        if self.on and (now - self.last > 0.5 or (self.printed and last_chunk)):
            self.last = now
            self.printed = True
            _progress(iteration.bound, share, nodes, elapsed)


class Iterations:
    """The IDA* of one solve: its searcher, the bound, the pool of workers, what was found and measured.

    Set up with the tables (:func:`make_searcher`), the cube's symmetry reduction
    (:meth:`PrefixReduction.of <puzzlesat.native.rubik.prefixes.PrefixReduction.of>`) and the
    first bound (:func:`_first_bound`), on from the plain search's answers.  :meth:`run` searches
    the bounds in turn; :meth:`result` is the answer.
    """

    def __init__(
        self,
        cube: Cube,
        ask: Ask,
        limits: Limits,
        start: float,
        plain: PlainOutcome,
        table_set: str,
        deeper: str | None,
    ) -> None:
        from puzzlesat.native.rubik.prefixes import PrefixReduction

        self.cube, self.ask, self.limits, self.start = cube, ask, limits, start
        self.table_set, self.deeper = table_set, deeper
        self.found, self.best = list(plain.found), plain.best
        self.searcher = make_searcher(cube, ask.metric, table_set, quiet=ask.quiet)
        table_time = time.perf_counter() - start - plain.seconds
        # a symmetric cube needs one prefix per symmetry class (not with --all)
        self.reduction = None if ask.find_all else PrefixReduction.of(cube, self.searcher.moves)
        self.searcher.reduction = self.reduction
        self.bound = _first_bound(self.searcher, cube, ask.metric, plain.next_length)
        self.stats: dict[str, Any] = {
            "nodes": 0,
            "workers": max(1, limits.workers),
            "lower_bound": self.bound,
            "tables_s": round(table_time - self.searcher.compile_seconds, 2),
            "compile_s": round(self.searcher.compile_seconds, 2),
            "plain_s": round(plain.seconds, 3),
        }
        self.message = ""
        self.pool: TaskPool | None = None
        self.last_nodes: np.ndarray | None = None  # per prefix, of the last iteration searched to the end
        self.iteration_nodes: list[int] = []  # of the iterations searched to the end on these tables
        self.over_budget = False  # an iteration on the small set ran out of its budget
        self.rate = float(RATE_GUESS)
        self.kernel_nodes, self.kernel_secs = 0, 0.0
        # wall time of the parallel iterations searched to the end, and the workers' kernel time in them (in an
        # iteration cut short, the chunks still running report nothing)
        self.pool_wall, self.pool_secs = 0.0, 0.0
        self.search_start = time.perf_counter()

    def run(self) -> None:
        """Search the bounds in turn until an answer, the time limit, a full solution list or ``max_depth``."""
        from puzzlesat.native.table_build import BuildStopped

        ask = self.ask
        try:
            while self.bound <= ask.max_depth:
                if self.best is not None and self.bound > self.best + ask.extra:
                    break
                first = self.searcher.parallel_from if ask.parallel_from is None else ask.parallel_from
                use_pool = self.limits.workers > 1 and self.bound >= first
                escalate_at = None  # on the small set: a chunk's node budget before the deeper set is built
                if self.deeper is not None:
                    spent = time.perf_counter() - self.search_start
                    if self.too_slow(spent, use_pool):
                        self.grow()
                        continue
                    escalate_at = _small_budget(spent, self.rate, ask.escalate)
                if not self.settle(self.iterate(use_pool, escalate_at), use_pool):
                    break
            else:
                if self.best is None:
                    self.message = f"no solution within {ask.max_depth} moves (--max-depth)"
        except BuildStopped as exc:
            self.message = f"{exc}; no solution shorter than {self.bound}"
            self.stats["lower_bound"] = self.bound
            self.deeper = None  # (the message says which tables)
        finally:
            if self.pool is not None:
                self.pool.close()

    def too_slow(self, spent: float, use_pool: bool) -> bool:
        """On the small set, ``spent`` seconds in: whether the next iteration would take it past
        ``escalate_seconds`` (or the last one ran out of its budget)."""
        speed = self.rate * (self.limits.workers if use_pool else 1)
        predicted = _predicted_nodes(self.iteration_nodes, self.ask.metric) / speed
        return self.over_budget or spent + predicted > self.ask.escalate

    def grow(self) -> None:
        """Go on with the deeper set at the same bound: the pool closed (its workers hold the small
        set), the deeper set built or loaded (:func:`_escalate`), what the small set measured dropped."""
        assert self.deeper is not None
        if self.pool is not None:
            self.pool.close()
            self.pool = None
        self.stats["deeper_from"] = self.bound
        left = self.limits.remaining(self.start)
        self.searcher, self.bound, secs = _escalate(
            self.cube, self.ask.metric, self.deeper, self.bound, self.ask.quiet, left, self.ask.escalate
        )
        self.searcher.reduction = self.reduction
        self.stats["tables_s"] = round(self.stats["tables_s"] + secs, 2)
        self.table_set, self.deeper, self.last_nodes, self.iteration_nodes = self.deeper, None, None, []

    def iterate(self, use_pool: bool, escalate_at: int | None) -> Iteration:
        """Search the current bound, chunk by chunk, in this process or on the workers (``use_pool``),
        up to ``escalate_at`` nodes (None: no cap but the clock)."""
        import numpy as np

        # (not one bound earlier for the weights: in this process, on the mapped files, its
        # 43,254 prefix walks would fault in most of the table's pages)
        depth = POOL_PREFIX_DEPTH if use_pool else PREFIX_DEPTH
        plan = plan_iteration(self.searcher, self.bound, depth, self.last_nodes, self.limits.workers if use_pool else 1)
        shown = Shown(self.bound, self.ask.quiet)
        if use_pool and self.pool is None:
            self.fork_pool()
        it = Iteration(self.bound, np.zeros(len(plan.rows), np.int64))
        if use_pool:
            self.submit(plan, escalate_at)
        for i in range(len(plan.chunks)):
            out = self.next_outcome(i, plan, use_pool, escalate_at, it)
            if out is None:
                it.status = BUDGET
                break
            status = self.take(out, plan, it)
            elapsed = time.perf_counter() - self.search_start
            shown.tick(it, it.done_weight / plan.total_weight, self.stats["nodes"], elapsed, i == len(plan.chunks) - 1)
            if status != EXHAUSTED:
                it.status = status
                break
            if escalate_at is not None and int(it.nodes.sum()) >= escalate_at and i < len(plan.chunks) - 1:
                it.status = BUDGET  # the small set's budget is spent, with subtrees left
                break
        if shown.printed:  # a depth long enough to show stays on record
            progress.end()
            self.rate = self.stats["nodes"] / max(1e-9, time.perf_counter() - self.search_start)
            progress.line(
                f"c rubik ida depth {self.bound}: {100 * it.done_weight / plan.total_weight:.1f}%  "
                f"{self.stats['nodes']:,} nodes  {self.rate / 1e6:.1f} M nodes/s"
            )
        return it

    def fork_pool(self) -> None:
        """Fork the workers, once the tables are in place: they share their pages."""
        from puzzlesat.core.processes import TaskPool

        self.searcher.prepare(self.bound)
        self.pool = TaskPool(self.limits.workers, _worker_adopt, (self.searcher,), method="fork")

    def submit(self, plan: Plan, escalate_at: int | None) -> None:
        """Hand the plan's chunks to the workers, each with a node budget from the time left (and ``escalate_at``)."""
        assert self.pool is not None
        left = self.limits.remaining(self.start)
        cap = 2**62 if left is None else max(1000, int(left * self.rate * 2))
        cap = cap if escalate_at is None else min(cap, escalate_at)
        tasks = [(i, plan.rows[c], self.bound, self.ask.find_all, cap) for i, c in enumerate(plan.chunks)]
        self.pool.submit(_worker_run, tasks)

    def next_outcome(
        self, i: int, plan: Plan, use_pool: bool, escalate_at: int | None, it: Iteration
    ) -> Outcome | None:
        """The next chunk's outcome: the next a worker hands back, or chunk ``i`` searched here
        with a node budget from the time left (and ``escalate_at``); None once time is up."""
        left = self.limits.remaining(self.start)
        if left is not None and left <= 0:
            return None
        if use_pool:
            assert self.pool is not None
            try:
                return self.pool.next(timeout=None if left is None else left + 0.5)
            except TimeoutError:
                return None
        cap = 2**62 if left is None else max(1000, int(left * self.rate))
        if escalate_at is not None:
            cap = min(cap, max(1000, escalate_at - int(it.nodes.sum())))
        return _local_run(self.searcher, (i, plan.rows[plan.chunks[i]], self.bound, self.ask.find_all, cap))

    def take(self, out: Outcome, plan: Plan, it: Iteration) -> int:
        """Record a chunk's outcome in the iteration and the solve's counts; its status."""
        chunk_id, status, sols, count, nodes, secs = out
        it.nodes[plan.busiest[plan.chunks[chunk_id]]] = nodes  # in the prefixes' own order
        searched = int(nodes.sum())
        self.stats["nodes"] += searched
        it.done_weight += float(plan.weights[plan.chunks[chunk_id]].sum())
        self.kernel_nodes += searched
        self.kernel_secs += secs
        it.kernel_secs += secs
        if self.kernel_secs > 0.2:
            self.rate = max(MIN_RATE, self.kernel_nodes / self.kernel_secs)
        if count:
            it.solutions.append(sols[:, : it.bound])
        return status

    def settle(self, it: Iteration, use_pool: bool) -> bool:
        """Take an iteration's answers and say whether to go on: with the same bound on the deeper
        set (the small set's budget ran out), with the next bound, or not (an answer, the time
        limit, a full solution list)."""
        left = self.limits.remaining(self.start)
        if it.status == BUDGET and self.deeper is not None and (left is None or left > 0):
            self.over_budget = True  # this bound again, on the deeper set
            return True
        if use_pool and it.status == EXHAUSTED:
            self.pool_wall += time.perf_counter() - it.began
            self.pool_secs += it.kernel_secs
        for block in it.solutions:
            for row in block:
                self.found.append(tuple(int(x) for x in row))
        if self.found and self.best is None:
            self.best = it.bound
        if it.status == BUDGET and self.best is None:
            self.message = f"time limit during depth {it.bound}; no solution shorter than {it.bound}"
            self.stats["lower_bound"] = it.bound
            return False
        if it.status in (BUDGET, FULL):
            self.message = "time limit or solution cap reached while collecting extra solutions"
            return False
        self.stats["lower_bound"] = it.bound if self.best is None else self.best
        if self.best is not None and not self.ask.find_all:
            return False
        self.last_nodes = it.nodes
        self.iteration_nodes.append(int(it.nodes.sum()))
        self.bound += self.ask.step
        return True

    def result(self) -> Result:
        """The answer, with what the search measured."""
        stats = self.stats
        wall = time.perf_counter() - self.start
        stats["search_s"] = round(time.perf_counter() - self.search_start, 3)
        if stats["search_s"] > 0:
            stats["nodes_per_s"] = int(stats["nodes"] / stats["search_s"])
        if self.kernel_secs > 0:
            # per process: the kernels' own time, summed over the workers
            stats["nodes_per_kernel_s"] = int(self.kernel_nodes / self.kernel_secs)
        if self.pool_wall > 0:
            # the share of the whole parallel iterations' wall time the workers spent searching
            stats["workers_busy"] = round(self.pool_secs / (self.limits.workers * self.pool_wall), 3)
        stats.update({"tables": self.table_set, "table_mb": round(self.searcher.tables.nbytes / 1e6, 1)})
        message = self.message
        if self.deeper is not None and self.best is None:
            message += f" (a deeper search needs the {self.deeper} tables: puzzlesat tables build rubik {self.deeper})"
        return _answer(self.found, self.best, self.searcher.moves.moves, self.ask.metric, wall, stats, message)


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


def _small_budget(spent: float, rate: float, escalate: float) -> int:
    """The nodes the small set may still search, ``spent`` of its ``escalate`` seconds in,
    before the deeper set is built."""
    return max(1000, int((escalate - spent) * rate))


def _escalate(
    cube: Cube, metric: str, name: str, bound: int, quiet: bool, left: float | None, escalate: float
) -> tuple[Searcher | Phase1Searcher, int, float]:
    """The searcher of the deeper set ``name``, built now (or its stopped build resumed) since
    the small set is too slow at ``bound``; the bound to go on from, and the seconds it took."""
    if not quiet:
        progress.line(
            f"c rubik: bound {bound} would take the small tables over {escalate:g} s: building the "
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
