"""The numba kernels' shared return codes and their decision mapping."""

from __future__ import annotations

import pytest

from puzzlesat.core import Status
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND, FULL, MEET, decision_status


def test_codes_are_distinct() -> None:
    assert len({EXHAUSTED, FOUND, BUDGET, FULL, MEET}) == 5


@pytest.mark.parametrize(
    ("code", "status"), [(FOUND, Status.SOLVED), (EXHAUSTED, Status.INFEASIBLE), (BUDGET, Status.UNKNOWN)]
)
def test_decision_status(code: int, status: Status) -> None:
    assert decision_status(code) is status


@pytest.mark.parametrize("code", [FULL, MEET, -1, 99])
def test_decision_status_rejects_other_codes(code: int) -> None:
    with pytest.raises(ValueError, match="no decision status"):
        decision_status(code)


def test_codes_compile_as_constants() -> None:
    numba = pytest.importorskip("numba")

    @numba.njit
    def stop(n: int) -> int:
        return FOUND if n > 0 else BUDGET

    assert (stop(1), stop(0)) == (FOUND, BUDGET)
