"""Edge matching's ``native-rowscan`` on a Ray cluster: ``solve eternity --backend ray [--address ...]``.

Both searches that ``--workers N`` spreads over local processes run as N Ray tasks instead,
on any node of the cluster; a small actor (a *hub*, no CPU of its own) is where they meet, and
this process (the driver) watches them:

- ``--score``: each worker runs the row scans of :mod:`puzzlesat.native.eternity.score` with
  its own seed and schedule; better boards go to the hub, whose best board's errors every
  worker reads as its bound (every half second); the driver takes each better board from
  the hub (writing ``--checkpoint`` and its picture as it goes), polishes the best at the end
  and answers it.  A worker that dies is replaced by a new one with the next seed.  In a hunt
  (``--target``) the workers keep their bound at its level and send every board of that
  level to the hub, whose queue the driver empties into the hunt at each look.
- the exact search (a first board, or ``--count``): the tree of
  :mod:`puzzlesat.native.eternity.split`, cut into tasks the hub queues (a count on tile
  bitsets when the board fits, as a local count: :mod:`puzzlesat.native.eternity.count_search`); a worker that sees
  idle workers gives away the untried candidates of its shallowest cell.  Each worker
  reports, with the boards it counted, what is left of its share (its search's
  :meth:`~puzzlesat.native.eternity.search.Search.remaining` tasks) once a second and with
  each piece it gives away; when a worker dies, the hub queues its share as last reported
  and drops the boards it found since, so the share is searched again and counted once.

Every answer is verified in the driver, like any strategy's.  The run stops cleanly: at the
time limit, the first board, the end of the tree, Ctrl-C or SIGTERM, every worker is
cancelled (``ray.cancel(force=True)`` kills its process) and the hub is killed; a Ray
instance this run started is shut down.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import replace
from typing import Any

import numpy as np

from puzzlesat.core import Limits, Puzzle, PuzzlesatError, Result, Status, check_result, split_strategy
from puzzlesat.core.kernel_status import EXHAUSTED, FOUND
from puzzlesat.core.ray import connect, import_ray
from puzzlesat.core.run_options import for_run
from puzzlesat.domains.eternity import Instance, Solution
from puzzlesat.native.eternity import count_tree, rowscan
from puzzlesat.native.eternity import score as es
from puzzlesat.native.eternity import score_kernel as eternity_score_kernel
from puzzlesat.native.eternity.arrays import BitTable, Table
from puzzlesat.native.eternity.count_search import CountSearch, bit_table, fits
from puzzlesat.native.eternity.knobs import Knobs
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search, Task, load_kernels
from puzzlesat.native.first_dispatch import without_blas_probe

POLL = 0.2  # seconds between the driver's looks at the hub and the workers
BOUND_EVERY = 0.5  # seconds between a score worker's looks at the shared bound
SHARE_EVERY = 1.0  # seconds between an exact worker's reports of its share
SLICE_NODES = 5_000_000  # an exact worker's nodes between two looks at the hub (a fraction of a second)
REPLACEMENTS = 3  # per worker asked for: more dead workers than that end the run


def solve(puzzle: Puzzle, instance: Instance, name: str, limits: Limits, address: str | None) -> Result:
    """Run ``native-rowscan`` (``name``) on Ray with ``limits.workers`` workers; the verified Result.

    Raises:
        PuzzlesatError: another puzzle or strategy, Ray missing, or no cluster at ``address``.
    """
    if puzzle.name != "eternity" or split_strategy(name)[0] != "native-rowscan":
        raise PuzzlesatError(
            "--backend ray without --portfolio runs eternity's native-rowscan (--score, --workers, --count); "
            "use --portfolio to race any strategy on Ray"
        )
    limits = replace(limits, options=for_run(puzzle, name, limits.options))
    if not limits.options.get("score") and (limits.options.get("checkpoint") or limits.options.get("resume")):
        raise PuzzlesatError("--count --checkpoint runs on this machine (--workers N), not with --backend ray")
    ray = import_ray()
    began = time.perf_counter()
    owned = connect(address)
    try:
        if limits.timeout is not None:  # joining (or starting) Ray counts against the time limit
            limits = replace(limits, timeout=max(0.01, limits.timeout - (time.perf_counter() - began)))
        if limits.options.get("score"):
            pool = ScorePool(ray)
            result = es.solve_score(instance, limits, pool)
            result.stats["connect_time"] = round(time.perf_counter() - began - result.wall_time, 3)
            if pool.ready_at is not None:
                result.stats["ready_at"] = round(pool.ready_at - pool.started, 3)
            if pool.lost:
                result.message = f"{pool.lost}; {result.message}"
        else:
            result = TreeRun(ray, instance, limits).solve()
    finally:
        if owned:
            ray.shutdown()
    result.strategy = "native-rowscan"
    return check_result(puzzle, instance, result, limits.options)


# -- the best-score search --------------------------------------------------------------------


class ScoreHub:
    """The score workers' meeting point (a Ray actor): the best board, each worker's counts."""

    def __init__(self, errors: int) -> None:
        self.errors = errors
        self.board: np.ndarray | None = None
        self.version = 0
        self.counts: dict[int, es.Counts] = {}
        self.proven = False
        self.ready = 0
        self.hits: list[tuple[int, np.ndarray]] = []  # a hunt's boards since the driver's last look

    def hello(self) -> None:
        """A worker has started and compiled its kernels."""
        self.ready += 1

    def bound(self) -> int:
        return self.errors

    def offer(self, errors: int, board: np.ndarray) -> None:
        if errors < self.errors:
            self.errors, self.board = errors, board
            self.version += 1

    def hit(self, errors: int, board: np.ndarray) -> None:
        self.hits.append((errors, board))

    def count(self, index: int, counts: es.Counts) -> None:
        self.counts[index] = counts

    def proof(self) -> None:
        self.proven = True

    def report(
        self, version: int
    ) -> tuple[int, int, np.ndarray | None, dict[int, es.Counts], bool, int, list[tuple[int, np.ndarray]]]:
        """(version, errors, the best board if newer than ``version``, counts, proven, workers
        ready, the hunt's boards since the last report)."""
        board = self.board if self.version > version else None
        hits, self.hits = self.hits, []
        return self.version, self.errors, board, self.counts, self.proven, self.ready, hits


def score_worker(instance: Instance, seed: Any, index: int, hub: Any, knobs: Knobs, level: int | None = None) -> str:
    """A Ray task: row scans with the caller's ``knobs`` until cancelled, boards to the hub, the
    hub's best as bound (a hunt's ``level`` instead, its boards to the hub's queue)."""
    import ray

    with without_blas_probe():
        eternity_score_kernel.warm_up()
    search = es.ScoreSearch(instance, np.random.default_rng(seed), es.worker_schedule(knobs, index), knobs)
    search.level = level
    search.on_hit = lambda board, errors: hub.hit.remote(errors, board)
    ray.get(hub.hello.remote())
    seen = {"bound": search.best.errors, "at": 0.0}

    def shared_bound() -> int:
        if time.monotonic() - seen["at"] >= BOUND_EVERY:
            seen["bound"], seen["at"] = ray.get(hub.bound.remote()), time.monotonic()
        return int(seen["bound"])

    def improve(board: np.ndarray, errors: int) -> None:
        seen["bound"] = min(seen["bound"], errors)
        hub.offer.remote(errors, board)

    search.shared_bound = shared_bound
    search.on_improve = improve
    search.on_restart = lambda: hub.count.remote(index, search.counts())
    search.on_tick = es.every(es.COUNT_SECONDS, search.on_restart)
    search.scan(lambda: None)
    hub.count.remote(index, search.counts())
    if search.proven:
        ray.get(hub.proof.remote())
    return "done"


class ScorePool:
    """:data:`~puzzlesat.native.eternity.score.Pool` on Ray: one task per seed, and a hub."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self.started = time.perf_counter()
        self.ready_at: float | None = None  # when every worker had started (perf_counter)
        self.lost = ""  # why the pool stopped early
        self.hub_class = ray.remote(num_cpus=0)(ScoreHub)
        self.task = ray.remote(num_cpus=1, max_retries=0)(score_worker)

    def __call__(self, search: es.ScoreSearch, seeds: list[Any], until: float | None) -> None:
        ray = self.ray
        self.started = time.perf_counter()
        hub = self.hub_class.options(**here(ray)).remote(search.best.errors)
        running: dict[Any, int] = {}
        next_index = 0

        def start() -> None:
            nonlocal next_index
            seed = seeds[next_index] if next_index < len(seeds) else [*np.atleast_1d(seeds[-1]).tolist(), next_index]
            task = self.task.remote(search.instance, seed, next_index, hub, search.knobs, search.level)
            running[task] = next_index
            next_index += 1

        for _ in seeds:
            start()
        version = 0
        try:
            while until is None or time.perf_counter() < until:
                search.tick()
                try:
                    version, errors, board, search.workers, proven, ready, hits = ray.get(hub.report.remote(version))
                except Exception as exc:  # noqa: BLE001 - the hub's node died: answer the best board so far
                    self.lost = f"the Ray hub died ({type(exc).__name__}); the best board before it"
                    return
                if ready >= len(seeds) and self.ready_at is None:
                    self.ready_at = time.perf_counter()
                if board is not None:
                    search.offer(board, errors)
                hunt = search.hunt
                if hunt is not None:
                    for found, hit in hits:
                        hunt.add(hit, found)
                if proven:
                    search.proven = True
                    return
                if search.done():
                    return
                wait = POLL if until is None else max(0.0, min(POLL, until - time.perf_counter()))
                ended, _ = ray.wait(list(running), num_returns=1, timeout=wait)
                for ref in ended:  # a worker ends only when it proved its bound or died
                    running.pop(ref)
                    try:
                        ray.get(ref)
                    except Exception:  # noqa: BLE001 - its death, whatever Ray calls it
                        if search.replaced >= REPLACEMENTS * len(seeds):
                            raise PuzzlesatError(f"{search.replaced} Ray workers died; see the Ray logs") from None
                        search.replaced += 1
                        start()
        finally:
            if search.hunt is not None:  # the hunt's boards since the last look
                try:
                    for found, hit in ray.get(hub.report.remote(version), timeout=5.0)[-1]:
                        search.hunt.add(hit, found)
                except Exception:  # noqa: BLE001, S110 - the hub is gone: those boards with it
                    pass
            search.settle()
            stop(ray, list(running), hub)


def here(ray: Any) -> dict[str, Any]:
    """Options that put an actor on the driver's node (the hub goes down with the driver only)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = ray.get_runtime_context().get_node_id()
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=True)}


