"""The arguments the verbs share, declared once and checked at the edge.

The command line declares its flags from these options (``--timeout``, ``--seed``,
``--workers``, ``--jobs``, ``--memory-limit``, ``--backend``, ``--format``, ``--results``, ...)
and every function of :mod:`puzzlesat.api` checks its arguments with the same declarations
and the helpers below before any work, so both refuse the same values with one line naming
the argument: a wrong type raises :class:`ArgumentTypeError` (a TypeError), a wrong value
:class:`ArgumentError` or its :class:`OptionError` (ValueErrors).
"""

from __future__ import annotations

import functools
import inspect
import os
import tempfile
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from puzzlesat.core.errors import ArgumentError, ArgumentTypeError
from puzzlesat.core.files import special
from puzzlesat.core.options import Option

CORES = len(os.sched_getaffinity(0))
# below this a child process cannot even load its solver libraries
MIN_MEMORY_MB = 256
# above this the cap in bytes does not fit the kernel's limit (a signed 64-bit number)
MAX_MEMORY_MB = 2**43 - 1
# seconds (about three years): a longer limit is no limit, and the interval timer and the
# waits on threads and pipes overflow near 9.2e9 s
MAX_TIMEOUT = 1e8

TIMEOUT = Option("timeout", float, None, "seconds for the whole command, reading the instance included", low=0.01)
SEED = Option("seed", int, 0, "random seed (search order, generators)", low=0, high=2**31 - 1)
WORKERS = Option(
    "workers",
    int,
    None,
    f"threads or processes of one strategy (default: the {CORES} cores for a strategy whose search "
    "splits, as `list -v` shows, else 1; 1: one process, reproducible node counts)",
    low=1,
)
# a comparison's runs: one worker each unless told (its runs share the machine one at a time or in --jobs)
RUN_WORKERS = WORKERS._replace(default=1, help=f"CP-SAT workers per run (default 1, at most the {CORES} cores)")
JOBS = Option("jobs", int, None, f"cores to share out (default: all {CORES})", low=1)
MEMORY_LIMIT = Option(
    "memory_limit",
    int,
    None,
    "memory cap of each process (the solver's, or each --portfolio run's), in MB",
    low=MIN_MEMORY_MB,
    high=MAX_MEMORY_MB,
)
# where races and comparisons run: local child processes, or Ray tasks
BACKENDS = ("local", "ray")
BACKEND = Option(
    "backend", str, "local", "run strategies as local processes (default) or as Ray tasks", choices=BACKENDS
)
ADDRESS = Option("address", str, None, "the Ray cluster's head (ray start --head); default: start a local Ray instance")
STRATEGIES = Option("strategies", str, None, "comma list of method[:variant] (default: every strategy)")
# the tables of compare and catalog
TABLE_FORMATS = ("markdown", "csv", "json")
TABLE_FORMAT = Option("format", str, "markdown", "the table's format", choices=TABLE_FORMATS)
RESULTS = Option("results", str, None, "append runs to this JSON-lines file; reuse those done", writes=True)
OUTPUT = Option("output", str, None, "write it here instead of stdout", writes=True)


def kind(value: Any) -> str:
    """A value's type as a message names it: ``int``, ``NoneType``, ``eternity Instance``."""
    cls = type(value)
    module = cls.__module__.rpartition(".")[2]
    return cls.__name__ if cls.__module__ == "builtins" else f"{module} {cls.__name__}"


def typed(name: str, value: Any, kinds: type | tuple[type, ...], expected: str) -> None:
    """Refuse a value of another type; a bool is not taken for a number.

    Raises:
        ArgumentTypeError: naming the argument, what it takes and what it got.
    """
    allowed = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise ArgumentTypeError(f"{name}: expected {expected}, got {kind(value)}")


# what a library argument of each declared type may be: text is no number (``timeout="10"``;
# only the command line reads numbers from text), a number no text
_KINDS: dict[type, tuple[tuple[type, ...], str]] = {
    float: ((int, float), "a number"),
    int: ((int,), "an int"),
    bool: ((bool,), "a bool"),
    str: ((str,), "a str"),
}


def declared(opt: Option, value: Any) -> Any:
    """A library argument checked by its declaration, as the command line checks its flag:
    its type, then its bounds or choices.

    Raises:
        ArgumentTypeError: a value of another type, or None where the declaration has a default.
        OptionError: out of the declared bounds or choices, empty, or not finite.
    """
    if value is None and opt.default is None:
        return None
    kinds, expected = _KINDS[opt.type]
    typed(opt.name, value, kinds, expected)
    return opt.convert(value)


def timeout(value: Any, opt: Option = TIMEOUT) -> float | None:
    """A time limit in seconds: positive and finite, or None; beyond :data:`MAX_TIMEOUT` it is that."""
    seconds = declared(opt, value)
    return None if seconds is None else min(float(seconds), MAX_TIMEOUT)


def default_workers(parallel: bool) -> int:
    """The workers of a run that does not say: every core this process may run on (its CPU
    affinity, which a container or ``taskset`` narrows) for a strategy whose search splits
    (:attr:`~puzzlesat.core.types.Strategy.parallel`), else one.  CP-SAT and the seed
    programs did the same; a race or a comparison shares its cores out instead."""
    return len(os.sched_getaffinity(0)) if parallel else 1


def cores(name: str, value: int | None, backend: str = "local") -> None:
    """Refuse more cores than this machine has, for local runs (a Ray cluster may have more).

    Raises:
        ArgumentError: ``value`` is above :data:`CORES`.
    """
    if backend == "local" and value is not None and value > CORES:
        raise ArgumentError(f"{name} {value}: this machine has {CORES} cores")


