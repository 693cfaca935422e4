"""The return codes of the numba kernels, one set for every ``native/*_kernel.py``.

Plain module-level ints, so a kernel imports them and returns them as they are: numba reads
a global int as a compile-time constant.  Never renumber them: a kernel compiled with
``cache=True`` keeps the values it was compiled with until its own source file changes.
"""

from __future__ import annotations

from puzzlesat.core import Status

EXHAUSTED = 0  # the whole search space below the start was searched
FOUND = 1  # stopped at a solution: the first one, or enough of them, or one meeting the target
BUDGET = 2  # the node budget is spent; the search state is kept, call again to resume

# codes one kernel needs, with no meaning elsewhere
FULL = 3  # rubik: the array collecting every solution of the bound is full
MEET = 4  # pegsol: the search met a stored winning position; the wrapper joins the two halves


def decision_status(code: int) -> Status:
    """The Status of a decision search (is there a solution?) that returned ``code``.

    Raises:
        ValueError: a code this mapping does not know (a bug in the wrapper, not an answer).
    """
    if code == FOUND:
        return Status.SOLVED
    if code == EXHAUSTED:
        return Status.INFEASIBLE
    if code == BUDGET:
        return Status.UNKNOWN
    raise ValueError(f"kernel return code {code!r} has no decision status")
