"""What the cube's table cache holds, and building a table set ahead of the solve that needs it.

Every set is built once per metric into the cache folder (:func:`rubik_tables.cache_dir`):
the phase-1 sets by :mod:`.phase1` (a stopped build is resumed), Korf's by
:mod:`.tables`.  ``puzzlesat tables list`` and ``puzzlesat tables build rubik [SET]``
call :func:`statuses` and :func:`build`.  :mod:`.phase1` (and numba with it) and
:mod:`.tables` are imported only when a set is asked about: the solver imports this
module when a position needs the tables, and a short scramble is solved without numba
(:mod:`rubik_plain`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from puzzlesat.core import ArgumentError, OptionError, PuzzlesatError
from puzzlesat.core.arguments import writable_folder
from puzzlesat.core.cache import cache_dir, number, read_note
from puzzlesat.domains.rubik import METRICS

# table set -> MiB of memory a search with it needs (tables, plus Python and numba), largest first
TABLE_MEMORY_MB = {"phase1": 2300, "phase1x12": 950, "phase1x6": 900, "full": 450, "small": 350}
TABLE_SETS = tuple(TABLE_MEMORY_MB)


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


def status(name: str, metric: str) -> TableSet:
    """What the cache holds of one set."""
    from puzzlesat.native.rubik import phase1 as rubik_phase1
    from puzzlesat.native.rubik import tables as rubik_tables
    from puzzlesat.native.table_build import read_state

    check_name(name, metric)
    need = TABLE_MEMORY_MB[name]
    if name in rubik_tables.TABLE_SETS:
        npy, note = rubik_tables.table_paths(name, metric)
        if not is_built(name, metric):
            return TableSet(name, metric, "absent", 0.0, need, 0.0, None, note)
        seconds = _noted_seconds(note)
        return TableSet(name, metric, "built", _megabytes([npy, note]), need, 1.0, seconds, note)
    files, note = rubik_phase1.table_paths(metric, name)
    if is_built(name, metric):
        seconds = _noted_seconds(note)
        return TableSet(name, metric, "built", _megabytes([*files.values(), note]), need, 1.0, seconds, note)
    folder = rubik_phase1.work_folder(metric, name)
    state = read_state(folder)
    if state:
        size = _megabytes(list(folder.iterdir()))
        done, seconds = number(state, "share"), number(state, "seconds")
        return TableSet(name, metric, "partial", size, need, done, round(seconds, 1), folder)
    return TableSet(name, metric, "absent", 0.0, need, 0.0, None, note)


def _noted_seconds(note: Path) -> float | None:
    meta = read_note(note)
    return None if meta is None or "build_seconds" not in meta else number(meta, "build_seconds")


def statuses() -> list[TableSet]:
    """Every set of every metric, largest first."""
    return [status(name, metric) for name in TABLE_SETS for metric in METRICS]


def is_built(name: str, metric: str) -> bool:
    """Whether the cache holds the finished set (its load still checks it)."""
    from puzzlesat.native.rubik import phase1 as rubik_phase1
    from puzzlesat.native.rubik import tables as rubik_tables  # numba and numpy: imported when asked

    if name in rubik_tables.TABLE_SETS:
        return all(p.exists() for p in rubik_tables.table_paths(name, metric))
    return rubik_phase1.is_built(metric, name)


def build(name: str, metric: str, quiet: bool = False) -> TableSet:
    """Build a set now unless it is built (resuming a stopped build), with progress on stderr.

    Raises:
        PuzzlesatError: the cache folder cannot be written (tried before the build, and the
            set found on disk after it): a solve keeps tables it cannot save in memory, a
            build that saves nothing has failed.
    """
    from puzzlesat.native.rubik import phase1 as rubik_phase1
    from puzzlesat.native.rubik import tables as rubik_tables

    check_name(name, metric)
    folder = cache_dir()
    advice = "set PUZZLESAT_CACHE to a writable folder with 2 GB free"
    try:
        writable_folder("PUZZLESAT_CACHE", folder)
    except ArgumentError as exc:
        raise PuzzlesatError(f"{exc}; {advice}") from None
    if name in rubik_tables.TABLE_SETS:
        rubik_tables.load(name, metric, quiet)
    else:
        rubik_phase1.load(metric, quiet, name)
    done = status(name, metric)
    if done.state != "built":
        raise PuzzlesatError(
            f"cannot write rubik tables to {folder} (the {name} set is not there after its build); {advice}"
        )
    return done
