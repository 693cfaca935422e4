"""The plain-Python row scan (native/eternity/plain.py) against the numba kernel it stands in for.

Both run the same search on the same candidate order: after any budget they must stand at the
same node with the same state, so a search can start in Python and go on in the kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

from puzzlesat import core
from puzzlesat.core import Limits, Status
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.domains import eternity
from puzzlesat.native import aot
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search

STATE = ("used", "choice", "east", "south", "placed", "depth", "found")  # of the State


def instances() -> list[eternity.Instance]:
    """Small generated boards (squares and rectangles, some with twins), and one with no solution."""
    boards = [
        eternity.generate({"rows": rows, "cols": cols, "frame_colours": frame, "inner_colours": inner}, seed)
        for rows, cols, frame, inner, seed in [
            (3, 3, 1, 1, 0),
            (4, 4, 2, 3, 1),
            (4, 5, 2, 4, 2),
            (5, 5, 3, 5, 3),
            (5, 5, 2, 2, 4),
            (6, 6, 3, 7, 5),
        ]
    ]
    return [*boards, eternity.make_unsolvable(boards[1])]


def pair(instance: eternity.Instance, seed: int) -> tuple[Search, Search]:
    """Two searches over one candidate order."""
    lookup = Lookup(instance, twins=True)
    table = lookup.table(Draws(seed))
    return Search(instance, lookup, None, table=table), Search(instance, lookup, None, table=table)


def same_state(plain: Search, numba: Search) -> None:
    for name in STATE:
        assert np.array_equal(getattr(plain.state, name), getattr(numba.state, name)), name


@pytest.mark.parametrize("index", range(7))
def test_plain_search_stands_where_the_kernel_stands(index: int) -> None:
    instance = instances()[index]
    for seed, budget in [(0, 1), (1, 7), (2, 100), (3, 5_000)]:
        plain, numba = pair(instance, seed)
        while True:
            outcome = plain.run(budget, plain=True)
            assert outcome == numba.run(budget), (index, seed, budget)
            same_state(plain, numba)
            if outcome[0] != BUDGET:
                break
        if outcome[0] == FOUND:
            assert eternity.verify(instance, plain.board()) == []


@pytest.mark.parametrize("index", [0, 1, 4, 6])
def test_plain_count_then_kernel_counts_every_board(index: int) -> None:
    instance = instances()[index]
    plain, numba = pair(instance, 7)
    started, _ = plain.run(50, limit=COUNT_LIMIT, plain=True)  # a count begun in Python ...
    status = started
    while status == BUDGET:
        status, _ = plain.run(10_000, limit=COUNT_LIMIT)  # ... finished in the kernel
    assert status == EXHAUSTED
    assert numba.run(10**9, limit=COUNT_LIMIT)[0] == EXHAUSTED
    assert plain.found == numba.found
    assert (plain.found == 0) == (index == 6)


def test_plain_nodes_hand_over_to_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a tiny plain budget the kernel finishes the search; the answer and node count agree."""
    monkeypatch.setattr(aot, "_loaded", {"eternity": None})  # numba's kernel: one built ahead runs from node 0
    instance = instances()[5]
    whole = core.run_strategy(eternity.PUZZLE, instance, "native-rowscan", Limits(seed=3))
    handed = core.run_strategy(eternity.PUZZLE, instance, "native-rowscan", Limits(seed=3, options={"plain_nodes": 10}))
    assert whole.status is handed.status is Status.SOLVED
    assert whole.solution == handed.solution
    assert whole.stats["nodes"] == handed.stats["nodes"]
    assert handed.stats["nodes"] > 10  # the kernel ran
    assert eternity.verify(instance, handed.solution) == []
