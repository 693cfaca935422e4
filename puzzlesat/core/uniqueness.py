"""Uniqueness: how a strategy reports its search for a second solution.

A strategy asked to prove its answer unique forbids that answer and searches again.  Every
strategy records what the second search found the same way, through :func:`record_uniqueness`:
``stats["unique"]`` (True or False; absent when the search stopped first), the other solution
in :attr:`~puzzlesat.core.Result.second_solution`, and a note appended to the message.
"""

from __future__ import annotations

from typing import Any

from puzzlesat.core import Result


def record_uniqueness(
    result: Result, found: bool | None, second: Any = None, *, noun: str = "solution", undecided: str = "timeout"
) -> Result:
    """Record the outcome of the search for a second solution on ``result``.

    Args:
        result: the answer whose uniqueness was checked; changed in place.
        found: the second search's outcome: True when it found ``second``, False when it
            proved that none exists, None when it stopped before deciding.
        second: the other solution when ``found`` is True (a True without one counts as
            no second solution, as a search that proved nothing else exists).
        noun: what the puzzle calls a solution in messages ("loop").
        undecided: why the search stopped, when ``found`` is None.

    Returns:
        ``result``, for chaining.

    >>> from puzzlesat.core import Status
    >>> r = record_uniqueness(Result(Status.SOLVED, "a loop", message="no circles"), False)
    >>> r.stats, r.message
    ({'unique': True}, 'no circles; unique')
    """
    if found is None:
        note = f"uniqueness not decided ({undecided})"
    elif not found or second is None:
        result.stats["unique"] = True
        note = "unique"
    else:
        result.stats["unique"] = False
        result.second_solution = second
        note = f"NOT unique: a second {noun} exists"
    result.message = f"{result.message}; {note}" if result.message else note
    return result
