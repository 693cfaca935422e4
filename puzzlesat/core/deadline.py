"""A hard deadline for the Python code that does not watch the clock itself.

Searches and solvers stop at their time limit on their own; parsing, encoding and model
building do not, and a large instance can keep them busy for minutes.  Rather than a clock
check in every encoder's loop, the deadline is an interval timer: when it fires, the Python
code running at that moment raises :class:`DeadlineExceeded`.  Code inside a solver's C call
is not interrupted: the exception comes when the call returns, which the solver's own time
limit makes soon.  An exception raised inside a callback from C (llvmlite's object-cache hook
while numba compiles) is printed and dropped by ctypes, so the timer fires again every
:data:`REPEAT` seconds until the block is left.  Only the main thread can take signals;
elsewhere the deadline is not armed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from puzzlesat.core.arguments import MAX_TIMEOUT
from puzzlesat.core.errors import PuzzlesatError

REPEAT = 0.1  # seconds between the timer's firings once the deadline has passed
# seconds of the allowed overrun kept for a deadline to land (a short C call finishing, the
# exception unwinding) and for the engine to check and return its answer (issue 51: 1 s + 5 %)
LANDING = 0.5


def backstop(timeout: float) -> float:
    """Seconds after its start at which a run still busy is stopped by its hard deadline: the
    allowed overrun, ``timeout * 1.05 + 1``, less :data:`LANDING`, so that the answer is out
    within the overrun however late the deadline lands.

    >>> backstop(10.0)
    11.0
    """
    return timeout * 1.05 + 1.0 - LANDING


class DeadlineExceeded(PuzzlesatError):
    """The time limit passed while Python code was still working (encoding, building, parsing)."""


def expired(exc: BaseException) -> DeadlineExceeded | None:
    """The deadline an exception comes from, if any: the timer may fire inside a C call
    (numba's dispatcher, a compile), which then raises its own error (``SystemError: ...
    returned a result with an exception set``) with the DeadlineExceeded as its cause."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DeadlineExceeded):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


@contextmanager
def hard_deadline(seconds: float | None, what: str, limit: float | None = None) -> Iterator[None]:
    """Raise :class:`DeadlineExceeded` in the block once ``seconds`` have passed.

    Args:
        seconds: the limit; None for none.
        what: what the block does, for the message (``"encoding"``).
        limit: the time limit the message names, when the deadline is not it (a
            :func:`backstop`); default ``seconds``.

    An enclosing deadline is suspended meanwhile and re-armed afterwards with the time it had left.
    """
    if seconds is None or seconds >= MAX_TIMEOUT or threading.current_thread() is not threading.main_thread():
        yield  # a limit of years is none, and the interval timer cannot hold it
        return
    import signal  # here: a command without a time limit (puzzlesat list) does not load it

    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    started = time.monotonic()

    def expire(signum: int, frame: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, REPEAT)  # again, should a C callback drop this one
        raise DeadlineExceeded(f"time limit of {seconds if limit is None else limit:g} s reached while {what}")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - started), 0.001))


@contextmanager
def held_off(grace: float = 1.0) -> Iterator[None]:
    """Hold an enclosing :func:`hard_deadline` off while the block runs: for an anytime search
    that stops at its time limit by itself (with its own hard deadline inside) and must then
    answer what it holds, however loaded the machine, rather than be cut off with nothing.
    Afterwards the enclosing deadline is armed again with the time it had left, and at least
    ``grace`` seconds, for its caller to take the answer."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    import signal

    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    signal.setitimer(signal.ITIMER_REAL, 0)
    started = time.monotonic()
    try:
        yield
    finally:
        if outer_left:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - started), grace))