def stop(ray: Any, refs: list[Any], hub: Any, grace: float = 0.0) -> None:
    """Cancel the workers (their processes are killed) that have not ended within ``grace``
    seconds, wait a moment for them, kill the hub.  (A worker that ends by itself is kept by
    Ray for the next task, its modules imported.)"""
    if refs and grace > 0:
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=grace)
    for ref in refs:
        try:
            ray.cancel(ref, force=True)
        except Exception:  # noqa: BLE001, S110 - already ended
            pass
    if refs:
        ray.wait(refs, num_returns=len(refs), timeout=5.0)
    try:
        ray.kill(hub)
    except Exception:  # noqa: BLE001, S110 - already gone
        pass


# -- the exact search -------------------------------------------------------------------------


class TreeHub:
    """The exact workers' meeting point (a Ray actor): the queued tasks, each worker's share.

    A worker's *share* is what is left of its work, as the tasks of its search's
    :meth:`~puzzlesat.native.eternity.search.Search.remaining`, last reported together with
    the boards it counted until then; a worker that dies has its share queued again.
    """

    def __init__(self, root: Task) -> None:
        self.queue: list[Task] = [root]
        self.shares: dict[int, list[Task]] = {}
        self.idle: set[int] = set()
        self.found = 0
        self.first: np.ndarray | None = None
        self.nodes: dict[int, int] = {}
        self.handed = 0
        self.stopped = False
        self.ready = 0
        self.kernel = ""

    def hello(self, kernel: str) -> None:
        """A worker has started and loaded its ``kernel`` (``rowscan`` or ``bitsets``)."""
        self.ready += 1
        self.kernel = kernel

    def take(self, worker: int) -> Task | None:
        """A queued task for ``worker`` (now its share), or None: wait (or stop, see :meth:`tick`)."""
        if self.queue and not self.stopped:
            task = self.queue.pop()
            self.shares[worker] = [task]
            self.idle.discard(worker)
            return task
        self.idle.add(worker)
        return None

    def tick(self, worker: int, nodes: int) -> tuple[bool, bool]:
        """(give a piece away, stop); ``nodes`` since the last call."""
        self.nodes[worker] = self.nodes.get(worker, 0) + nodes
        return len(self.idle) > len(self.queue), self.stopped

    def share(self, worker: int, found: int, left: list[Task], piece: Task | None = None) -> None:
        """The boards counted since the last report, what is left, and maybe a piece given away."""
        self.found += found
        self.shares[worker] = left
        if piece is not None:
            self.queue.append(piece)
            self.handed += 1

    def board(self, board: np.ndarray) -> None:
        if self.first is None:
            self.first = board

    def lost(self, worker: int) -> None:
        """A dead worker: its share goes back to the queue."""
        self.queue.extend(self.shares.pop(worker, []))
        self.idle.discard(worker)

    def stop(self) -> None:
        self.stopped = True

    def status(self) -> tuple[bool, np.ndarray | None, int, dict[int, int], int, int, str]:
        """(the tree is done, the first board, boards counted, nodes per worker, tasks handed out,
        workers ready, the kernel they search with)."""
        done = not self.queue and not any(self.shares.values())
        return done, self.first, self.found, self.nodes, self.handed, self.ready, self.kernel


