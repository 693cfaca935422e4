"""``--checkpoint FILE`` and ``--resume FILE`` of the best-score search: the best board kept on disk.

A long ``--score`` run rewrites FILE each time its best board improves (at most once every
:data:`CHECKPOINT_SECONDS`, the last board always; every :data:`REFRESH_SECONDS` and at the
end again, for the time and nodes so far), atomically: the text goes to a temporary
file in the same folder, is flushed to the disk (``fsync``) and renamed over FILE, so that
after a crash, a ``kill -9`` or a power cut FILE holds the last board written, whole.

The file is an answer in the seed's format (``tile rotations`` per cell), which ``check
--score`` reads as it is, after ``#`` comment lines: one for people, and one
``# record {...}`` line of JSON with what a resumed run needs (:class:`Record`: the seed, the
runs and search time so far, the score, and a fingerprint of the instance and its hints).

``--resume FILE`` starts from FILE's board (its score the bound every new board must beat)
and draws new random orders (its seed and the number of runs before it), so it goes on where
the last run stopped rather than repeating it.

Beside FILE goes its picture (:func:`picture`: ``best.txt``, ``best.svg``), rewritten with
each better board, atomically too: a browser reloading it shows the best board so far with
its mismatched edges in red.  A plain answer file without a record resumes
too.  The board is checked like any answer: a file of another instance, an illegal board or a
record that does not fit is one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from puzzlesat.core import PuzzlesatError
from puzzlesat.core.errors import ParseError
from puzzlesat.core.files import write_atomic
from puzzlesat.core.text import load_json, read_named
from puzzlesat.domains.eternity import (
    Instance,
    Solution,
    draw_svg,
    format_solution,
    max_score,
    mismatches,
    parse_solution,
    verify,
    write_instance,
)

CHECKPOINT_SECONDS = 1.0  # at most one write a second (each is a few milliseconds with its fsync)
REFRESH_SECONDS = 60.0  # the same board written again with the time and nodes so far
RECORD = "# record "
COUNT_RECORD = "# count "  # a count's record line (native/eternity/count_checkpoint.py)


def fingerprint(instance: Instance) -> str:
    """A short hash of the instance text, hints included: a checkpoint resumes only on its own instance."""
    return hashlib.sha256(write_instance(instance).encode()).hexdigest()[:16]


@dataclass
class Record:
    """What a checkpoint says of the runs that wrote it.

    Attributes:
        instance: :func:`fingerprint` of the instance.
        score: the board's matched edges (counted again on reading).
        seed: the first run's ``--seed``.
        runs: the runs that have written the file (a resumed run adds one).
        seconds: search time over those runs.
        nodes: row-scan placements over those runs.
        workers: the last run's ``--workers``.
    """

    instance: str
    score: int
    seed: int
    runs: int
    seconds: float
    nodes: int
    workers: int = 1

    @classmethod
    def from_json(cls, data: Any, source: str) -> Record:
        """A record line's data, every field checked before it is used (an edited file
        cannot make a resumed run count ``runs=-5`` or add ``seconds="long"``).

        Raises:
            ParseError: naming ``source`` and the first field that is missing, unknown, of
                another type or out of its range.
        """
        return cls(**checked(data, RECORD_FIELDS, source, {"workers": 1}))


Fields = dict[str, tuple[type | tuple[type, ...], float, float]]  # a record's fields: types, range

# each field of a record line: its types and, for a number, its range (a run of years, an
# int64 of nodes, the seed's range)
RECORD_FIELDS: Fields = {
    "instance": (str, 0, 0),
    "score": (int, 0, 2**31 - 1),
    "seed": (int, 0, 2**31 - 1),
    "runs": (int, 1, 2**31 - 1),
    "seconds": ((int, float), 0, 1e10),
    "nodes": (int, 0, 2**63 - 1),
    "workers": (int, 1, 2**16),
}
_KIND_NAMES = {str: "text", int: "a whole number", (int, float): "a number", bool: "true or false", list: "a list"}


def checked(data: Any, fields: Fields, source: str, defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """A record line's data (a checkpoint's, or a count's: native/eternity/count_checkpoint.py),
    every field checked against ``fields`` (its types and, for a number, its range) before it is
    used; ``defaults`` for fields older files lack.

    Raises:
        ParseError: naming ``source`` and the first field that is missing, unknown, of
            another type or out of its range.
    """
    if not isinstance(data, dict):
        raise ParseError(f"{source}: the record is not a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ParseError(f"{source}: the record has an unknown field {unknown[0]!r}")
    values = {**(defaults or {}), **data}
    for name, (kinds, low, high) in fields.items():
        value = values.get(name)
        if (kinds is not bool and isinstance(value, bool)) or not isinstance(value, kinds):
            raise ParseError(f"{source}: record field {name!r} is {value!r}, not {_KIND_NAMES[kinds]}")
        if isinstance(value, int | float) and not isinstance(value, bool) and not low <= value <= high:
            raise ParseError(f"{source}: record field {name!r} is {value!r}, not in [{low}, {high:g}]")
    return values


def picture(path: str) -> str:
    """Where the checkpoint's picture goes: FILE with the suffix ``.svg`` (``best.txt``: ``best.svg``)."""
    target = Path(path).with_suffix(".svg")
    return str(target) if target != Path(path) else path + ".svg"


