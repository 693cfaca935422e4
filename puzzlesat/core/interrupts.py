"""Ctrl-C inside a solver library's C code, turned into the KeyboardInterrupt Python gives elsewhere.

Two libraries take SIGINT away from Python while they solve: pysat's solvers catch it and
raise their own error ("Caught keyboard interrupt"), and CP-SAT stops its search as if its
time limit had come, so the interrupt is lost and a cut-short search is reported as an
answer.  :func:`stop_on_interrupt` lets CP-SAT leave SIGINT to Python and stops the search
from a thread woken by the signal; :func:`solver_interrupts` turns pysat's error back into
KeyboardInterrupt.  The command line then exits with 130 under every strategy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def stop_on_interrupt(stop: Callable[[], None]) -> Iterator[bool]:
    """Call ``stop`` (e.g. CP-SAT's ``stop_search``) when SIGINT arrives while the block runs.

    The signal keeps its Python meaning: once the block is left, Python raises
    KeyboardInterrupt as usual.  The watcher is woken through :func:`signal.set_wakeup_fd`,
    since Python's own handler runs only when the main thread is back in Python code.

    Yields:
        True when armed; False (nothing done) off the main thread, when SIGINT is ignored or
        not Python's, or when a wakeup file is already in use (an asyncio loop).
    """
    import signal
    import socket  # here: a command that runs no CP-SAT search does not load it (2 ms)

    armed = threading.current_thread() is threading.main_thread() and sigint_handled()
    receive, send = socket.socketpair()
    send.setblocking(False)
    if armed:
        previous = signal.set_wakeup_fd(send.fileno(), warn_on_full_buffer=False)
        if previous != -1:
            signal.set_wakeup_fd(previous)
            armed = False
    if not armed:
        receive.close()
        send.close()
        yield False
        return

    def watch() -> None:
        while data := receive.recv(64):
            if signal.SIGINT in data:
                stop()
                return

    watcher = threading.Thread(target=watch, name="puzzlesat-sigint", daemon=True)
    watcher.start()
    try:
        yield True
    finally:
        signal.set_wakeup_fd(-1)
        send.close()  # the watcher reads the end of the stream and returns
        watcher.join()
        receive.close()


def sigint_handled() -> bool:
    """True when Ctrl-C means KeyboardInterrupt here (Python's handler, not SIG_IGN as in a child)."""
    import signal  # here, as in stop_on_interrupt: every command imports this module

    return callable(signal.getsignal(signal.SIGINT))


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
