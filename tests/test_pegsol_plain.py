"""The plain-Python search (native/pegsol/plain.py) against the numba kernel it stands in for.

Both run the same search in the same order: after any budget they must stand at the same node
with the same arrays and the same dead-position table, so a search can start in Python and go
on in the kernel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from puzzlesat.core import Limits, Status, run_strategy
from puzzlesat.core.kernel_status import BUDGET
from puzzlesat.domains import pegsol as P
from puzzlesat.native.pegsol import dfs as native
from puzzlesat.native.pegsol.layout import Layout
from puzzlesat.native.pegsol.plain import Search

INSTANCES = Path(__file__).resolve().parents[1] / "instances" / "pegsol"
ARRAYS = ("board", "moves", "entered", "chosen", "state", "table")  # of the Tree


def boards() -> list[P.Instance]:
    """The English central game, rectangles with and without solutions, a French problem."""
    return [
        P.generate({"board": "english"}, 0),
        P.generate({"board": "english", "hole": "2,2"}, 0),
        P.generate({"rows": 4, "cols": 4, "hole": "1,1"}, 0),
        P.generate({"rows": 5, "cols": 5}, 0),
        P.parse((INSTANCES / "rect6x4_hole_3_2.txt").read_text()),
        P.generate({"board": "french", "hole": "0,2", "goal": "3,1"}, 0),
    ]


def runner(instance: P.Instance, share: tuple[int, int]) -> native._Runner:
    layout = Layout.of(instance)
    depth = instance.moves_needed
    maps = layout.symmetries(layout.pegs(instance.target))
    out = native._Runner(layout, instance, depth, 10, maps, depth * 2 // 3)
    out.cuts.share[:] = share
    out.reset()
    return out


@pytest.mark.parametrize("index", range(6))
def test_plain_search_stands_where_the_kernel_stands(index: int) -> None:
    instance = boards()[index]
    layout = Layout.of(instance)
    for order, budget, share in [("sym0", 1, (0, 1)), ("outer1", 37, (0, 1)), ("sym5", 500, (1, 2))]:
        plain, numba = runner(instance, share), runner(instance, share)
        plain.plain = Search(plain.game, plain.cuts.share, plain.tree.table)
        jumps = native.jump_order(order, layout)
        for _ in range(40):
            outcome = plain.run(jumps, budget)
            assert outcome == numba.run(jumps, budget), (index, order)
            plain.plain.flush(plain.tree.table)
            for name in ARRAYS:
                assert np.array_equal(getattr(plain.tree, name), getattr(numba.tree, name)), (index, order, name)
            if outcome[0] != BUDGET:
                break


def test_a_search_begun_in_python_ends_in_the_kernel() -> None:
    # the English game with the hand-over after 5,000 plain nodes: the same nodes and jumps
    instance = P.generate({"board": "english"}, 0)
    results = [
        run_strategy(P.PUZZLE, instance, "native-dfs", Limits(timeout=60, options={"plain_nodes": n}))
        for n in (0, 5_000, 1 << 20)
    ]
    for result in results:
        assert result.status is Status.SOLVED and not P.verify(instance, result.solution)
    assert len({r.solution for r in results}) == 1
    assert len({r.stats["nodes"] for r in results}) == 1
    assert [r.stats.get("plain_nodes") for r in results] == [None, 8_192, 17_208]  # hand-over at a slice's end


def test_a_process_with_the_kernel_loaded_starts_in_it() -> None:
    # the plain start saves loading the kernel; once a solve has loaded it, the next ones skip it
    instance = P.generate({"board": "english", "hole": "2,2"}, 0)
    limits = Limits(timeout=60, options={"plain_nodes": 0})
    run_strategy(P.PUZZLE, instance, "native-dfs", limits)  # loads the kernel
    result = run_strategy(P.PUZZLE, instance, "native-dfs", Limits(timeout=60))
    assert result.status is Status.SOLVED and "plain_nodes" not in result.stats
