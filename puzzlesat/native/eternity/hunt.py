"""``--score --target N --boards DIR``: a hunt at a fixed level, every distinct board of score N or more kept.

The score search (:mod:`puzzlesat.native.eternity.score`) hunts when given a target: its bound
stays at the level (boards must have at most ``max_score - N`` unmatched edges), and every board
its scans complete at that level or better comes here (:meth:`Hunt.add`), from whichever
worker found it.  Each placement is kept once: its :func:`key` (a hash of the placement) goes
into its file's name, so a resumed hunt into the same folder reads the names there and never
writes a board twice, and a board kept already is known by its key before anything else.  A
new one is verified as a legal board of the instance and scored again; a board that fails
either is counted as rejected, never kept.  The verifier and the scoring take about half of
what a board costs this process (0.7 ms in all here), the file most of the rest.

A board's file is ``SCORE-TIME-KEY.txt`` (``463-20261128T110536.123456Z-9f2c...txt``, the time
it was found, UTC), in the seed's answer format after one ``#`` line, which ``check --score``
reads as it is; it is written whole under a temporary name and renamed (a kill never leaves
half a board; without an ``fsync`` each, which cost six times the write here, a power cut may
lose the last few).  The ladder (boards per level: all found, and distinct) and the node rate are told to
:mod:`puzzlesat.core.progress`, which the command line shows on a terminal.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from puzzlesat.core import PuzzlesatError, progress
from puzzlesat.core.files import write_atomic
from puzzlesat.domains.eternity import Instance, Solution, format_solution, max_score, mismatches, verify

ALONE = "--boards keeps the boards of a hunt at a fixed level: add --score --target N"
STOPS = {signal.SIGALRM, signal.SIGINT, signal.SIGTERM}  # held back while a board is written
KEPT = 5_000  # distinct boards a Result carries (every one is written to the folder)
REPORT_SECONDS = 0.5  # between two progress updates
NAME = re.compile(r"^(\d+)-\d{8}T\d{6}\.\d{6}Z-([0-9a-f]{16})\.txt$")
# keys of the boards a score search handed on that it remembers (about 100 bytes each: 7 MB);
# the repeats it filters come within seconds (a revisit finds its restart's boards again)
RECENT = 1 << 16


def key(board: np.ndarray) -> str:
    """A board's placement as 16 hex digits: equal placements, equal keys."""
    return hashlib.sha256(np.ascontiguousarray(board, dtype=np.int64).tobytes()).hexdigest()[:16]


class Recent:
    """The last ``size`` keys added (a key added again is the newest again): a filter of
    repeats whose memory stays flat however long the run.

    A key forgotten and found again passes as new: the score search hands its board on a
    second time, and :class:`Hunt` (which knows every board it kept, a resumed folder's too)
    drops it, so a board is still written once.
    """

    def __init__(self, size: int = RECENT) -> None:
        self.size = size
        self._keys: dict[str, None] = {}  # oldest first

    def add(self, name: str) -> bool:
        """Remember ``name`` as the newest; True when it was not among the last ``size``."""
        new = name not in self._keys
        if not new:
            del self._keys[name]  # to the newest place
        self._keys[name] = None
        if len(self._keys) > self.size:
            del self._keys[next(iter(self._keys))]
        return new

    def __len__(self) -> int:
        return len(self._keys)


def folder(path: str) -> Path:
    """The boards' folder, made when new; its keys are read by :class:`Hunt`.

    Raises:
        PuzzlesatError: the path names something other than a folder (a file, a device, a
            FIFO), or the folder cannot be made or written.
    """
    where = Path(path)
    if where.exists() and not where.is_dir():
        raise PuzzlesatError(f"--boards {path}: not a folder (boards go into a folder, one file each)")
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PuzzlesatError(f"--boards {path}: cannot make the folder: {exc.strerror or exc}") from None
    if not os.access(where, os.W_OK | os.X_OK):
        raise PuzzlesatError(f"--boards {path}: cannot write into the folder")
    return where


def level_of(instance: Instance, target: int) -> int:
    """The unmatched edges a board of score ``target`` may have at most.

    Raises:
        PuzzlesatError: a target above the instance's most matched edges.
    """
    total = max_score(instance)
    if target > total:
        raise PuzzlesatError(f"--target {target}: this board has {total} edges to match at most")
    return total - target


