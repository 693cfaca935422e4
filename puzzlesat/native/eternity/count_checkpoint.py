"""``--count --checkpoint FILE`` and ``--resume FILE``: an exact count's finished work kept on disk.

A count of hours (Brendan Owen's 8x8: some 8,500 CPU seconds) is lost on a kill unless what it
has finished is on disk.  A checkpointed count cuts its tree into tasks that do not depend on
the run (:func:`frontier`: every partial board of the first ``depth`` cells, in the order the
search meets them, at the smallest depth that has :data:`ROOTS` of them or more) and searches
them, here or with ``--workers N`` in the work-stealing split (native/eternity/split.py, whose
pieces of a task count for that task), recording each task's boards and nodes once it and its
pieces are done.  A resumed run searches only the tasks not recorded: its count and nodes are
those of one uninterrupted run, the nodes above the cut once and every task's below it.  What a
killed run loses is the tasks it had under way.

FILE is written by the score checkpoint's scheme (:mod:`~puzzlesat.native.eternity.checkpoint`):
atomically (a temporary file, ``fsync``, rename), at most once every
:data:`~puzzlesat.native.eternity.checkpoint.CHECKPOINT_SECONDS` as tasks finish and at the
end; ``#`` comment lines (one for people, one ``# count {...}`` line of JSON:
:class:`CountRecord`, every field checked on reading), then the first board found, in the
seed's format, on the puzzle the count walks (mirrored when its tree is).  The record names the
instance (its fingerprint), the tree (:mod:`~puzzlesat.native.eternity.count_tree`), the
``twins`` option, the kernel and the candidate order (the row-scan kernel's tasks name
candidates of the order drawn from the seed), and the cut: a file that does not fit the run
is refused in one line naming it, as is a file whose tasks, sums or board do not add up.
"""

from __future__ import annotations

import json
import time
from array import array
from bisect import bisect_right
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from puzzlesat.core import Limits, PuzzlesatError, Result, Status
from puzzlesat.core.errors import ParseError
from puzzlesat.core.files import write_atomic
from puzzlesat.core.interrupts import terminate_as_interrupt
from puzzlesat.core.kernel_status import EXHAUSTED, FOUND
from puzzlesat.core.text import load_json, read_named
from puzzlesat.domains.eternity import Instance, Solution, format_solution, parse_solution, verify
from puzzlesat.native.eternity import checkpoint, count_tree
from puzzlesat.native.eternity.arrays import BitTable, Table
from puzzlesat.native.eternity.count_search import CountSearch, bit_table, fits
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search, Task, load_kernels

# tasks the cut gives at least: Brendan's 8x8 (950 G nodes) then averages under 0.1 G nodes
# (about a second) a task, so a kill loses little more than the tasks under way
ROOTS = 2_000
SLICE_NODES = 5_000_000  # nodes between two looks at the clock in this process (tens of milliseconds)
COUNT = checkpoint.COUNT_RECORD

# each field of the count's record line: its types and, for a number, its range
COUNT_FIELDS: checkpoint.Fields = {
    "instance": (str, 0, 0),
    "tree": (str, 0, 0),
    "twins": (bool, 0, 0),
    "kernel": (str, 0, 0),
    "seed": (int, 0, 2**63 - 1),
    "depth": (int, 0, 2**16),
    "tasks": (int, 0, 2**40),
    "top_nodes": (int, 0, 2**63 - 1),
    "found": (int, 0, 2**63 - 1),
    "nodes": (int, 0, 2**63 - 1),
    "runs": (int, 1, 2**31 - 1),
    "seconds": ((int, float), 0, 1e10),
    "workers": (int, 1, 2**16),
    "done": (list, 0, 0),
}