def tree_worker(
    worker: int,
    instance: Instance,
    lookup: Lookup,
    table: Table | BitTable,
    check: bool,
    counting: bool,
    hub: Any,
) -> str:
    """A Ray task: take tasks from the hub and search them (on tile bitsets when ``table`` is
    a :class:`BitTable`), reporting its share (module docstring)."""
    import ray

    load_kernels(isinstance(table, BitTable), replay_too=True)
    search = (
        CountSearch(instance, lookup, table)
        if isinstance(table, BitTable)
        else Search(instance, lookup, None, check, table)
    )
    ray.get(hub.hello.remote(search.kernel))
    board_sent = False
    while True:
        task = ray.get(hub.take.remote(worker))
        if task is None:
            if ray.get(hub.tick.remote(worker, 0))[1]:
                return "stopped"
            time.sleep(0.05)
            continue
        search.start(task)
        reported = 0  # boards of this task already credited
        shared_at = time.monotonic()
        while True:
            status, nodes = search.run(SLICE_NODES, limit=COUNT_LIMIT if board_sent and counting else 1)
            found = search.found
            # the nodes go to the hub before the board or the share that may end the run: the
            # hub takes one caller's calls in order, so the driver never stops without them
            if status == FOUND:
                hub.tick.remote(worker, nodes)
                ray.get(hub.board.remote(search.board().placements))
                board_sent = True
                if counting:
                    continue
                while not ray.get(hub.tick.remote(worker, 0))[1]:  # the driver stops the run
                    time.sleep(0.05)
                return "stopped"
            if status == EXHAUSTED:
                hub.tick.remote(worker, nodes)
                ray.get(hub.share.remote(worker, found - reported, []))
                break
            split, stopped = ray.get(hub.tick.remote(worker, nodes))
            if stopped:
                return "stopped"
            piece = search.split() if split else None
            if piece is not None or time.monotonic() - shared_at >= SHARE_EVERY:
                ray.get(hub.share.remote(worker, found - reported, search.remaining(), piece))
                reported, shared_at = found, time.monotonic()


