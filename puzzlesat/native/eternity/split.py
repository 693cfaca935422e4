"""``native-rowscan --workers N``: one row-scan search tree shared by N processes in even shares.

The tree is the one a single search walks (one candidate order, drawn from the seed; no
restarts), cut into tasks: a task is a partial board (the candidates placed on cells
0..p-1) and the first candidate to try on cell p (:data:`~puzzlesat.native.eternity.search.Task`).

1. This process searches alone for ``head_start`` seconds (an Option; most boards end there), then
   starts ``workers`` processes, a :class:`~puzzlesat.core.processes.TaskPool` (they die with
   it; forked on Linux, so that they start at once with the compiled kernel, spawned
   elsewhere), searches on until one of them is ready, hands them what is left of its search
   (:meth:`~puzzlesat.native.eternity.search.Search.remaining`, as tasks) and watches them.
2. Work stealing keeps the shares even however lopsided the tree: between two slices of its
   search, a worker that sees the pool :func:`~puzzlesat.core.processes.hungry` (more workers
   idle than tasks queued) gives away the untried candidates of the shallowest cell of its
   own task (:meth:`~puzzlesat.native.eternity.search.Search.split`), the biggest piece it holds.
3. The pieces go through this process, which counts the tasks handed out: the tree is
   exhausted when every one of them is reported done.  Each piece belongs to the task it was
   cut from (its *root*): a root is done when it and all its pieces are.

A checkpointed count (native/eternity/count_checkpoint.py) hands its own tasks instead
(:class:`Roots`: no search alone here), a few per worker at a time, and hears of each root
done with its boards and nodes.

To exhaustion (a proof that there is no solution, or a count) the workers place exactly the
nodes the one-process search places, between them.  A count of a board of 64 tiles or fewer
shares a :class:`~puzzlesat.native.eternity.count_search.CountSearch` the same way.  A decision
search stops at the first board any worker finds; a count adds up the boards of every task.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from puzzlesat.core import Limits, Result, Status, processes
from puzzlesat.core.kernel_status import EXHAUSTED, FOUND
from puzzlesat.core.knobs import knob
from puzzlesat.domains.eternity import Instance, Solution
from puzzlesat.native.eternity.arrays import BitTable, Table
from puzzlesat.native.eternity.count_search import CountSearch, fits
from puzzlesat.native.eternity.knobs import HEAD_START
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search, Task, load_kernels

START_METHOD = "fork" if sys.platform.startswith("linux") else "spawn"
SLICE_NODES = 1_000_000  # nodes between a worker's looks at the others (tens of milliseconds)
WAIT = 0.05  # seconds between the coordinator's looks at the clock
AHEAD = 4  # a checkpointed count's roots in hand per worker (queued or under way)


@dataclass
class Roots:
    """The tasks of a checkpointed count, and what hears of them.

    Attributes:
        table: the candidate table the tasks index.
        tasks: (the root's number, the task) for each root to search.
        done: called with (root, boards, nodes) once a root and all its pieces are done.
        board: called with the first board each worker finds.
    """

    table: Table | BitTable
    tasks: list[tuple[int, Task]]
    done: Callable[[int, int, int], None]
    board: Callable[[Solution], None]


def solve(
    instance: Instance,
    lookup: Lookup,
    limits: Limits,
    check: bool,
    compile_start: float,
    compile_time: float,
    head: Search | None = None,
    plain: int = 0,
    roots: Roots | None = None,
) -> Result:
    """Search (or count, with the ``count`` option) here, then in ``limits.workers`` processes.

    ``head``, when given, is the one-process search of the seed's candidate order ``plain``
    nodes in (the caller's plain-Python head start); it goes on from there.  ``roots``: the
    tasks of a checkpointed count, searched by the workers alone.  The workers are stopped
    with their process trees before this returns, whatever happens.
    """
    began = time.perf_counter()
    counting = bool(limits.options.get("count"))
    bits = counting and fits(instance, check)  # a count on tile bitsets (native/eternity/count_search.py)
    load_kernels(bits, replay_too=True)  # the task kernel too, here: forked workers start with it loaded
    start = time.perf_counter()
    compile_time += start - began
    search: Search | CountSearch
    if roots is not None:  # the tasks' table; the search here only names the kernel
        table = roots.table
        search = (
            CountSearch(instance, lookup, table)
            if isinstance(table, BitTable)
            else Search(instance, lookup, None, check, table)
        )
    else:
        search = CountSearch(instance, lookup) if bits else head or Search(instance, lookup, Draws(limits.seed), check)
    stats: dict[str, Any] = {"workers": limits.workers, "compile_time": round(compile_time, 3)}
    tally = _Tally()
    tally.alone = plain if search is head else 0

    def finish(status: Status, message: str = "") -> Result:
        stats.update(nodes=tally.alone + sum(tally.nodes.values()), tasks=tally.handed)
        if tally.nodes:
            stats["worker_nodes"] = "/".join(map(str, tally.nodes.values()))
        if check:
            stats["pruned"] = tally.pruned
        if counting:
            stats.update(solutions=tally.found * lookup.labelings, kernel=search.kernel)
        done = status in (Status.SOLVED, Status.INFEASIBLE)
        wall = time.perf_counter() - start
        count = stats.get("solutions") if done else None
        if counting and status is Status.UNKNOWN:
            message += f"; {stats['solutions']} solutions found before it"
        return Result(status, tally.first if done else None, wall_time=wall, stats=stats, count=count, message=message)

    def alone() -> Result | None:
        """A slice of this process's search; the answer when it ends the search."""
        status, done = search.run(SLICE_NODES, limit=COUNT_LIMIT if tally.first and counting else 1)
        tally.alone += done
        if status == FOUND:
            tally.first = search.board()
            if not counting:
                return finish(Status.SOLVED)
        elif status == EXHAUSTED:
            tally.task_done(search.found, search.pruned)
            return finish(Status.INFEASIBLE if tally.first is None else Status.SOLVED)
        left = limits.remaining(compile_start)
        if left is not None and left <= 0:
            tally.task_done(search.found, search.pruned)
            return finish(Status.UNKNOWN, "time limit")
        return None

    alone_for = 0.0 if roots is not None else knob(limits.options, HEAD_START)
    while time.perf_counter() - start < alone_for:  # 1. alone
        if (answer := alone()) is not None:
            return answer
    initargs = (instance, lookup, search.table, check, counting)
    pool = processes.TaskPool(limits.workers, _start_worker, initargs, method=START_METHOD, name="puzzlesat-eternity")
    with pool:
        while roots is None and not pool.hungry():  # on alone while the workers start and load their kernels
            if (answer := alone()) is not None:
                return answer
            if not all(process.is_alive() for process in pool.processes):
                return finish(Status.ERROR, "a worker ended before its first task")
        tally.task_done(search.found, search.pruned)
        jobs = deque(enumerate(search.remaining()) if roots is None else roots.tasks)
        ahead = len(jobs) if roots is None else AHEAD * limits.workers
        tally.nodes = {process.pid or 0: 0 for process in pool.processes}
        pool.submit(_search_task, tally.hand([jobs.popleft() for _ in range(min(ahead, len(jobs)))]))
        while tally.open:
            left = limits.remaining(compile_start)
            if left is not None and left <= 0:
                return finish(Status.UNKNOWN, "time limit")
            try:
                kind, worker, root, payload, worker_nodes = pool.next(timeout=WAIT if left is None else min(WAIT, left))
            except TimeoutError:
                continue
            except processes.WorkerDied:
                return finish(Status.ERROR, "a worker ended with its task unfinished")
            tally.nodes[worker] += worker_nodes
            tally.open[root][2] += worker_nodes
            if kind == "split":
                pool.extend(_search_task, tally.hand([(root, payload)]))
            elif kind == "board":
                first = Solution(tuple(map(tuple, payload)))
                tally.first = tally.first or first
                if roots is not None:
                    roots.board(first)
                if not counting:
                    return finish(Status.SOLVED)
            elif kind == "done":  # the boards and refusals of a finished task
                tally.task_done(*payload)
                ended = tally.piece_done(root, payload[0])
                if ended is not None and roots is not None:
                    roots.done(root, *ended)
                    if jobs:
                        pool.extend(_search_task, tally.hand([jobs.popleft()]))
    return finish(Status.INFEASIBLE if tally.first is None else Status.SOLVED)


class _Tally:
    """What the searches have reported: nodes (alone here, and per worker), boards, refusals, tasks."""

    def __init__(self) -> None:
        self.alone = 0
        self.nodes: dict[int, int] = {}  # per worker process id
        self.found = 0
        self.pruned = 0
        self.handed = 0
        self.open: dict[int, list[int]] = {}  # per root under way: its tasks under way, boards, nodes
        self.first: Solution | None = None

    def task_done(self, found: int, pruned: int) -> None:
        self.found += found
        self.pruned += pruned

    def hand(self, jobs: list[tuple[int, Task]]) -> list[tuple[int, Task]]:
        """``jobs`` (root, task) handed out: each root's pieces under way, boards, nodes."""
        for root, _ in jobs:
            self.open.setdefault(root, [0, 0, 0])[0] += 1
        self.handed += len(jobs)
        return jobs

    def piece_done(self, root: int, found: int) -> tuple[int, int] | None:
        """A task of ``root`` done with ``found`` boards: (the root's boards, nodes) if that ended it."""
        tally = self.open[root]
        tally[0] -= 1
        tally[1] += found
        if tally[0]:
            return None
        del self.open[root]
        return tally[1], tally[2]


_WORKER: dict[str, Any] = {}  # in a worker: its search, and whether it has sent a board


def _start_worker(instance: Instance, lookup: Lookup, table: Table | BitTable, check: bool, counting: bool) -> None:
    """A worker's start: the kernels, and one search on the shared candidate order for every task."""
    bits = isinstance(table, BitTable)
    load_kernels(bits, replay_too=True)
    search = (
        CountSearch(instance, lookup, table)
        if isinstance(table, BitTable)
        else Search(instance, lookup, None, check, table)
    )
    _WORKER.update(search=search, counting=counting, board_sent=False)


def _search_task(job: tuple[int, Task]) -> tuple[str, int, int, Any, int]:
    """A pool task: search ``task`` of ``job`` (root, task) in slices, giving a piece away when
    the pool is hungry.

    Every message is ``(kind, worker, root, payload, nodes since the last message)``, reported
    once a slice at least, so the coordinator's node count stays current; the last is the
    task's result: ``done`` with its boards and refusals, or ``board`` (a decision search's answer).
    """
    root, task = job
    search: Search | CountSearch = _WORKER["search"]
    counting = _WORKER["counting"]
    worker = os.getpid()
    search.start(task)
    nodes = 0
    while True:
        status, done = search.run(SLICE_NODES, limit=COUNT_LIMIT if _WORKER["board_sent"] and counting else 1)
        nodes += done
        if status == FOUND:
            board = ("board", worker, root, search.board().placements, nodes)
            if not counting:
                return board
            processes.report(board)
            nodes, _WORKER["board_sent"] = 0, True
        elif status == EXHAUSTED:
            return "done", worker, root, (search.found, search.pruned), nodes
        else:  # a piece for an idle worker, or only the nodes so far
            piece = search.split() if processes.hungry() else None
            processes.report(
                ("nodes", worker, root, None, nodes) if piece is None else ("split", worker, root, piece, nodes)
            )
            nodes = 0
