"""Native strategies for blacken: the numba branch and bound, its parallel split, and BFS.

``native-bb`` is the seed's depth-first branch and bound (moves ordered by the stones they
flip, cut at the best answer found, stop at the lower bound) with a transposition table, a
partial-order reduction (two moves next to disjoint sets of white components commute, so only
one order is searched) and two lower bounds: the packing bound of
:func:`puzzlesat.domains.blacken.bound_kernel.bound` and the component bound of
:func:`puzzlesat.domains.blacken.bound_kernel.split_bound` (every white component solved
alone, exactly and memoised, a move next to m components costing 1/m), shared with the step
models through :class:`puzzlesat.domains.blacken.bound.BoundBoard`.  It starts from the best of
a few greedy plays, so it always holds an answer.

``native-bb-par`` splits the same search into subtrees (the positions after the first one or
two moves, in the serial order), one task each for ``limits.workers`` spawned processes
(:class:`~puzzlesat.core.processes.TaskPool`); the best move count is shared through a
``multiprocessing.Value`` that every worker reads between node budgets, so one worker's answer
cuts the others' trees (what the seed's MPI version did with work stealing), and each better
answer is reported to this process as it is found.  ``native-bb`` with more than one worker
(the default on a machine with several cores) becomes ``native-bb-par`` once it has searched
alone for ``head_start`` seconds (an Option, :data:`HEAD_START`) without settling the board.

A small board (at most :data:`PLAIN_WHITES` white stones) starts ``native-bb`` with the same
kernels run as plain Python (:mod:`puzzlesat.native.plain`) for ``plain_nodes`` nodes (an Option), and
compiles them only when that was not enough: compiling takes several seconds on a fresh
install, and the seed's 7x7 board is settled in 25 nodes.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from puzzlesat.core import TIME_LIMIT, Limits, Result, Status, Strategy
from puzzlesat.core.incumbent import Incumbent
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED
from puzzlesat.core.knobs import head_start, knob, plain_budget, plain_nodes
from puzzlesat.domains.blacken import BFS_POSITIONS, Cell, Instance, Solution, bfs_optimum, greedy
from puzzlesat.domains.blacken.bound import MEMO_BITS, SPLIT_WORK, BoundBoard

HEAD_START = head_start(1.0)  # seconds native-bb(-par) searches alone before it starts processes
PLAIN_WHITES = 8  # boards with at most this many white stones start in plain Python
PLAIN_START = 200  # nodes searched in plain Python (about 1 ms a node) before compiling the kernels

BRANCH_AND_BOUND = Strategy(
    "native-bb",
    "puzzlesat.native.blacken.bb:solve",
    "numba depth-first branch and bound: moves ordered by flips, transposition table, "
    "partial order of commuting moves, exact per-component lower bound; proves optimality; "
    "with --workers N, a search still running after a second goes on as native-bb-par",
    options=(HEAD_START, plain_nodes(PLAIN_START, f"on a board of at most {PLAIN_WHITES} white stones")),
    puzzle="blacken",
    engine="native",
    parallel=True,
)
PARALLEL = Strategy(
    "native-bb-par",
    "puzzlesat.native.blacken.bb:solve_parallel",
    "the native search split into subtrees over --workers processes, best bound shared",
    options=(HEAD_START,),
    puzzle="blacken",
    engine="native",
    parallel=True,
)
BFS = Strategy(
    "bfs",
    "puzzlesat.native.blacken.bb:solve_bfs",
    "breadth-first search over positions in pure Python: the reference for small boards",
    puzzle="blacken",
    engine="plain",
)

CHUNK = 100_000
POR = True  # partial-order reduction of commuting moves
TT_BITS = 20
PLAIN_SPLIT_WORK = 2_000  # the component bound's work limit at the root in plain Python (SPLIT_WORK compiled)


class Search(BoundBoard):
    """The kernel's arrays for one instance: set up a root (with a move prefix), then run.

    >>> from puzzlesat.domains.blacken import Instance
    >>> s = Search(Instance(5, ((2, 2),)))
    >>> s.start((), best=3, target=0)
    True
    >>> s.run(10_000), len(s.best_moves() or ())
    (0, 2)
    """

    def __init__(
        self,
        instance: Instance,
        seed: int = 0,
        tt_bits: int = TT_BITS,
        memo_bits: int = MEMO_BITS,
        split: bool = True,
        plain: bool = False,
    ) -> None:
        import numpy as np  # here, not at the top: listing the strategies imports this module

        super().__init__(instance, memo_bits, split)
        from puzzlesat.native.blacken import kernel as kern

        self.kern: Any = kern
        self.plain = plain  # the kernels run as plain Python (module docstring) until :meth:`compiled`
        if plain:
            from puzzlesat.native.plain import plain_module

            self.kern, self.bk = plain_module(kern), plain_module(self.bk)
            self.split_work = PLAIN_SPLIT_WORK
        p = self.width
        rng = np.random.default_rng(seed + 12345)
        zob = rng.integers(1, 2**62, size=(2, p * p), dtype=np.int64)
        self.maxd = len(instance.frontier()) + 2
        ncells = len(instance.frontier()) + 1
        per_depth = [np.zeros(self.maxd + 1, dtype=np.int64) for _ in range(5)]
        # partial order: the components next to each cell (all bits = depends on everything)
        p2 = p * p
        compmask = np.full(p2, -1, dtype=np.int64)
        zlast = np.zeros((2, p2), dtype=np.int64)
        if POR and 0 < len(self.groups) <= 62:
            compmask[:] = 0
            for i, cells in enumerate(self.near):
                for cell in cells:
                    compmask[self.index(cell)] |= 1 << i
            zlast = np.random.default_rng(seed + 777).integers(1, 2**62, size=(2, p2), dtype=np.int64)
        self.tree = kern.Tree(
            grid=self.grid0.copy(),
            whites=self.whites,
            dirs=self.dirs,
            zob=zob,
            zlast=zlast,
            ttk1=np.zeros(1 << tt_bits, dtype=np.int64),
            ttk2=np.zeros(1 << tt_bits, dtype=np.int64),
            ttd=np.zeros(1 << tt_bits, dtype=np.int64),
            st=np.zeros(kern.STATE_SIZE, dtype=np.int64),
            path=per_depth[0],
            best_path=per_depth[1],
            cand=np.zeros((self.maxd + 1, ncells), dtype=np.int64),
            ncand=per_depth[2],
            cidx=per_depth[3],
            fstart=per_depth[4],
            flipbuf=np.zeros(len(self.whites) + 1, dtype=np.int64),
            mark=self.mark,
            order=self.order,
            score=np.zeros(ncells, dtype=np.int64),
            compmask=compmask,
        )

    def start(self, prefix: tuple[Cell, ...], best: int, target: int) -> bool:
        """Reset to the initial position, play ``prefix`` and make it the search root.

        Returns:
            False when the prefix already fails (a dead or hopeless position, or it solves
            the board: then ``best_moves`` is the prefix if it beats ``best``).
        """
        kern, t = self.kern, self.tree
        st = t.st
        t.grid[:] = self.grid0
        st[:] = 0
        st[kern.BEST] = best
        st[kern.TARGET] = target
        st[kern.WLEFT] = len(self.whites)
        for g, cell in enumerate(prefix):
            t.fstart[g] = st[kern.FTOP]
            t.path[g] = self.index(cell)
            kern.push(t.grid, t.dirs, t.zob, st, t.flipbuf, t.path[g])
        depth = len(prefix)
        st[kern.DEPTH] = st[kern.ROOT] = depth
        if st[kern.WLEFT] == 0:
            if depth < best:
                st[kern.BEST] = st[kern.ANSWER] = depth
                t.best_path[:depth] = t.path[:depth]
            return False
        h = self.packing_bound(t.grid)
        if depth + h < best:
            h = max(h, self.split_bound(t.grid))
        if depth + h >= best:
            return False
        self.mark[0] += 1
        kern.generate(t.grid, t.whites, t.dirs, t.mark, t.mark[0], t.cand, t.ncand, depth, t.score)
        t.cidx[depth] = 0
        return True

    def run(self, budget: int) -> int:
        """Search up to ``budget`` more nodes; returns the kernel's code."""
        return int(self.kern.search(self.tree, self.bounds, budget))

    def compiled(self) -> float:
        """Go on with the compiled kernels (compiled now or loaded from numba's cache); the seconds that took."""
        took = warm_up()
        if self.plain:
            from puzzlesat.domains.blacken import bound_kernel as bk
            from puzzlesat.native.blacken import kernel as kern

            self.kern, self.bk, self.plain = kern, bk, False
            self.bounds.too_big[:] = 0  # the plain calls' small limits gave up on them, not the bound itself
            self.split_work = SPLIT_WORK
        return took

    def set_best(self, best: int) -> None:
        """Lower the cut to a bound found elsewhere (never raises it)."""
        st = self.tree.st
        st[self.kern.BEST] = min(int(st[self.kern.BEST]), best)

    def best_moves(self) -> tuple[Cell, ...] | None:
        """The best answer this search found, or None."""
        found = int(self.tree.st[self.kern.ANSWER])
        if not found:
            return None
        return tuple(self.cell(i) for i in self.tree.best_path[:found])

    def first_moves(self, depth: int) -> list[tuple[Cell, ...]]:
        """The move prefixes of the given length, in the order the serial search visits them."""
        prefixes: list[tuple[Cell, ...]] = [()]
        for _ in range(depth):
            nxt: list[tuple[Cell, ...]] = []
            for prefix in prefixes:
                if not self.start(prefix, best=1 << 30, target=-1):
                    continue
                g = len(prefix)
                nxt.extend((*prefix, self.cell(i)) for i in self.tree.cand[g, : self.tree.ncand[g]])
            prefixes = nxt
        return prefixes

    @property
    def nodes(self) -> int:
        """Nodes expanded so far since the last start."""
        return int(self.tree.st[self.kern.NODES])


