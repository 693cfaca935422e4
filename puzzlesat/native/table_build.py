"""Resumable builds of large tables: working arrays kept now and then, a checkpoint note, a lock.

A build that takes minutes works on arrays in memory (where numpy backs large arrays with
huge pages: a table in a mapped file took 11 % more CPU time to build) and, every
``KEEP_SECONDS`` of work, keeps them: each is written over its copy in a work folder, then a
note says what was done up to that point (:meth:`Workspace.keep`).  Stopped at any moment
(Ctrl-C, SIGTERM, SIGKILL, a time limit), the build loses at most the work since the last
keep (none for Ctrl-C and time limits, which keep first); the next build reads the kept
arrays and goes on from there.  A kept array may hold more than its note says (the note is
written after it; a write cut short leaves some bytes as at the keep before), so the steps
must be safe to run again on arrays that hold any mix of their state at the note and later
(the breadth-first levels of the cube's tables are: an entry is only ever filled, once,
with its distance).  A note written before the last boot is not trusted, since a crash
loses the pages the system had not yet written.

One process builds a table set at a time: the others wait on its lock and then find the set
built.  :class:`Progress` shows the share done and an estimate of the time left.

A finished set is kept as ``.npy`` files beside a JSON note (:class:`Store`): the note holds
each file's digest (:func:`file_digest`, checked once, after the build) and its stamp
(:func:`file_stamp`, compared on every load), so damage is detected and the set rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from puzzlesat.core import PuzzlesatError, progress
from puzzlesat.core.cache import number, read_note

STATE = "state.json"
DIGEST_BLOCK = 1 << 20  # bytes per summed block in file_digest
STAMP_SAMPLES = 64  # blocks of 4 KB read by file_stamp
KEEP_SECONDS = 30.0  # work between two keeps of the working arrays: at most this much is lost to a kill
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
    return read_note(folder / STATE) or {}


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
        self._kept = 0.0
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
        self._opened = self._kept = time.monotonic()

    def open(self) -> None:
        """Read the checkpoint note, or start afresh if it belongs to another build or boot."""
        state = read_state(self.folder)
        arrays = state.get("arrays")
        sound = isinstance(arrays, list) and all(isinstance(a, str) for a in arrays) and "seconds" in state
        if sound and state.get("key") == self.key and state.get("boot") == boot_id():
            self.state, self.resumed = state | {"seconds": number(state, "seconds")}, True
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
        return number(self.state, "seconds") + time.monotonic() - self._opened

    def path(self, name: str) -> Path:
        """The file of a finished array (:meth:`save`)."""
        return self.folder / f"{name}.npy"

    def array(self, name: str, size: int, dtype: Any, fill: int) -> np.ndarray:
        """A working array in memory: the one a stopped run kept, or a new one holding
        ``fill``.  :meth:`keep` writes it out."""
        kept = self.folder / f"{name}.bin"
        out = None
        if name in self.state["arrays"] and kept.stat().st_size == size * np.dtype(dtype).itemsize:
            out = np.fromfile(kept, dtype)
        self._arrays[name] = np.full(size, fill, dtype) if out is None else out
        return self._arrays[name]

    def array_ahead(self, name: str, size: int, dtype: Any, fill: int) -> Callable[[], np.ndarray]:
        """:meth:`array`, with its new array (if none was kept) allocated and filled by a thread
        started now, while the caller does other work; call the result for the array.

        On a virtual machine the first write of fresh memory costs seconds of system time (3.7 s
        for the 1.67 GB of the cube's phase-1 table), which this moves onto another core."""
        if name in self.state["arrays"]:
            return lambda: self.array(name, size, dtype, fill)
        made: list[np.ndarray] = []
        failed: list[BaseException] = []

        def allocate() -> None:
            try:
                made.append(np.full(size, fill, dtype))
            except BaseException as exc:  # noqa: BLE001 (raised again by the caller's thread)
                failed.append(exc)

        thread = threading.Thread(target=allocate, name=f"allocate-{name}", daemon=True)
        thread.start()

        def result() -> np.ndarray:
            thread.join()
            if failed:
                raise failed[0]
            self._arrays[name] = made[0]
            return made[0]

        return result

    def due(self) -> bool:
        """Whether ``KEEP_SECONDS`` of work went by since the working arrays were last kept."""
        return time.monotonic() - self._kept >= KEEP_SECONDS

    def keep(self, **state: Any) -> None:
        """Write out every working array, then note ``state``: the next build goes on from here.

        An array is written over its last copy in place (0.2 s for 1.67 GB whose pages the
        system holds, where a new file took 1 to 8 s): a write cut short leaves each byte as
        it was at this keep or at the last, which the build's steps accept (see above)."""
        for name, data in self._arrays.items():
            kept = self.folder / f"{name}.bin"
            same = kept.exists() and kept.stat().st_size == data.nbytes
            with kept.open("r+b" if same else "wb") as out:
                data.tofile(out)
        self.state.update(arrays=sorted(set(self.state["arrays"]) | set(self._arrays)), **state)
        self._write()
        self._kept = time.monotonic()

    def save(self, name: str, data: np.ndarray) -> None:
        """Write a finished array that is not a working one (the next :meth:`keep` notes it)."""
        tmp = self.folder / f"{name}.tmp.npy"
        np.save(tmp, data)
        os.replace(tmp, self.path(name))

    def load(self, name: str) -> np.ndarray:
        """An array kept by :meth:`save`."""
        return np.load(self.path(name))

    def _write(self) -> None:
        """Write the note to a new file, then rename it: a note is never half written."""
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
    """A build's progress, reported (:mod:`puzzlesat.core.progress`) with the share done and the
    time left.

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
        """Report ``share`` (0 to 1) done, now doing ``what``; at most twice a second unless forced."""
        self.share = max(self.share, min(share, 1.0))
        now = time.monotonic()
        if self.quiet or (not force and now - self.shown < 0.5):
            return
        self.shown = now
        left = self.left_seconds()
        eta = "estimating the time left" if left is None else f"about {format_seconds(left)} left"
        progress.update(self.label, self.share, f"{what}, {eta}")

    def close(self) -> None:
        """The bar is done."""
        if not self.quiet:
            progress.end()


def format_seconds(seconds: float) -> str:
    """``45 s``, ``2 min 05 s``."""
    seconds = max(0, round(seconds))
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


def file_digest(path: Path) -> str:
    """A digest of a table file at memory speed (0.15 s for 1 GB, against 2.3 s for BLAKE2
    of the bytes): BLAKE2 of the 64-bit sums of its 1 MB blocks and of the bytes after the
    last whole block.  Truncation, a flipped bit, a zeroed page or two blocks swapped all
    change it; it guards against damage, not against deliberate edits."""
    data = np.memmap(path, np.uint8, mode="r")
    whole = data.size // DIGEST_BLOCK * DIGEST_BLOCK
    sums = data[:whole].view(np.uint64).reshape(-1, DIGEST_BLOCK // 8).sum(axis=1, dtype=np.uint64)
    digest = hashlib.blake2b(sums.tobytes(), digest_size=32)
    digest.update(data[whole:].tobytes())
    return digest.hexdigest()


def file_stamp(path: Path) -> str:
    """A cheap check of a file already verified with :func:`file_digest`: its size, its
    modification time and BLAKE2 of ``STAMP_SAMPLES`` blocks of 4 KB spread evenly over it
    (about 0.1 ms, where the digest of 1.85 GB reads all of it).  A file rewritten or
    truncated since changes it; damage that touches no sampled block and keeps the time
    does not (see docs/rubik.md)."""
    info = path.stat()
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as fh:
        last = max(0, info.st_size - 4096)
        for i in range(STAMP_SAMPLES):
            digest.update(os.pread(fh.fileno(), 4096, last * i // (STAMP_SAMPLES - 1)))
    return f"{info.st_size}:{info.st_mtime_ns}:{digest.hexdigest()}"


class Store:
    """Where a finished table set is kept: its files, its note and its work folder.

    Args:
        files: each array's ``.npy`` file, by name.
        note: the JSON note (digests, stamps, what the build noted).
        needs: keys the note must hold besides the digests (a note without them is outdated).
    """

    def __init__(self, files: dict[str, Path], note: Path, needs: tuple[str, ...] = ()) -> None:
        self.files = files
        self.note = note
        self.needs = ("build_seconds", *needs)
        self.folder = note.with_suffix(".partial")

    def read_note(self) -> dict[str, Any]:
        """The note of a finished set, read bounded (:func:`~puzzlesat.core.cache.read_note`);
        empty if there is none, it is damaged, or a number it needs (build time, depths) is
        missing or no number."""
        meta = read_note(self.note)
        if meta is None or any(number(meta, k, -1.0) < 0 for k in self.needs):
            return {}
        return meta

    def is_built(self) -> bool:
        """Whether every file and the note are there (:meth:`checked` says whether they are whole)."""
        return bool(self.read_note()) and all(p.exists() for p in self.files.values())

    def damage(self) -> list[str]:
        """Each file whose digest differs from its note's, or that is missing (reads every byte)."""
        meta = self.read_note()
        if not meta:
            return [f"{self.note}: missing, unreadable or outdated"]
        problems = []
        for key, path in self.files.items():
            try:
                same = meta.get(key) == file_digest(path)
            except (OSError, ValueError) as exc:
                problems.append(f"{path}: {exc}")
                continue
            if not same:
                problems.append(f"{path}: its digest differs from the note's")
        return problems

    def checked(self) -> tuple[str, dict[str, Any]]:
        """How the finished set was checked (``""``: it must be built), and its note.

        The stamps when the note has them (milliseconds), else the digests, whose stamps are
        then noted for the next load."""
        start = time.perf_counter()
        if not self.is_built():
            return "", {}
        meta = self.read_note()
        try:
            stamps = meta.get("stamps")
            if isinstance(stamps, dict) and all(stamps.get(k) == file_stamp(p) for k, p in self.files.items()):
                return f"cache (stamps checked in {time.perf_counter() - start:.3f}s)", meta
            if all(meta.get(k) == file_digest(p) for k, p in self.files.items()):
                with contextlib.suppress(OSError):  # a read-only cache: the digests next time too
                    self.write_note(meta)
                return f"cache ({time.perf_counter() - start:.2f}s to check the digests)", meta
        except (OSError, ValueError):
            pass
        return "", {}

    def write_note(self, meta: dict[str, Any]) -> None:
        """Note each file's stamp beside its digest (raises OSError when the note cannot be written)."""
        meta["stamps"] = {k: file_stamp(p) for k, p in self.files.items()}
        tmp = self.note.with_suffix(".tmp")
        tmp.write_text(json.dumps(meta))
        os.replace(tmp, self.note)

    def save(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Write every file, then the note with their digests and stamps (raises OSError)."""
        for key, path in self.files.items():
            tmp = path.with_suffix(".tmp.npy")
            np.save(tmp, arrays[key])
            os.replace(tmp, path)
            meta[key] = file_digest(path)
        self.write_note(meta)

    def build(
        self,
        what: str,
        key: dict[str, Any],
        make: Callable[[Workspace], tuple[dict[str, np.ndarray], dict[str, Any]]],
        quiet: bool = False,
    ) -> tuple[str, dict[str, Any]]:
        """Build the set with ``make`` in its work folder (one process at a time: another waits on
        the lock, then finds it built), save its files and note; ``("built", note)``, or how
        the set another process built was checked.

        ``make(workspace)`` returns the arrays and what to note beside ``build_seconds``;
        ``key`` says what is built (a work folder holding another build is cleared).

        Raises:
            PuzzlesatError: the cache folder cannot be written.
            BuildStopped: ``make`` stopped at its deadline (its work is kept).
        """

        def waiting() -> None:
            if not quiet:
                progress.line(f"c waiting for another process that builds {what} in {self.note.parent}")

        try:
            ws = Workspace(self.folder, key, waiting)
            ws.lock()  # fails before the build, not after it
        except OSError as exc:
            raise PuzzlesatError(
                f"cannot write {what} to {self.note.parent} ({exc.strerror}); "
                "set PUZZLESAT_CACHE to a writable folder with 2 GB free"
            ) from None
        with ws:
            status, meta = self.checked()  # the process waited for may have built it
            if status:
                return status, meta
            try:
                ws.open()
                arrays, info = make(ws)
                meta = {"build_seconds": round(ws.seconds, 1), **key, **info}
                self.save(arrays, meta)
            except OSError as exc:
                raise PuzzlesatError(
                    f"could not save {what} to {self.note.parent} ({exc.strerror}); "
                    "set PUZZLESAT_CACHE to a folder with 2 GB free"
                ) from None
            ws.clear()
        return "built", meta

    def remove_other_versions(self, family: str) -> None:
        """Delete the files whose names start with ``family`` but are not this set's (older
        versions, which a new build replaces); one that cannot be deleted only costs disk space."""
        own = self.note.stem
        for old in self.note.parent.glob(family + "*"):
            if not old.name.startswith((own + "-", own + ".")):
                with contextlib.suppress(OSError):
                    if old.is_dir():
                        shutil.rmtree(old)
                    else:
                        old.unlink()