def text(name: str, value: Any, *, optional: bool = False) -> str | None:
    """A non-empty string argument (or None when ``optional``)."""
    if value is None and optional:
        return None
    typed(name, value, str, "a str" + (" or None" if optional else ""))
    if not value:
        raise ArgumentError(f"{name}: expected a non-empty str")
    return str(value)


def path(name: str, value: Any) -> Path:
    """A file name: a str or an ``os.PathLike``, not empty."""
    typed(name, value, (str, os.PathLike), "a path (str or os.PathLike)")
    if not str(value) or str(value) == "." or "\x00" in str(value):
        raise ArgumentError(f"{name}: expected a file name, got {str(value)!r}")
    return Path(value)


def readable(name: str, value: Any) -> Path:
    """A file to read that a checker or a solver opens itself (a DRAT proof): a path naming
    no device, FIFO, socket or folder, which would block or never end.

    Raises:
        ArgumentTypeError: not a path.
        ArgumentError: naming the argument, the file and what it is.
    """
    target = path(name, value)
    what = special(target)
    if what is not None:
        raise ArgumentError(f"{name} {target}: cannot read: is {what}, not a regular file")
    return target


def stream(name: str, value: Any) -> Any:
    """None, or an open text file to write to (something with ``write``)."""
    if value is not None and not callable(getattr(value, "write", None)):
        raise ArgumentTypeError(f"{name}: expected an open text file or None, got {kind(value)}")
    return value


def source(name: str, value: Any) -> Any:
    """Where text comes from: a path, an open text file (something with ``read``) or the text itself."""
    if isinstance(value, str | os.PathLike) or callable(getattr(value, "read", None)):
        return value
    raise ArgumentTypeError(f"{name}: expected a path, an open text file or the text, got {kind(value)}")


def writable(target: str | os.PathLike[str] | None) -> None:
    """Check, before any work, that an output file can be created or replaced: a regular file
    or a new name in a folder that exists (never a device, FIFO, socket or folder:
    :func:`puzzlesat.core.files.special`).

    Raises:
        ArgumentError: the message names the file and why.
    """
    if target is None or not str(target):
        return
    out = Path(target)
    folder = out.parent if str(out.parent) else Path(".")
    what = special(out)
    if what is not None:
        raise ArgumentError(f"{target}: cannot write: is {what}, not a regular file")
    if not folder.is_dir():
        raise ArgumentError(f"{target}: cannot write: no folder {folder}")
    if not os.access(out if out.exists() else folder, os.W_OK):
        raise ArgumentError(f"{target}: cannot write: permission denied")


def writable_folder(name: str, target: str | os.PathLike[str]) -> Path:
    """Check, before any work, that a folder files go into (``--certify DIR``, a cache) is a
    folder, or can be made, and takes a new file: a trial file is made and removed, since
    ``/proc`` or a read-only mount pass ``os.access`` and still refuse.

    Raises:
        ArgumentError: naming the argument, the folder and why.
    """
    folder = Path(target)
    if folder.exists() and not folder.is_dir():
        raise ArgumentError(f"{name} {target}: cannot write: is {special(folder) or 'a file'}, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ArgumentError(f"{name} {target}: cannot write: {exc.strerror or exc}") from None
    return folder


Named = Iterable[tuple[str, "str | os.PathLike[str] | None"]]


def distinct(outputs: Named, inputs: Named = ()) -> None:
    """Refuse an output file that is one of the inputs or another output, before any work.

    Args:
        outputs: (what names it, path) pairs: ``("--results", "runs.jsonl")``; None: not given.
        inputs: the same for the files read (``-`` for stdin is skipped).

    Raises:
        ArgumentError: naming the file and both uses of it.
    """
    seen: dict[Any, str] = {}
    for label, given in inputs:
        if given is not None and str(given) not in ("", "-"):
            seen.setdefault(_identity(given), label)
    for label, given in outputs:
        if given is None or not str(given):
            continue
        key = _identity(given)
        if key is None:
            continue
        if key in seen:
            raise ArgumentError(f"{given}: both {seen[key]} and {label} name this file")
        seen[key] = label


def _identity(given: str | os.PathLike[str]) -> Any:
    """What makes two names one file: device and inode when it exists (links included), else
    the resolved path; None for a device like /dev/null, which many outputs may share."""
    try:
        status = os.stat(given)
    except (OSError, ValueError):  # no such file yet, or a name no file can have (a NUL)
        return os.path.realpath(given)
    if not os.path.isfile(given):
        return None
    return (status.st_dev, status.st_ino)


def declared_types(verify: Any) -> tuple[type | None, type | None]:
    """The instance and solution classes a puzzle's verifier is annotated with (None: not known).

    The edge of the library checks answers and instances against them, so a wrong object is
    one line naming the argument rather than an AttributeError from inside a puzzle.  Read
    once per verifier: every verb asks (solve, then format and notes of its answer).
    """
    try:
        return _annotated(verify)
    except TypeError:  # a plugin's verifier that cannot be a cache key: read it each time
        return _annotated.__wrapped__(verify)


@functools.cache
def _annotated(verify: Any) -> tuple[type | None, type | None]:
    try:
        hints = typing.get_type_hints(verify)
        names = list(inspect.signature(verify).parameters)
    except Exception:  # a plugin's annotations that do not resolve: nothing to check against
        return None, None
    found = [hints.get(name) for name in names[:2]] + [None, None]
    return tuple(cls if isinstance(cls, type) else None for cls in found[:2])  # type: ignore[return-value]