def check_paths(path: str) -> None:
    """Before any work: the checkpoint and its picture are regular files or new names, never a
    device, a FIFO or a folder that an atomic rename would replace.

    Raises:
        PuzzlesatError: one line naming the path.
    """
    for target in (path, picture(path)):
        where = Path(target)
        if where.exists() and not where.is_file():
            raise PuzzlesatError(f"{target}: not a regular file: a checkpoint replaces only a file of its own")


def board_text(instance: Instance, board: np.ndarray, record: Record) -> str:
    """The checkpoint's text: the comment lines, then the board in the seed's format."""
    solution = as_solution(board)
    head = (
        f"# puzzlesat eternity --score checkpoint: {record.score}/{max_score(instance)} after "
        f"{record.seconds:.0f} s in {record.runs} run(s); check it with: puzzlesat check eternity BOARD THIS --score\n"
    )
    return head + RECORD + json.dumps(asdict(record)) + "\n" + format_solution(instance, solution)


def as_solution(board: np.ndarray) -> Solution:
    """A (tile, rotation) array as a Solution."""
    return Solution(tuple((int(t), int(r)) for t, r in board))


@dataclass
class Resumed:
    """A board read back by :func:`read`, with the record of the runs before (None for a plain answer)."""

    board: np.ndarray
    errors: int
    record: Record | None


def read(instance: Instance, path: str) -> Resumed:
    """The board of a checkpoint (or of any answer file) to resume from.

    Raises:
        PuzzlesatError: an unreadable file, a record of another instance, or a board that is
            not a legal board of this instance (every tile once, grey on the frame, the hints kept).
    """
    text = read_named(path)
    record = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.startswith(COUNT_RECORD):
            raise PuzzlesatError(f"{path}: a --count checkpoint, not a --score one")
        if line.startswith(RECORD):
            record = Record.from_json(load_json(line[len(RECORD) :], f"{path}:{lineno}"), f"{path}:{lineno}")
    if record is not None and record.instance != fingerprint(instance):
        raise PuzzlesatError(f"{path}: a checkpoint of another instance (or other hints)")
    solution = parse_solution(instance, text, path)
    if solution is None:
        raise PuzzlesatError(f"{path}: holds no board")
    problems = verify(instance, solution, matching=False)
    if problems:
        raise PuzzlesatError(f"{path}: not a legal board to resume from: {problems[0]}")
    return Resumed(np.array(solution.placements, dtype=np.int64), len(mismatches(instance, solution)), record)


class Checkpoint:
    """Writes the best board to ``path`` (and its picture to ``svg``) as it improves.

    :meth:`save` writes at once unless the last write is under :data:`CHECKPOINT_SECONDS` old;
    then the board waits for :meth:`tick` (called between slices of the search) or
    :meth:`flush` (at the end).  Every :data:`REFRESH_SECONDS` a tick writes the same board
    again with the search time and nodes so far.  A write that fails (a full disk) is retried
    at the next tick; :attr:`failed` holds its error.
    """

    def __init__(
        self,
        instance: Instance,
        path: str | None,
        svg: str | None,
        record: Record,
        nodes: Callable[[], int] = lambda: 0,
        interval: float = CHECKPOINT_SECONDS,
    ) -> None:
        self.instance = instance
        self.path = path
        self.svg = svg
        self.record = record
        self.nodes = nodes
        self.interval = interval
        self.base_seconds = record.seconds
        self.base_nodes = record.nodes
        self.started = time.perf_counter()
        self.last = -float("inf")
        self.latest: tuple[np.ndarray, int] | None = None
        self.dirty = False
        self.failed = ""

    def save(self, board: np.ndarray, errors: int) -> None:
        """A better board: written now, or at a tick a moment later."""
        self.latest = (board.copy(), errors)
        self.dirty = True
        self.tick()

    def tick(self) -> None:
        """Write the waiting board if the last write is old enough (or refresh the record)."""
        since = time.perf_counter() - self.last
        if (self.dirty and since >= self.interval) or since >= REFRESH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the latest board now, with the record as it stands."""
        if self.latest is None:
            return
        board, errors = self.latest
        self.last = time.perf_counter()
        record = self.record
        record.score = max_score(self.instance) - errors
        record.seconds = round(self.base_seconds + self.last - self.started, 1)
        record.nodes = self.base_nodes + self.nodes()
        try:
            if self.path:
                write_atomic(self.path, board_text(self.instance, board, record))
            if self.svg and self.dirty:
                write_atomic(self.svg, draw_svg(self.instance, as_solution(board)))
        except OSError as exc:
            self.failed = f"cannot write the checkpoint: {exc.strerror or exc}"
            return
        self.dirty = False
        self.failed = ""

    def stats(self) -> dict[str, Any]:
        """The run's share of the statistics: runs and search time over every run of the file."""
        return {
            "runs": self.record.runs,
            "total_time": round(self.base_seconds + time.perf_counter() - self.started, 1),
        }
