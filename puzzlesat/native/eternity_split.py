"""``native-rowscan --workers N``: one row-scan search tree shared by N processes in even shares.

The tree is the one a single search walks (one candidate order, drawn from the seed; no
restarts), cut into tasks: a task is a partial board (the candidates placed on cells
0..p-1) and the first candidate to try on cell p (:data:`~puzzlesat.native.eternity_search.Task`).

1. This process searches alone for :data:`ALONE_FIRST` seconds (most boards end there), then
   starts ``workers - 1`` more (processes that die with it, :mod:`puzzlesat.core.processes`;
   forked on Linux, so that they start at once with the compiled kernel, spawned elsewhere)
   and goes on searching beside them.
2. Work stealing keeps the shares even however lopsided the tree: between two slices of its
   search, a searcher that sees more searchers idle than tasks queued gives away the untried
   candidates of the shallowest cell of its own search (:meth:`~puzzlesat.native.eternity_search.Search.split`),
   the biggest piece it holds.
3. The pieces go through this process, which counts the tasks handed out: the tree is
   exhausted when every one of them is reported done.

To exhaustion (a proof that there is no solution, or a count) the workers place exactly the
nodes the one-process search places, between them.  A decision search stops at the first
board any worker finds; a count adds up the boards of every task.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import sys
import time
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np

from puzzlesat.core import Limits, Result, Status
from puzzlesat.core.kernel_status import EXHAUSTED, FOUND
from puzzlesat.domains.eternity import Instance, Solution
from puzzlesat.native import aot
from puzzlesat.native.eternity_search import COUNT_LIMIT, Lookup, Search, Task
from puzzlesat.native.first_dispatch import without_blas_probe

START_METHOD = "fork" if sys.platform.startswith("linux") else "spawn"
ALONE_FIRST = 0.2  # seconds this process searches before it starts the others (easy boards end sooner)
SLICE_NODES = 1_000_000  # nodes between a worker's looks at the others (tens of milliseconds)
WAIT = 0.05  # seconds between the coordinator's looks at the clock


def solve(
    instance: Instance, lookup: Lookup, limits: Limits, check: bool, compile_start: float, compile_time: float
) -> Result:
    """Search (or count, with the ``count`` option) in this process and ``limits.workers - 1`` more.

    The workers are stopped with their process trees before this returns, whatever happens.
    """
    start = time.perf_counter()
    counting = bool(limits.options.get("count"))
    search = Search(instance, lookup, np.random.default_rng(limits.seed), check)
    workers = limits.workers
    ctx = mp.get_context(START_METHOD)
    tasks: Any = ctx.Queue()
    results: Any = ctx.Queue()
    idle: Any = ctx.Value("q", 0)  # searchers waiting for a task
    queued: Any = ctx.Value("q", 0)  # tasks put and not yet taken
    stop = ctx.Event()
    procs: list[BaseProcess] = []
    first: Solution | None = None
    stats: dict[str, Any] = {"workers": workers, "compile_time": round(compile_time, 3)}
    per_worker = [0] * workers  # nodes, this process first
    found = pruned = handed = 0
    outstanding = 1  # tasks not reported done: the whole tree, searched here first
    searching = True  # this process has a task
    from puzzlesat.core import processes

    def finish(status: Status, message: str = "") -> Result:
        stats.update(nodes=sum(per_worker), tasks=handed, worker_nodes="/".join(map(str, per_worker)))
        if check:
            stats["pruned"] = pruned + int(search.pruned[0]) * searching
        if counting:
            stats["solutions"] = (found + int(search.found[0]) * searching) * lookup.labelings
        done = status in (Status.SOLVED, Status.INFEASIBLE)
        wall = time.perf_counter() - start
        count = stats.get("solutions") if done else None
        if counting and status is Status.UNKNOWN:
            message += f"; {stats['solutions']} solutions found before it"
        return Result(status, first if done else None, wall_time=wall, stats=stats, count=count, message=message)

    try:
        while outstanding:
            if not procs and time.perf_counter() - start >= ALONE_FIRST:
                for i in range(1, workers):
                    args = (i, instance, lookup, search.arrays, check, counting, tasks, results, idle, queued, stop)
                    procs.append(processes.start(_work, args, name=f"puzzlesat-eternity-{i}", method=START_METHOD))
            if searching:  # a slice of this process's own task
                status, done = search.run(SLICE_NODES, limit=COUNT_LIMIT if first and counting else 1)
                per_worker[0] += done
                if status == FOUND:
                    first = search.board()
                    if not counting:
                        return finish(Status.SOLVED)
                elif status == EXHAUSTED:
                    found += int(search.found[0])
                    pruned += int(search.pruned[0])
                    outstanding -= 1
                    searching = False
                    with idle.get_lock():
                        idle.value += 1
                elif idle.value > queued.value:
                    piece = search.split()
                    if piece is not None:
                        _put(tasks, queued, piece)
                        outstanding += 1
                        handed += 1
            elif outstanding:  # no task here: take one if any is queued
                try:
                    task = tasks.get(timeout=WAIT)
                except queue.Empty:
                    pass
                else:
                    with idle.get_lock():
                        idle.value -= 1
                    with queued.get_lock():
                        queued.value -= 1
                    search.start(task)
                    search.pruned[0] = 0
                    searching = True
            while True:  # the workers' messages
                try:
                    kind, worker, payload, worker_nodes = results.get_nowait()
                except queue.Empty:
                    break
                per_worker[worker] += worker_nodes
                if kind == "split":
                    _put(tasks, queued, payload)
                    outstanding += 1
                    handed += 1
                elif kind == "board":
                    first = first or Solution(tuple(map(tuple, payload)))
                    if not counting:
                        return finish(Status.SOLVED)
                elif kind == "done":  # the boards and refusals of a finished task
                    outstanding -= 1
                    found += payload[0]
                    pruned += payload[1]
            left = limits.remaining(compile_start)
            if left is not None and left <= 0:
                return finish(Status.UNKNOWN, "time limit")
            if not all(p.is_alive() for p in procs):
                return finish(Status.ERROR, "a worker ended with its task unfinished")
        return finish(Status.INFEASIBLE if first is None else Status.SOLVED)
    finally:
        stop.set()
        processes.stop_trees(procs)
        for q in (tasks, results):
            q.cancel_join_thread()
            q.close()


def _put(tasks: Any, queued: Any, task: Task) -> None:
    with queued.get_lock():
        queued.value += 1
    tasks.put(task)


def _work(
    worker: int,
    instance: Instance,
    lookup: Lookup,
    arrays: tuple[np.ndarray, ...],
    check: bool,
    counting: bool,
    tasks: Any,
    results: Any,
    idle: Any,
    queued: Any,
    stop: Any,
) -> None:
    """A worker: take tasks, search them in slices, give a piece away when another worker is idle.

    Every message is ``(kind, worker, payload, nodes since the last message)``, one a slice at
    least (``nodes``: the slice's nodes alone), so the coordinator's node count stays current.
    """
    if aot.load("eternity") is None:
        from puzzlesat.native import eternity_kernel

        with without_blas_probe():
            eternity_kernel.warm_up(replay_too=True)
    search = Search(instance, lookup, None, check, arrays)
    board_sent = False
    while not stop.is_set():
        task: Task | None = None
        with idle.get_lock():
            idle.value += 1
        while task is None and not stop.is_set():
            try:
                task = tasks.get(timeout=WAIT)
            except queue.Empty:
                pass
        with idle.get_lock():
            idle.value -= 1
        if task is None:
            return
        with queued.get_lock():
            queued.value -= 1
        search.start(task)
        search.pruned[0] = 0
        nodes = 0
        while not stop.is_set():
            status, done = search.run(SLICE_NODES, limit=COUNT_LIMIT if board_sent and counting else 1)
            nodes += done
            if status == FOUND:
                results.put(("board", worker, search.board().placements, nodes))
                nodes, board_sent = 0, True
                if not counting:  # the coordinator stops everyone (a worker that ended early would look lost)
                    stop.wait()
                    return
            elif status == EXHAUSTED:
                results.put(("done", worker, (int(search.found[0]), int(search.pruned[0])), nodes))
                break
            else:  # a piece for an idle searcher, or only the nodes so far
                piece = search.split() if idle.value > queued.value else None
                results.put(("nodes", worker, None, nodes) if piece is None else ("split", worker, piece, nodes))
                nodes = 0