def _stats(search: Search, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    kern = search.kern
    out = {
        "nodes": search.nodes,
        "tt_cuts": int(search.tree.st[kern.TTCUTS]),
        "bound_cuts": int(search.tree.st[kern.BOUNDCUTS]),
        "memo": int(search.bounds.work[1]),
        "split_off": int(search.bounds.too_big.sum()),
    }
    out.update(extra or {})
    return out


def warm_up() -> float:
    """Compile (or load from cache) the kernel on a tiny board; returns the seconds it took."""
    from puzzlesat.native.first_dispatch import without_blas_probe

    start = time.perf_counter()
    with without_blas_probe():
        search = Search(Instance(5, ((2, 2),)), tt_bits=4)
        search.start((), best=3, target=0)
        search.run(100)
    return time.perf_counter() - start


def share_best(search: Search, race: Incumbent, best: tuple[Cell, ...] | None) -> tuple[Cell, ...] | None:
    """A race member's best answer, between two chunks: its own offered to the race, the race's
    taken (with its length as the cut) when another member holds a shorter one."""
    found = search.best_moves()
    if found is not None and (best is None or len(found) < len(best)):
        best = found
    if best is not None:
        race.offer(len(best), Solution(best))
    entry = race.best()
    if entry is not None and (best is None or entry.objective < len(best)):
        best = tuple(entry.solution.moves)
        search.set_best(entry.objective)
    return best


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """``native-bb``: the serial branch and bound; OPTIMAL when the tree is exhausted."""
    import numpy as np

    del variant
    alone = knob(limits.options, HEAD_START)
    plain_start = plain_budget(limits.options, PLAIN_START, loaded=False)
    plain = len(instance.whites) <= PLAIN_WHITES and plain_start > 0
    compile_time = 0.0 if plain else warm_up()
    start = time.perf_counter()
    if not instance.whites:
        return Result(Status.OPTIMAL, Solution(()), 0, time.perf_counter() - start, {"nodes": 0})
    with np.errstate(over="ignore"):  # the plain kernels' numpy scalars may not warn (the library never prints)
        search = Search(instance, limits.seed, plain=plain)
        lower = search.root_bound()
        seed_answer = greedy(instance, limits.seed)
        best = seed_answer if seed_answer is not None else None
        cut = len(best) if best is not None else search.maxd
        status = EXHAUSTED
        if cut > lower and search.start((), best=cut, target=lower):
            status = BUDGET
            alone_from = time.perf_counter()  # --workers N: this search's time alone, compiling aside
            while status == BUDGET:
                left = limits.remaining(start)
                if left is not None and left <= 0:
                    break
                if limits.shared is not None:
                    best = share_best(search, limits.shared, best)
                if search.plain and (search.nodes or search.bounds.too_big.any()):  # not enough, or too big for plain
                    compile_time = search.compiled()
                    start += compile_time
                    alone_from += compile_time
                    lower = max(lower, search.root_bound())  # the component bound at its full work limit
                    search.tree.st[search.kern.TARGET] = lower
                    if search.tree.st[search.kern.BEST] <= lower:  # the answer in hand meets it: optimal
                        status = EXHAUSTED
                        break
                if limits.workers > 1 and time.perf_counter() - alone_from > alone:
                    return _parallel(instance, replace(limits, timeout=left), 0.0)  # (alone: done)
                status = search.run(plain_start if search.plain else CHUNK)
    found = search.best_moves()
    if found is not None and (best is None or len(found) < len(best)):
        best = found
    stats = _stats(search, {"lower_bound": lower, "compile_time": round(compile_time, 3)})
    wall = time.perf_counter() - start
    if best is None:
        if status == EXHAUSTED:
            return Result(Status.INFEASIBLE, None, None, wall, stats, message="no sequence turns every stone black")
        return Result(Status.UNKNOWN, None, None, wall, stats, message=TIME_LIMIT)
    return _answer(best, status != BUDGET, wall, stats)


def _answer(best: tuple[Cell, ...], proven: bool, wall: float, stats: dict[str, Any], message: str = "") -> Result:
    """The best sequence found: OPTIMAL when ``proven``, else SOLVED with ``message`` or a
    note that the time ran out first."""
    return Result(
        Status.OPTIMAL if proven else Status.SOLVED,
        Solution(best),
        len(best),
        wall,
        stats,
        message=message or ("" if proven else "timeout: best found, not proven"),
    )


def solve_bfs(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """``bfs``: breadth-first search in pure Python (small boards only)."""
    del limits, variant
    start = time.perf_counter()
    moves = bfs_optimum(instance)
    if moves is None:
        return Result(Status.UNKNOWN, message=f"breadth-first search passed {BFS_POSITIONS} positions: use native-bb")
    return Result(Status.OPTIMAL, Solution(moves), len(moves), time.perf_counter() - start, {})


_WORKER: dict[str, Any] = {}  # in a pool worker: its search and what the workers share


def _init_worker(
    instance: Instance, seed: int, prefixes: list[tuple[Cell, ...]], shared_best: Any, target: int, stop: Any
) -> None:
    """A pool worker's start: one search (its own transposition table) for every subtree it takes."""
    _WORKER.update(search=Search(instance, seed), prefixes=prefixes, shared_best=shared_best, target=target, stop=stop)


def _subtree(index: int) -> tuple[str, int]:
    """A pool task: search the subtree after prefix ``index``, reporting every better answer.

    Returns:
        ("done", the nodes searched).
    """
    search, shared_best, target, stop = (_WORKER[k] for k in ("search", "shared_best", "target", "stop"))
    if stop.is_set():
        return "done", 0
    if not search.start(_WORKER["prefixes"][index], best=shared_best.value, target=target):
        moves = search.best_moves()
        if moves is not None:
            _share(moves, shared_best, target, stop)
        return "done", 0
    status = BUDGET
    while status == BUDGET and not stop.is_set():
        search.set_best(shared_best.value)
        status = search.run(CHUNK // 4)
        moves = search.best_moves()
        if moves is not None and len(moves) < shared_best.value:
            _share(moves, shared_best, target, stop)
    return "done", int(search.nodes)


def _share(moves: tuple[Cell, ...], shared_best: Any, target: int, stop: Any) -> None:
    from puzzlesat.core.processes import report

    with shared_best.get_lock():
        if len(moves) < shared_best.value:
            shared_best.value = len(moves)
            report(("answer", moves))
    if len(moves) <= target:
        stop.set()


def solve_parallel(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """``native-bb-par``: subtrees of the search over ``limits.workers`` spawned processes.

    The workers die with this process; each is stopped with its tree (SIGTERM, then SIGKILL)
    before this returns, whatever happens.
    """
    del variant
    return _parallel(instance, limits, knob(limits.options, HEAD_START))


def _parallel(instance: Instance, limits: Limits, serial_first: float) -> Result:
    """:func:`solve_parallel`, searching alone for ``serial_first`` seconds before it starts processes."""
    compile_time = warm_up()
    start = time.perf_counter()
    if not instance.whites:
        return Result(Status.OPTIMAL, Solution(()), 0, time.perf_counter() - start, {"nodes": 0})
    workers = max(1, limits.workers)
    search = Search(instance, limits.seed)
    lower = search.root_bound()
    best = greedy(instance, limits.seed)
    cut = len(best) if best is not None else search.maxd
    stats: dict[str, Any] = {"lower_bound": lower, "workers": workers, "compile_time": round(compile_time, 3)}
    # a short serial run first: most boards are settled before processes would have started
    status = EXHAUSTED
    if cut > lower and search.start((), best=cut, target=lower):
        serial_end = start + serial_first
        status = BUDGET
        while status == BUDGET and time.perf_counter() < serial_end:
            left = limits.remaining(start)
            if left is not None and left <= 0:
                break
            status = search.run(CHUNK // 4)
    found = search.best_moves()
    if found is not None and (best is None or len(found) < len(best)):
        best = found
    stats["serial_nodes"] = search.nodes
    if status != BUDGET or (best is not None and len(best) <= lower):
        assert best is not None
        return Result(Status.OPTIMAL, Solution(best), len(best), time.perf_counter() - start, stats)
    left = limits.remaining(start)
    if left is not None and left <= 0:
        if best is None:
            return Result(Status.UNKNOWN, None, None, time.perf_counter() - start, stats, message="no answer yet")
        return Result(
            Status.SOLVED,
            Solution(best),
            len(best),
            time.perf_counter() - start,
            stats,
            message="timeout: best found, not proven",
        )
    cut = len(best) if best is not None else cut
    prefixes = search.first_moves(1)
    if len(prefixes) < 4 * workers:
        prefixes = search.first_moves(2)
    stats["subtrees"] = len(prefixes)
    import multiprocessing

    from puzzlesat.core.processes import TaskPool, WorkerDied

    ctx = multiprocessing.get_context("spawn")
    shared_best = ctx.Value("q", cut)
    stop = ctx.Event()
    finished = 0
    nodes = 0
    timed_out = False
    # one seed for every worker: it only draws the hash keys of each worker's own table
    initargs = (instance, limits.seed, prefixes, shared_best, lower, stop)
    with TaskPool(workers, _init_worker, initargs, name="puzzlesat-blacken") as pool:
        pool.submit(_subtree, range(len(prefixes)))
        try:
            while finished < len(prefixes):
                left = limits.remaining(start)
                if left is not None and left <= 0:
                    timed_out = True
                    break
                try:
                    kind, payload = pool.next(timeout=0.05 if left is None else min(0.05, left))
                except TimeoutError:
                    continue
                except WorkerDied:
                    timed_out = True
                    stats["message"] = "a worker died"
                    break
                finished, nodes, best = _take(kind, payload, finished, nodes, best)
                if stop.is_set() and best is not None and len(best) <= lower:
                    break
        finally:
            stop.set()
    stats["nodes"] = nodes
    message = str(stats.pop("message", ""))
    wall = time.perf_counter() - start
    if best is None:
        return Result(Status.UNKNOWN, None, None, wall, stats, message=message or TIME_LIMIT)
    proven = not timed_out and (finished == len(prefixes) or len(best) <= lower)
    return _answer(best, proven, wall, stats, message)


def _take(
    kind: str, payload: Any, finished: int, nodes: int, best: tuple[Cell, ...] | None
) -> tuple[int, int, tuple[Cell, ...] | None]:
    if kind == "done":
        return finished + 1, nodes + int(payload), best
    moves = tuple(tuple(m) for m in payload)
    if best is None or len(moves) < len(best):
        best = moves  # type: ignore[assignment]
    return finished, nodes, best