@dataclass
class CountRecord:
    """What a count's checkpoint says of the count and the runs that wrote it.

    Attributes:
        instance: :func:`~puzzlesat.native.eternity.checkpoint.fingerprint` of the board as given.
        tree: the tree counted (``tile13-mirrored``; empty: the board's own, as with hints).
        twins: the ``twins`` option (identical pieces tried once: another tree).
        kernel: ``bitsets`` (the count kernel) or ``rowscan``.
        seed: the candidate order the row-scan kernel's tasks index (drawn from it).
        depth: the cells above the cut.
        tasks: the partial boards of ``depth`` cells, the tasks.
        top_nodes: the nodes above the cut.
        found: the boards of the tasks done (each standing for the lookup's labelings).
        nodes: ``top_nodes`` and the nodes of the tasks done.
        runs: the runs that have written the file.
        seconds: the time of those runs.
        workers: the last run's ``--workers``.
        done: the tasks done, in runs ``[first, last, boards, nodes]`` (tasks ``first..last``).
    """

    instance: str
    tree: str
    twins: bool
    kernel: str
    seed: int
    depth: int
    tasks: int
    top_nodes: int
    found: int = 0
    nodes: int = 0
    runs: int = 1
    seconds: float = 0.0
    workers: int = 1
    done: list[list[int]] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any, source: str) -> CountRecord:
        """A count record line's data, every field and every run of tasks checked.

        Raises:
            ParseError: naming ``source`` and what does not add up.
        """
        record = cls(**checkpoint.checked(data, COUNT_FIELDS, source))
        last, found, nodes = -1, 0, record.top_nodes
        for run in record.done:
            if not (isinstance(run, list) and len(run) == 4 and all(type(x) is int and x >= 0 for x in run)):
                raise ParseError(f"{source}: a run of tasks done is {run!r}, not [first, last, boards, nodes]")
            if not last < run[0] <= run[1] < record.tasks:
                raise ParseError(f"{source}: the runs of tasks done are out of order or past task {record.tasks - 1}")
            last, found, nodes = run[1], found + run[2], nodes + run[3]
        if (found, nodes) != (record.found, record.nodes):
            raise ParseError(f"{source}: the tasks done add up to {found} boards and {nodes} nodes, not the record's")
        return record


@dataclass
class Frontier:
    """A count's tree cut ``depth`` cells down: its partial boards there (the tasks, in the order
    the search meets them) and the nodes above them."""

    depth: int
    tasks: list[Task]
    top_nodes: int


def _above(puzzle: Instance, lookup: Lookup, table: Table | BitTable, depth: int) -> Search | CountSearch:
    """A search of the tree down to ``depth`` cells only: its boards are the partial boards there."""
    if isinstance(table, BitTable):
        return CountSearch(puzzle, lookup, table._replace(base=array("Q", table.base[:depth])))
    return Search(puzzle, lookup, None, False, table._replace(classes=array("q", table.classes[:depth])))


def frontier(
    puzzle: Instance, lookup: Lookup, table: Table | BitTable, depth: int | None = None, until: float | None = None
) -> Frontier | None:
    """The tasks of a checkpointed count: the tree cut ``depth`` cells down, or (None) at the
    smallest depth with :data:`ROOTS` partial boards or more (or none), at most a row short
    of the whole board; None when ``until`` (a ``perf_counter`` time) passes first."""
    if depth is None:
        depth = 0
        while depth < puzzle.cells - 1:
            depth += 1
            search = _above(puzzle, lookup, table, depth)
            search.run(COUNT_LIMIT, limit=COUNT_LIMIT)
            if search.found >= ROOTS or not search.found:
                break
            if until is not None and time.perf_counter() >= until:
                return None
    if depth == 0:
        return Frontier(0, [(array("q"), -1)], 0)
    search = _above(puzzle, lookup, table, depth)
    tasks: list[Task] = []
    nodes = 0
    while True:
        status, done = search.run(COUNT_LIMIT, limit=len(tasks) + 1)
        nodes += done
        if status != FOUND:
            return Frontier(depth, tasks, nodes)
        placed = search.placed(depth) if isinstance(search, CountSearch) else search.state.placed[:depth]
        tasks.append((placed, -1))
        if until is not None and len(tasks) % 256 == 0 and time.perf_counter() >= until:
            return None


@dataclass
class Resumed:
    """A count checkpoint read back: its record, its tree and its first board (on the tree's puzzle)."""

    record: CountRecord
    tree: count_tree.Tree | None
    board: Solution | None


def read(instance: Instance, path: str) -> Resumed:
    """The count checkpoint ``path`` of ``instance``, checked.

    Raises:
        PuzzlesatError: an unreadable file, a score checkpoint, no count record, another
            instance, a tree ``instance`` has not, a record that does not add up, or a board
            that is not a solution of the tree's puzzle (one line naming the file).
    """
    text = read_named(path)
    record = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.startswith(checkpoint.RECORD):
            raise PuzzlesatError(f"{path}: a --score checkpoint, not a --count one")
        if line.startswith(COUNT):
            where = f"{path}:{lineno}"
            record = CountRecord.from_json(load_json(line[len(COUNT) :], where), where)
    if record is None:
        raise PuzzlesatError(f"{path}: no '{COUNT.strip()}' line: not a --count checkpoint")
    if record.instance != checkpoint.fingerprint(instance):
        raise PuzzlesatError(f"{path}: a count checkpoint of another instance (or other hints)")
    tree = None
    if record.tree:
        tree = next((t for t in count_tree.trees(instance) if t.name == record.tree), None)
        if tree is None:
            raise PuzzlesatError(f"{path}: its tree {record.tree!r} is none of this board's")
    puzzle = instance if tree is None else tree.puzzle(instance)
    written = any(line.strip() and not line.startswith("#") for line in text.splitlines())
    board = parse_solution(puzzle, text, path) if written else None
    if board is not None:
        problems = verify(puzzle, board)
        if problems:
            raise PuzzlesatError(f"{path}: its board is no solution of the puzzle counted: {problems[0]}")
    elif record.found:
        raise PuzzlesatError(f"{path}: {record.found} boards counted and none written")
    return Resumed(record, tree, board)


