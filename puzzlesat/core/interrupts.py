"""Ctrl-C inside a solver library's C code, turned into the KeyboardInterrupt Python gives elsewhere.

Two libraries take SIGINT away from Python while they solve: pysat's solvers catch it and
raise their own error ("Caught keyboard interrupt"), and CP-SAT stops its search as if its
time limit had come, so the interrupt is lost and a cut-short search is reported as an
answer.  CP-SAT is told to leave SIGINT to Python and solves in a thread of its own while the
main thread waits in Python (:func:`puzzlesat.models.cpsat.solve_waiting`);
:func:`solver_interrupts` turns pysat's error back into KeyboardInterrupt.  The command line
then exits with 130 under every strategy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def is_solver_interrupt(exc: BaseException) -> bool:
    """True for the error pysat's solvers raise when they catch Ctrl-C themselves."""
    return type(exc).__module__ == "pysolvers" and "keyboard interrupt" in str(exc).lower()


@contextmanager
def solver_interrupts() -> Iterator[None]:
    """Re-raise a solver's own Ctrl-C error (pysat's) as KeyboardInterrupt."""
    try:
        yield
    except Exception as exc:
        if is_solver_interrupt(exc):
            raise KeyboardInterrupt from None
        raise


@contextmanager
def terminate_as_interrupt() -> Iterator[bool]:
    """Turn SIGTERM into KeyboardInterrupt while the block runs, so that an anytime search stopped
    by a supervisor (``kill``, a batch system's limit) still answers what it holds, as on Ctrl-C.

    Yields:
        True when armed; False off the main thread (SIGTERM then keeps its meaning).
    """
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield False
        return
    try:
        yield True
    finally:
        signal.signal(signal.SIGTERM, previous)