class Hunt:
    """Boards at or above the level ``target``: counted, checked, kept once, written to ``where``."""

    def __init__(self, instance: Instance, target: int, where: str | None = None) -> None:
        self.instance = instance
        self.target = target
        self.errors = level_of(instance, target)
        self.total = max_score(instance)
        self.folder = folder(where) if where else None
        self.seen: set[str] = set()
        self.before = 0  # boards in the folder from earlier runs
        if self.folder is not None:
            for entry in os.scandir(self.folder):
                match = NAME.match(entry.name)
                if match:
                    self.seen.add(match.group(2))
        self.before = len(self.seen)
        self.distinct: Counter[int] = Counter()  # score -> boards new to the folder and this run
        self.boards: list[Solution] = []
        self.rejected = 0
        self.failed = ""
        self.started = time.perf_counter()
        self.reported = 0.0

    def add(self, board: np.ndarray, errors: int) -> bool:
        """A board a scan completed with ``errors`` unmatched edges; True when it is new and kept.

        A board kept already is known by its key before anything else (a hash, a hundredth of
        the verifier's time); a new one is verified and scored again before it is kept."""
        name = key(board)
        if name in self.seen:
            return False
        solution = Solution(tuple(map(tuple, np.asarray(board, dtype=np.int64).tolist())))
        score = self.total - len(mismatches(self.instance, solution))
        if verify(self.instance, solution, matching=False) or score < self.target or self.total - score != errors:
            self.rejected += 1
            return False
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # the board written and counted, or neither
        try:
            if self.folder is not None:
                self.write(solution, score, name)
            self.seen.add(name)
            self.distinct[score] += 1
            if len(self.boards) < KEPT:
                self.boards.append(solution)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a stop that came meanwhile is taken now
        return True

    def write(self, solution: Solution, score: int, name: str) -> None:
        """The board's own file in the folder; a failed write is kept in :attr:`failed` (the
        board stays in :attr:`seen`: it is on the Result, and the run's message names the failure)."""
        now = datetime.now(UTC)
        path = self.folder / f"{score}-{now:%Y%m%dT%H%M%S.%f}Z-{name}.txt"  # type: ignore[operator]
        head = (
            f"# puzzlesat eternity --score --target {self.target}: {score}/{self.total}, "
            f"found {now:%Y-%m-%d %H:%M:%S} UTC\n"
        )
        try:
            write_atomic(path, head + format_solution(self.instance, solution), durable=False)
        except OSError as exc:
            self.failed = f"cannot write a board into --boards: {exc.strerror or exc}"
            return
        progress.line(f"c board {score}/{self.total}: {path}")

    def ladder(self, found: dict[int, int]) -> str:
        """Boards per level, best first: ``463:2/2 462:40/31``: found (by errors in ``found``,
        the same board again too), and distinct (new to the folder, verified)."""
        by_score = Counter({self.total - errors: count for errors, count in found.items()})
        levels = sorted(set(by_score) | set(self.distinct), reverse=True)
        return " ".join(f"{s}:{by_score[s]}/{self.distinct[s]}" for s in levels) or "none"

    def report(self, nodes: int, found: dict[int, int], force: bool = False) -> None:
        """The ladder and the node rate, to whoever listens (at most every :data:`REPORT_SECONDS`)."""
        now = time.perf_counter()
        if not force and now - self.reported < REPORT_SECONDS:
            return
        self.reported = now
        rate = nodes / max(now - self.started, 1e-9)
        progress.update(
            f"c hunt {self.target}+", None, f"{self.ladder(found)} (found/distinct) {rate / 1e6:.1f} M nodes/s"
        )

    def stats(self, found: dict[int, int]) -> dict[str, object]:
        """The hunt's share of a Result's statistics (``found``: boards completed by errors)."""
        stats: dict[str, object] = {
            "target": self.target,
            "ladder": self.ladder(found).replace(" ", ","),
            "boards": sum(self.distinct.values()),
        }
        if self.before:
            stats["boards_before"] = self.before
        if self.rejected:
            stats["boards_rejected"] = self.rejected
        return stats