class Ledger:
    """The tasks done, written to ``path`` (:meth:`tick` as they finish, :meth:`flush` at the end)."""

    def __init__(self, path: str, puzzle: Instance, record: CountRecord, first: Solution | None) -> None:
        self.path = path
        self.puzzle = puzzle
        self.record = record
        self.first = first
        self.base_seconds = record.seconds
        self.started = time.perf_counter()
        self.last = -float("inf")
        self.failed = ""

    def has(self, task: int) -> bool:
        """True when ``task`` is done."""
        done = self.record.done
        at = bisect_right(done, [task, 2**63]) - 1
        return at >= 0 and done[at][0] <= task <= done[at][1]

    @property
    def tasks_done(self) -> int:
        """How many tasks are done."""
        return sum(last - first + 1 for first, last, _, _ in self.record.done)

    def finish(self, task: int, found: int, nodes: int) -> None:
        """Task ``task`` is done with its boards and nodes (joined to the runs beside it)."""
        done, record = self.record.done, self.record
        at = bisect_right(done, [task, 2**63])
        run = [task, task, found, nodes]
        if at > 0 and done[at - 1][1] == task - 1:
            at -= 1
            run = [done[at][0], task, done[at][2] + found, done[at][3] + nodes]
            del done[at]
        if at < len(done) and done[at][0] == task + 1:
            run = [run[0], done[at][1], run[2] + done[at][2], run[3] + done[at][3]]
            del done[at]
        done.insert(at, run)
        record.found += found
        record.nodes += nodes
        self.tick()

    def board(self, board: Solution) -> None:
        """A board found: kept if it is the first."""
        if self.first is None:
            self.first = board

    def tick(self) -> None:
        """Write the file if the last write is old enough."""
        if time.perf_counter() - self.last >= checkpoint.CHECKPOINT_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the file now (a write that fails is retried at the next tick; :attr:`failed` says why)."""
        self.last = time.perf_counter()
        record = self.record
        record.seconds = round(self.base_seconds + self.last - self.started, 1)
        head = (
            f"# puzzlesat eternity --count checkpoint: {self.tasks_done} of {record.tasks} tasks done, "
            f"{record.found} boards, {record.nodes} nodes, {record.seconds:.0f} s in {record.runs} run(s); "
            "go on with: puzzlesat solve eternity BOARD --count --resume THIS\n"
        )
        board = "" if self.first is None else format_solution(self.puzzle, self.first)
        try:
            write_atomic(self.path, head + COUNT + json.dumps(asdict(record)) + "\n" + board)
        except OSError as exc:
            self.failed = f"cannot write the checkpoint: {exc.strerror or exc}"
            return
        self.failed = ""


def check_path(path: str) -> None:
    """Before any work: the checkpoint is a regular file or a new name.

    Raises:
        PuzzlesatError: one line naming the path.
    """
    if Path(path).exists() and not Path(path).is_file():
        raise PuzzlesatError(f"{path}: not a regular file: a checkpoint replaces only a file of its own")


def count(instance: Instance, limits: Limits, options: dict[str, Any], began: float) -> Result:
    """``--count`` with ``checkpoint`` or ``resume``: the count, its finished tasks kept in the
    file (module docstring); ``options`` the run's, defaults filled in; the time limit counts
    from ``began``.

    Raises:
        PuzzlesatError: ``colour_check`` (its tree is not cut), or a file that does not fit.
    """
    path = str(options.get("checkpoint") or options.get("resume"))
    check_path(path)
    if options["colour_check"]:
        raise PuzzlesatError("--count --checkpoint does not take -O colour_check=true (its count is not cut in tasks)")
    twins, choice = bool(options["twins"]), str(options["count_tree"])
    resumed = read(instance, options["resume"]) if options.get("resume") else None
    if resumed is None:
        chosen = count_tree.choose(instance, limits, twins, False, began, choice)
    else:
        before = resumed.record
        if before.twins != twins:
            raise PuzzlesatError(
                f"{path}: a count with twins={str(before.twins).lower()}, another tree than this run's"
            )
        trees = count_tree.trees(instance)
        if choice == "first" and trees and before.tree != trees[0].name:
            raise PuzzlesatError(f"{path}: a count of the tree {before.tree}, not the first corner tile's")
        chosen = count_tree.Counted(instance, *count_tree.counted(instance, resumed.tree, twins), resumed.tree)
    puzzle, lookup = chosen.puzzle, chosen.lookup
    bits = fits(puzzle, False)
    kernel = "bitsets" if bits else "rowscan"
    if resumed is not None and resumed.record.kernel != kernel:
        raise PuzzlesatError(f"{path}: counted by the {resumed.record.kernel} kernel, where this run's is {kernel}")
    seed = limits.seed if resumed is None else resumed.record.seed
    compile_time = load_kernels(bits, replay_too=True)
    table = bit_table(lookup) if bits else lookup.table(Draws(seed))
    left = limits.remaining(began)
    until = None if left is None else time.perf_counter() + left
    cut = frontier(puzzle, lookup, table, None if resumed is None else resumed.record.depth, until)
    if cut is None:  # nothing done, nothing written
        wall = time.perf_counter() - began - compile_time
        return Result(Status.UNKNOWN, wall_time=wall, message="time limit before the count was cut in tasks")
    record = CountRecord(
        checkpoint.fingerprint(instance), "" if chosen.tree is None else chosen.tree.name, twins, kernel, seed,
        cut.depth, len(cut.tasks), cut.top_nodes, nodes=cut.top_nodes, workers=limits.workers,
    )  # fmt: skip
    if resumed is not None:
        before = resumed.record
        if (before.tasks, before.top_nodes) != (record.tasks, record.top_nodes):
            raise PuzzlesatError(f"{path}: its tree cut {before.depth} cells down differs from this run's")
        record.found, record.nodes, record.done = before.found, before.nodes, before.done
        record.runs, record.seconds = before.runs + 1, before.seconds
    ledger = Ledger(path, puzzle, record, None if resumed is None else resumed.board)
    ledger.flush()
    if ledger.failed:
        raise PuzzlesatError(f"{path}: {ledger.failed}")
    done_before = ledger.tasks_done
    todo = [(i, task) for i, task in enumerate(cut.tasks) if not ledger.has(i)]
    message = ""
    try:
        with terminate_as_interrupt():
            if limits.workers > 1 and len(todo) > 1:
                from puzzlesat.native.eternity import split

                roots = split.Roots(table, todo, ledger.finish, ledger.board)
                ran = split.solve(puzzle, lookup, limits, False, began, compile_time, roots=roots)
                if ran.status in (Status.UNKNOWN, Status.ERROR):
                    message = ran.message.split(";")[0]
            else:
                message = _here(puzzle, lookup, table, todo, ledger, limits, began)
    except KeyboardInterrupt:
        message = "interrupted"
    finally:
        ledger.flush()
    found = record.found * lookup.labelings
    stats: dict[str, Any] = {
        "nodes": record.nodes, "solutions": found, "kernel": kernel, "compile_time": round(compile_time, 3),
        "tasks": record.tasks, "tasks_done": ledger.tasks_done, "tasks_before": done_before, "depth": record.depth,
        "runs": record.runs, "total_time": record.seconds, "workers": limits.workers,
    }  # fmt: skip
    wall = time.perf_counter() - began - compile_time
    if ledger.tasks_done < record.tasks or message:
        if ledger.failed:
            message += f"; {ledger.failed}"
        message = f"{message or 'stopped'}; {found} solutions in the {ledger.tasks_done} tasks done ({path})"
        return chosen.answer(Result(Status.UNKNOWN, wall_time=wall, stats=stats, message=message))
    if ledger.first is None:
        return chosen.answer(Result(Status.INFEASIBLE, wall_time=wall, stats=stats, count=0))
    return chosen.answer(Result(Status.SOLVED, ledger.first, wall_time=wall, stats=stats, count=found))


def _here(
    puzzle: Instance,
    lookup: Lookup,
    table: Table | BitTable,
    todo: list[tuple[int, Task]],
    ledger: Ledger,
    limits: Limits,
    began: float,
) -> str:
    """The tasks ``todo`` searched one after another in this process; "" when all are done, else why not."""
    search = (
        CountSearch(puzzle, lookup, table)
        if isinstance(table, BitTable)
        else Search(puzzle, lookup, None, False, table)
    )
    for index, task in todo:
        search.start(task)
        nodes = 0
        while True:
            status, done = search.run(SLICE_NODES, limit=1 if ledger.first is None else COUNT_LIMIT)
            nodes += done
            if status == FOUND:
                ledger.board(search.board())
                continue
            if status == EXHAUSTED:
                ledger.finish(index, search.found, nodes)
            left = limits.remaining(began)  # between tasks too: most take a fraction of a slice
            if left is not None and left <= 0:
                return "time limit"
            if status == EXHAUSTED:
                break
    return ""
