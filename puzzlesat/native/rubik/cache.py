"""The cube's tables: one interface for every set (paths, is_built, load, build, verify).

Every set is built once per metric into the cache folder (:func:`puzzlesat.core.cache.cache_dir`)
the same way (:class:`puzzlesat.native.table_build.Store`): one process builds it at a time
under a lock, a stopped build resumes, each file's digest is checked after the build and a
stamp on every load, and a damaged set is built again.  Two kinds of sets are kept: the
phase-1 sets (:mod:`.phase1`) and Korf's pattern databases (:mod:`.tables`); which module
builds a set is decided here, once (:func:`_kind`).  ``puzzlesat tables list`` and
``puzzlesat tables build rubik [SET]`` call :func:`statuses` and :func:`build`.  :mod:`.phase1`
(and numba with it) and :mod:`.tables` are imported only when a set is asked about: the
solver imports this module when a position needs the tables, and a short scramble is solved
without numba (:mod:`.plain`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from puzzlesat.core import ArgumentError, OptionError, PuzzlesatError, progress
from puzzlesat.core.arguments import writable_folder
from puzzlesat.core.cache import cache_dir, number
from puzzlesat.domains.rubik import METRICS

if TYPE_CHECKING:
    import numpy as np

    from puzzlesat.native.rubik.phase1 import Phase1Tables
    from puzzlesat.native.rubik.tables import Tables
    from puzzlesat.native.table_build import Store, Workspace

# table set -> MiB of memory a search with it needs (tables, plus Python and numba), largest first
TABLE_MEMORY_MB = {"phase1": 2300, "phase1x12": 950, "phase1x6": 900, "full": 450, "small": 350}
TABLE_SETS = tuple(TABLE_MEMORY_MB)
# table set -> MB of its files, and seconds its HTM build takes on the 2-core machine of docs/rubik.md
# (phase1: built on both cores, measured in cold solves on a quiet machine: 30.6-33.8 s, docs/rubik.md)
TABLE_DISK_MB = {"phase1": 1853, "phase1x12": 550, "phase1x6": 530, "full": 87, "small": 0.4}
BUILD_SECONDS = {"phase1": 32, "phase1x6": 51}
KORF_SETS = ("full", "small")  # Korf's pattern databases (:mod:`.tables`); the others are phase-1 sets


@dataclass(frozen=True)
class TableSet:
    """One table set of one metric in the cache.

    Attributes:
        name, metric: the set (``phase1``, ..., :data:`TABLE_SETS`) and ``htm`` or ``qtm``.
        state: ``built``, ``partial`` (a stopped build, which the next build resumes) or ``absent``.
        disk_mb: MB on disk now (for a partial set, its work folder).
        search_mb: memory a search with the set needs (:data:`TABLE_MEMORY_MB`).
        done: the share of the build done: 1 when built, 0 when absent.
        build_seconds: the time the build took (every run of it), as its note says; for a
            partial set the time spent so far; None when absent.
        path: the set's note, or its work folder.
    """

    name: str
    metric: str
    state: str
    disk_mb: float
    search_mb: int
    done: float
    build_seconds: float | None
    path: Path


def _megabytes(paths: list[Path]) -> float:
    return round(sum(p.stat().st_size for p in paths if p.is_file()) / 1e6, 1)


def check_name(name: str, metric: str) -> None:
    """Raise OptionError for an unknown set or metric."""
    if name not in TABLE_SETS:
        raise OptionError(f"unknown rubik table set {name!r}; expected one of: {', '.join(TABLE_SETS)}")
    if metric not in METRICS:
        raise OptionError(f"unknown metric {metric!r}; expected one of: {', '.join(METRICS)}")


def _kind(name: str) -> ModuleType:
    """The module that builds and assembles a set: :mod:`.tables` (Korf's) or :mod:`.phase1`."""
    if name in KORF_SETS:
        from puzzlesat.native.rubik import tables as korf

        return korf
    from puzzlesat.native.rubik import phase1

    return phase1


def _base(name: str, metric: str) -> str:
    """The start of every file name of a set: ``rubik-htm-phase1-v2``."""
    return f"rubik-{metric}-{name}-v{_kind(name).VERSION}"


def paths(name: str, metric: str) -> tuple[dict[str, Path], Path]:
    """The files of a set, by array name, and its note."""
    check_name(name, metric)
    base = cache_dir() / _base(name, metric)
    files = {k: base.with_name(f"{base.name}-{k}.npy") for k in _kind(name).file_keys(name)}
    return files, base.with_suffix(".json")


def _store(name: str, metric: str) -> Store:
    from puzzlesat.native.table_build import Store

    files, note = paths(name, metric)
    return Store(files, note, _kind(name).NOTE_NEEDS)


def work_folder(name: str, metric: str) -> Path:
    """Where a build of a set keeps its work until it is done."""
    return _store(name, metric).folder


def is_built(name: str, metric: str) -> bool:
    """Whether the cache holds the finished set (its files and note; :func:`load` checks them)."""
    return _store(name, metric).is_built()


def verify(name: str, metric: str) -> list[str]:
    """What is wrong with a set in the cache, reading every byte of it (its digests); empty when whole."""
    return _store(name, metric).damage()


def load(name: str, metric: str, quiet: bool = False, stop_at: float | None = None) -> Tables | Phase1Tables:
    """A set's tables, from the cache or built (and kept) now.

    A set built earlier is checked by its files' stamps (milliseconds; the digests when the note
    has no stamps yet) and built again when damaged.  The large arrays of a phase-1 set are
    mapped read-only from the cache files, so processes share their pages.

    Args:
        name, metric: the set (:data:`TABLE_SETS`) and ``htm`` or ``qtm``.
        quiet: no progress reports.
        stop_at: a :func:`time.monotonic` time at which a build stops with
            :class:`~puzzlesat.native.table_build.BuildStopped`, keeping its work for the next.

    Raises:
        OptionError: an unknown set or metric.
        PuzzlesatError: the cache folder cannot be written.
    """
    import numpy as np

    store = _store(name, metric)
    kind = _kind(name)
    status, meta = store.checked()
    made: dict[str, np.ndarray] = {}
    if not status:
        if store.note.exists() and not quiet:
            progress.line(f"c rubik {name} tables in {store.note.parent} are damaged or outdated: rebuilding")
        status, meta = _build(name, metric, store, quiet, stop_at, made)
    arrays = {
        k: _kept(made[k]) if k in made else np.load(p, mmap_mode="r" if k in kind.MAPPED else None)
        for k, p in store.files.items()
    }
    return kind.assemble(name, metric, arrays, meta, status)  # type: ignore[no-any-return]


def _kept(array: np.ndarray) -> np.ndarray:
    """A big array this process just built and saved, used as it is in memory rather than mapped
    again from its file (the same bytes, which the file's digest was taken of), read-only like a
    mapped one so the kernels compiled for those serve it too."""
    array.flags.writeable = False
    return array


def _build(
    name: str, metric: str, store: Store, quiet: bool, stop_at: float | None, made: dict[str, np.ndarray]
) -> tuple[str, dict[str, Any]]:
    """Build a set into the cache; ``made`` gets the big arrays (``MAPPED``) if this process built them."""
    kind = _kind(name)
    began = time.monotonic()
    if not quiet and name in BUILD_SECONDS:
        progress.line(f"c rubik: the {name} tables, {_what(name)}: the bar shows the time left")
    key = {"metric": metric, "set": name, "version": kind.VERSION}
    built: dict[str, np.ndarray] = {}

    def make(ws: Workspace) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays, info = kind.build(name, metric, ws, quiet, stop_at)
        built.update(arrays)
        return arrays, info

    status, meta = store.build(f"the rubik {name} tables", key, make, quiet)
    if status == "built":  # (else another process built it: its files are mapped)
        made.update({k: built[k] for k in kind.MAPPED if k in built})
    if status == "built":
        store.remove_other_versions(_base(name, metric)[: -len(str(kind.VERSION))])
        if not quiet:
            took, now = float(meta["build_seconds"]), time.monotonic() - began
            before = f" ({took:.0f}s with the runs before)" if took > now + 1 else ""
            progress.line(f"c built the rubik {metric} {name} tables in {now:.0f}s{before}")
    return status, meta


def status(name: str, metric: str) -> TableSet:
    """What the cache holds of one set."""
    from puzzlesat.native.table_build import read_state

    store = _store(name, metric)
    need = TABLE_MEMORY_MB[name]
    note = store.note
    if store.is_built():
        seconds = number(store.read_note(), "build_seconds")
        return TableSet(name, metric, "built", _megabytes([*store.files.values(), note]), need, 1.0, seconds, note)
    folder = store.folder
    state = read_state(folder)
    if state:
        size = _megabytes(list(folder.iterdir()))
        done, seconds = number(state, "share"), number(state, "seconds")
        return TableSet(name, metric, "partial", size, need, done, round(seconds, 1), folder)
    return TableSet(name, metric, "absent", 0.0, need, 0.0, None, note)


def statuses() -> list[TableSet]:
    """Every set of every metric, largest first."""
    return [status(name, metric) for name in TABLE_SETS for metric in METRICS]


def _what(name: str) -> str:
    """``1853 MB, about 1 min 25 s to build on 2 cores``: what a build makes and how long it took here."""
    from puzzlesat.native.table_build import format_seconds

    size = f"{TABLE_DISK_MB[name]:g} MB"
    if name not in BUILD_SECONDS:
        return size
    return f"{size}, about {format_seconds(BUILD_SECONDS[name])} to build on 2 cores"


def build(name: str, metric: str, quiet: bool = False, stop_at: float | None = None) -> TableSet:
    """Build a set now unless it is built (resuming a stopped build), with progress on stderr.

    Raises:
        PuzzlesatError: the cache folder cannot be written (tried before the build, and the
            set found on disk after it): a solve keeps tables it cannot save in memory, a
            build that saves nothing has failed.
    """
    folder = cache_dir()
    advice = "set PUZZLESAT_CACHE to a writable folder with 2 GB free"
    try:
        writable_folder("PUZZLESAT_CACHE", folder)
    except ArgumentError as exc:
        raise PuzzlesatError(f"{exc}; {advice}") from None
    load(name, metric, quiet, stop_at)
    done = status(name, metric)
    if done.state != "built":
        raise PuzzlesatError(
            f"cannot write rubik tables to {folder} (the {name} set is not there after its build); {advice}"
        )
    return done
