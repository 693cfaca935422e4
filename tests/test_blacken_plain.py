"""native-bb's kernels run as plain Python (native/plain.py) against the same kernels compiled.

The plain run must stand where the compiled run stands after any budget (bounds, nodes, the
whole state), so a search can start in Python and go on compiled.
"""

from __future__ import annotations

import numpy as np
import pytest

from puzzlesat import core
from puzzlesat.core import Limits, Status
from puzzlesat.core.kernel_status import BUDGET
from puzzlesat.domains import blacken
from puzzlesat.native.blacken import bb

BOARDS = [(5, 3, 1), (6, 5, 2), (7, 6, 2), (7, 8, 3), (8, 10, 4), (8, 12, 2)]  # size, whites, components
TREE = ("grid", "st", "path", "best_path", "cand", "ncand", "ttk1")
BOUNDS = ("mkeys", "mval", "too_big")


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_plain_kernels_stand_where_the_compiled_ones_stand(board: tuple[int, int, int], seed: int) -> None:
    size, whites, groups = board
    instance = blacken.generate({"size": size, "whites": whites, "components": groups}, seed)
    with np.errstate(over="ignore"):
        plain, compiled = bb.Search(instance, seed, plain=True), bb.Search(instance, seed)
        compiled.split_work = plain.split_work  # the plain root's smaller work limit
        lower = plain.root_bound()
        assert lower == compiled.root_bound()
        cut = compiled.maxd
        assert plain.start((), best=cut, target=lower) == compiled.start((), best=cut, target=lower)
        for budget in (1, 3, 10, 40, 200):
            status = plain.run(budget)
            assert status == compiled.run(budget), (board, seed, budget)
            for part, names in (("tree", TREE), ("bounds", BOUNDS)):
                for name in names:
                    got, want = (getattr(getattr(s, part), name) for s in (plain, compiled))
                    assert np.array_equal(got, want), (board, seed, budget, name)
            if status != BUDGET:
                break
    moves = plain.best_moves()
    if moves is not None:
        assert blacken.verify(instance, blacken.Solution(moves)) == []


def test_plain_nodes_hand_over_to_the_compiled_kernels() -> None:
    instance = blacken.generate({"size": 8, "whites": 12, "components": 2}, 3)
    whole = core.run_strategy(blacken.PUZZLE, instance, "native-bb", Limits())
    handed = core.run_strategy(blacken.PUZZLE, instance, "native-bb", Limits(options={"plain_nodes": 2}))
    assert whole.status is handed.status is Status.OPTIMAL
    assert whole.objective == handed.objective
    assert handed.stats["nodes"] > 2  # the compiled kernels went on from node 2
    assert blacken.verify(instance, handed.solution) == []