class TreeRun:
    """The driver of the exact search on Ray (module docstring)."""

    def __init__(self, ray: Any, instance: Instance, limits: Limits) -> None:
        self.ray = ray
        self.instance = instance
        self.limits = limits

    def solve(self) -> Result:
        ray, instance, limits = self.ray, self.instance, self.limits
        started = time.perf_counter()
        options = {**rowscan.DEFAULTS, **limits.options}
        check = bool(options["colour_check"])
        counting = bool(options.get("count"))
        twins = bool(options["twins"])
        chosen = (  # a count walks the tree a local count picks
            count_tree.choose(instance, limits, twins, check, started, str(options["count_tree"]))
            if counting
            else count_tree.Counted(instance, instance, Lookup(instance, twins), None)
        )
        work, lookup = chosen.puzzle, chosen.lookup
        bits = counting and fits(work, check)  # as a local count does
        table = bit_table(lookup) if bits else lookup.table(Draws(limits.seed))
        hub = ray.remote(num_cpus=0)(TreeHub).options(**here(ray)).remote((array("q"), -1))
        task = ray.remote(num_cpus=1, max_retries=0)(tree_worker)
        running: dict[Any, int] = {}
        replaced = 0

        def start(worker: int) -> None:
            running[task.remote(worker, work, lookup, table, check, counting, hub)] = worker

        for worker in range(limits.workers):
            start(worker)
        next_worker = limits.workers
        stats: dict[str, Any] = {"workers": limits.workers}
        status, first, message = Status.UNKNOWN, None, ""
        try:
            while True:
                try:
                    done, board, found, nodes, handed, ready, kernel = ray.get(hub.status.remote())
                except Exception as exc:  # noqa: BLE001 - the hub's node died: the shares are lost with it
                    raise PuzzlesatError(f"the Ray hub of the search died ({type(exc).__name__})") from None
                if ready >= limits.workers and "ready_at" not in stats:
                    stats["ready_at"] = round(time.perf_counter() - started, 3)
                shares = "/".join(str(n) for _, n in sorted(nodes.items()))
                stats.update(nodes=sum(nodes.values()), tasks=handed, worker_nodes=shares)
                if board is not None and first is None:
                    first = Solution(tuple((int(t), int(r)) for t, r in board))
                if counting:
                    stats["solutions"] = found * lookup.labelings
                    if kernel:  # a worker has loaded it
                        stats["kernel"] = kernel
                if board is not None and not counting:
                    status = Status.SOLVED
                    break
                if done:
                    status = Status.INFEASIBLE if first is None else Status.SOLVED
                    break
                left = limits.remaining(started)
                if left is not None and left <= 0:
                    message = "time limit"
                    break
                ended, _ = ray.wait(list(running), num_returns=1, timeout=POLL if left is None else min(POLL, left))
                for ref in ended:  # a worker ends only when stopped: this one died
                    dead = running.pop(ref)
                    ray.get(hub.lost.remote(dead))
                    if replaced >= REPLACEMENTS * limits.workers:
                        raise PuzzlesatError(f"{replaced} Ray workers died; see the Ray logs")
                    replaced += 1
                    start(next_worker)
                    next_worker += 1
        finally:
            try:
                ray.get(hub.stop.remote())
            except Exception:  # noqa: BLE001, S110 - the hub died: the workers are cancelled anyway
                pass
            stop(ray, list(running), hub, grace=1.0)
        if replaced:
            stats["workers_replaced"] = replaced
        count = stats.get("solutions") if counting and status in (Status.SOLVED, Status.INFEASIBLE) else None
        if counting and status is Status.UNKNOWN:
            message += f"; {stats['solutions']} solutions found before it"
        answer = first if status is Status.SOLVED else None
        wall = time.perf_counter() - started
        result = Result(status, answer, wall_time=wall, stats=stats, count=count, message=message)
        return chosen.answer(result)
