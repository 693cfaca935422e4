"""Resumable builds of large tables: arrays in memory-mapped files, a checkpoint note, a lock.

A build that takes minutes keeps its working arrays in ``.npy`` files of a work folder, mapped
into memory, and notes after each step what is done (:meth:`Workspace.checkpoint`).  Stopped at
any moment (Ctrl-C, SIGTERM, SIGKILL, a time limit), its writes are in the system's page cache,
which outlives the process, so the next build opens the same files and continues from the last
checkpoint.  The steps must therefore be safe to run again on arrays that already hold part of
their own output (the breadth-first levels of the cube's tables are: a level only fills empty
entries).  A checkpoint written before the last boot is not trusted, since a crash loses the
pages the system had not yet written; nothing is synced on the way, which would cost the
build a write of every page at each checkpoint.

One process builds a table set at a time: the others wait on its lock and then find the set
built.  :class:`Progress` shows the share done and an estimate of the time left.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from puzzlesat.core import PuzzlesatError

STATE = "state.json"
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class BuildStopped(PuzzlesatError):
    """A build stopped at its deadline; its work folder keeps what was done for the next build."""

    def __init__(self, what: str, done: float) -> None:
        super().__init__(f"time limit while building {what} ({100 * done:.0f}% built; the next build resumes it)")
        self.done = done


def boot_id() -> str:
    """This boot's id (empty where the system does not tell it)."""
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return ""


def read_state(folder: Path) -> dict[str, Any]:
    """The checkpoint note of a work folder; empty if there is none or it is unreadable."""
    try:
        state = json.loads((folder / STATE).read_text())
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


class Workspace:
    """The work folder of one build, locked while open (a context manager).

    Args:
        folder: where the working files and the checkpoint note go.
        key: what is built (name, version, ...): a folder holding another build is cleared.
        on_wait: called once if another process holds the lock, before waiting for it.
    """

    def __init__(self, folder: Path, key: dict[str, Any], on_wait: Callable[[], None] | None = None) -> None:
        self.folder = folder
        self.key = key
        self.on_wait = on_wait
        self.state: dict[str, Any] = {}
        self.resumed = False
        self._lock: int | None = None
        self._opened = 0.0
        self._arrays: dict[str, np.ndarray] = {}

    def __enter__(self) -> Workspace:
        self.lock()
        return self

    def lock(self) -> None:
        """Take the build's lock (a file beside the folder), waiting for another process that
        holds it; raises OSError where the folder cannot be written."""
        if self._lock is not None:
            return
        lock = self.folder.with_name(self.folder.name + ".lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        self._lock = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.on_wait is not None:
                self.on_wait()
            fcntl.flock(self._lock, fcntl.LOCK_EX)
        self._opened = time.monotonic()

    def open(self) -> None:
        """Read the checkpoint note, or start afresh if it belongs to another build or boot."""
        state = read_state(self.folder)
        if state.get("key") == self.key and state.get("boot") == boot_id():
            self.state, self.resumed = state, True
        else:
            self.clear()
            self.folder.mkdir(parents=True)
            self.state = {"key": self.key, "boot": boot_id(), "seconds": 0.0, "arrays": []}
            self._write()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._arrays.clear()
        if self._lock is not None:
            os.close(self._lock)  # releases the lock
            self._lock = None

    @property
    def seconds(self) -> float:
        """Time spent on this build so far, by every run of it."""
        return float(self.state.get("seconds", 0.0)) + time.monotonic() - self._opened

    def path(self, name: str) -> Path:
        """The file of a working array."""
        return self.folder / f"{name}.npy"

    def array(self, name: str, size: int, dtype: Any, fill: int) -> np.ndarray:
        """A working array mapped from its file: the one a stopped run left, or a new one
        holding ``fill`` (noted as made only once filled)."""
        if name in self.state["arrays"]:
            out = np.load(self.path(name), mmap_mode="r+")
        else:
            out = np.lib.format.open_memmap(self.path(name), mode="w+", dtype=dtype, shape=(size,))
            out[:] = fill
            self.checkpoint(arrays=[*self.state["arrays"], name])
        self._arrays[name] = out
        return out

    def save(self, name: str, data: np.ndarray, **state: Any) -> None:
        """Keep a finished array (written whole, then renamed) and note ``state`` with it."""
        tmp = self.folder / f"{name}.tmp.npy"
        np.save(tmp, data)
        os.replace(tmp, self.path(name))
        self.checkpoint(**state)

    def load(self, name: str) -> np.ndarray:
        """An array kept by :meth:`save`."""
        return np.load(self.path(name))

    def checkpoint(self, **state: Any) -> None:
        """Note what is done (written to a new file, then renamed: a note is never half written)."""
        self.state.update(state)
        self._write()

    def _write(self) -> None:
        self.state["seconds"] = self.seconds
        self._opened = time.monotonic()
        tmp = self.folder / (STATE + ".tmp")
        tmp.write_text(json.dumps(self.state))
        os.replace(tmp, self.folder / STATE)

    def clear(self) -> None:
        """Delete the work folder (after the finished files were moved out of it)."""
        self._arrays.clear()
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(self.folder)


class Progress:
    """A progress bar on stderr with the share done and the time left.

    The time left is what this run took per share done so far, times the share left; the
    caller gives the share as a share of the *time* a build takes (from a profile of a
    reference build), so the estimate is right once the first steps are measured.
    """

    def __init__(self, label: str, quiet: bool, start: float = 0.0) -> None:
        self.label = label
        self.quiet = quiet
        self.start = start
        self.share = start
        self.began = time.monotonic()
        self.shown = 0.0

    def left_seconds(self) -> float | None:
        """The estimated seconds left, or None before anything was measured."""
        gained = self.share - self.start
        if gained < 0.02:
            return None
        return (time.monotonic() - self.began) * (1.0 - self.share) / gained

    def update(self, share: float, what: str, force: bool = False) -> None:
        """Show ``share`` (0 to 1) done, now doing ``what``; at most twice a second unless forced."""
        self.share = max(self.share, min(share, 1.0))
        now = time.monotonic()
        if self.quiet or (not force and now - self.shown < 0.5):
            return
        self.shown = now
        left = self.left_seconds()
        eta = "estimating the time left" if left is None else f"about {format_seconds(left)} left"
        width = 30
        fill = int(width * self.share)
        sys.stderr.write(
            f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] {100 * self.share:5.1f}% {what}, {eta}   "
        )
        sys.stderr.flush()

    def close(self) -> None:
        """End the bar's line."""
        if not self.quiet:
            sys.stderr.write("\n")
            sys.stderr.flush()


def format_seconds(seconds: float) -> str:
    """``45 s``, ``2 min 05 s``."""
    seconds = max(0, round(seconds))
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"
