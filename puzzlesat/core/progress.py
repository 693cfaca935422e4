"""Progress of long work, told to whoever listens: one callback, no printing.

The library reports; it never draws.  A long task (a table build, a deep search, a race, a
comparison) calls :func:`update` as it goes, :func:`line` for what should stay on record, and
:func:`end` when it is over.  These go to the callback installed by :func:`reporting` (the
API's ``on_progress=``); with none installed they cost a lookup and do nothing.  The command
line's callback draws a bar on a terminal and writes only the lines into files and pipes.

>>> seen = []
>>> with reporting(seen.append):
...     update("building tables", 0.5, "depth 7")
...     line("c tables built in 2s")
...     end()
>>> [(e.kind, e.text, e.fraction) for e in seen]
[('update', 'building tables', 0.5), ('line', 'c tables built in 2s', None), ('end', '', None)]
>>> update("nobody listens", 0.1)  # no callback: nothing happens
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TextIO

from puzzlesat.core.errors import ArgumentTypeError

UPDATE, LINE, END = "update", "line", "end"


@dataclass(frozen=True)
class Progress:
    """One report.

    Attributes:
        kind: ``update`` (the state of a task, shown in place of the last one), ``line`` (a
            line that stays, e.g. ``c compare 3/8: ...``) or ``end`` (the task is over: take
            its bar away).
        text: the task (``update``) or the whole line (``line``).
        fraction: how much of the task is done, 0 to 1, None when unknown.
        detail: figures behind an update, e.g. ``depth 7 (12s)``.
    """

    kind: str
    text: str = ""
    fraction: float | None = None
    detail: str = ""


Callback = Callable[[Progress], None]

_listener: ContextVar[Callback | None] = ContextVar("puzzlesat_progress", default=None)


@contextlib.contextmanager
def reporting(callback: Callback | None) -> Iterator[None]:
    """Send the progress of the work done inside to ``callback``; None keeps the current one.

    Raises:
        ArgumentTypeError: ``callback`` (the API's ``on_progress``) is not callable.
    """
    if callback is None:
        yield
        return
    if not callable(callback):
        raise ArgumentTypeError(f"on_progress should be a function taking a Progress, got {callback!r}")
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def listening() -> bool:
    """True when a callback is installed (so a task may skip preparing its figures)."""
    return _listener.get() is not None


def update(task: str, fraction: float | None = None, detail: str = "") -> None:
    """Report the state of a task."""
    callback = _listener.get()
    if callback is not None:
        callback(Progress(UPDATE, task, None if fraction is None else min(1.0, max(0.0, fraction)), detail))


def line(text: str) -> None:
    """Report a line that stays on record."""
    callback = _listener.get()
    if callback is not None:
        callback(Progress(LINE, text))


def end() -> None:
    """Report that the current task is over."""
    callback = _listener.get()
    if callback is not None:
        callback(Progress(END))


def lines_to(stream: TextIO) -> Callback:
    """A callback that writes the lines (not the updates) to a stream: a log's view of progress.

    >>> import io
    >>> out = io.StringIO()
    >>> with reporting(lines_to(out)):
    ...     update("a bar nobody sees", 0.3)
    ...     line("c done")
    >>> out.getvalue()
    'c done\\n'
    """

    def write(event: Progress) -> None:
        if event.kind == LINE:
            stream.write(event.text + "\n")
            stream.flush()

    return write


def fallback(stream: TextIO | None) -> Callback | None:
    """:func:`lines_to` the stream, unless a callback is installed already (it has the say) or
    there is no stream: for the functions that take a ``stream`` for their progress lines."""
    if stream is None or listening():
        return None
    return lines_to(stream)
