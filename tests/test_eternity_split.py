"""native-rowscan's exact search on every core (``--workers``) and its pruning options.

The split is checked in one process first (tasks cut off a running search and searched
apart place the same nodes and find the same boards as the whole search), then across
processes; the pruning options (identical pieces, the colour-count check) must agree with
the plain search on solvability and counts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import puzzlesat
from puzzlesat.core import Status
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.domains.eternity import Instance, generate, make_unsolvable, with_hints
from puzzlesat.native.eternity.arrays import Table
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search, Task

PEAKS = Path(__file__).resolve().parents[1] / "instances" / "eternity"


def exhaust(instance: Instance, lookup: Lookup, table: Table, check: bool, task: Task) -> tuple[int, int]:
    """(nodes, boards) of one task searched to the end, giving a piece away every 50 nodes (searched the same way)."""
    search = Search(instance, lookup, None, check, table)
    search.start(task)
    nodes = boards = 0
    while True:
        status, done = search.run(50, limit=COUNT_LIMIT)
        nodes += done
        if status == EXHAUSTED:
            return nodes, boards + search.found
        assert status == BUDGET
        piece = search.split()
        if piece is not None:
            more_nodes, more_boards = exhaust(instance, lookup, table, check, piece)
            nodes += more_nodes
            boards += more_boards


@pytest.mark.parametrize(
    ("size", "seed", "twins", "check", "hint"),
    [(4, 1, False, False, ""), (5, 2, True, False, ""), (5, 3, True, True, ""), (5, 4, True, True, "centre")],
)
def test_pieces_split_off_a_search_share_its_tree_exactly(
    size: int, seed: int, twins: bool, check: bool, hint: str
) -> None:
    instance = generate({"size": size, "frame_colours": 2, "inner_colours": size - 1}, seed)
    if hint:  # the centre cell pinned as a solution has it
        solved = Search(instance, Lookup(instance), Draws(0))
        assert solved.run(10**9)[0] == FOUND
        tile, rotation = solved.board().placements[instance.cells // 2]
        instance = with_hints(instance, f"{tile} {size // 2} {size // 2} {rotation}")
    lookup = Lookup(instance, twins)
    whole = Search(instance, lookup, Draws(seed), check)
    status, nodes = whole.run(10**9, limit=COUNT_LIMIT)
    assert status == EXHAUSTED and whole.found > 0
    assert exhaust(instance, lookup, whole.table, check, (np.zeros(0, dtype=np.int64), -1)) == (nodes, whole.found)
    # a search paused anywhere hands over all that is left
    paused = Search(instance, lookup, None, check, whole.table)
    assert paused.run(nodes // 3, limit=COUNT_LIMIT)[0] == BUDGET
    rest = [exhaust(instance, lookup, whole.table, check, task) for task in paused.remaining()]
    assert nodes // 3 + sum(n for n, _ in rest) == nodes
    assert paused.found + sum(b for _, b in rest) == whole.found


def boards() -> list[Instance]:
    """Small boards with identical pieces (few colours), a rectangle and a hinted board among them."""
    made = [generate({"size": 4, "frame_colours": 1, "inner_colours": 2}, s) for s in range(2)]
    made += [generate({"size": 5, "frame_colours": 2, "inner_colours": 5}, s) for s in range(2)]
    made.append(generate({"rows": 3, "cols": 5, "frame_colours": 1, "inner_colours": 2}, 0))
    hinted = generate({"size": 5, "frame_colours": 2, "inner_colours": 4}, 7)
    solved = puzzlesat.solve(puzzlesat.Instance("eternity", hinted), "native-rowscan").solution
    assert solved is not None
    tile, rotation = solved.placements[12]
    made.append(with_hints(hinted, f"{tile} 2 2 {rotation}"))
    return made


def test_pruning_options_agree_on_counts_and_solvability() -> None:
    for instance in boards():
        board = puzzlesat.Instance("eternity", instance)
        runs = {
            (twins, check): puzzlesat.solve(board, "native-rowscan", count=True, twins=twins, colour_check=check)
            for twins in (False, True)
            for check in (False, True)
        }
        plain = runs[False, False]
        assert plain.count and plain.count > 0
        for (twins, check), result in runs.items():
            assert result.count == plain.count, (twins, check)
            assert result.stats["nodes"] <= plain.stats["nodes"]
        if instance.cells > 16:  # a proof of no solution searches the whole tree: small boards only
            continue
        broken = puzzlesat.Instance("eternity", make_unsolvable(instance))
        for twins in (False, True):
            for check in (False, True):
                result = puzzlesat.solve(broken, "native-rowscan", twins=twins, colour_check=check)
                assert result.status is Status.INFEASIBLE


def test_twins_leave_the_plain_search_alone_when_off() -> None:
    """With both options off the search places the nodes it placed before they existed."""
    board = puzzlesat.load("eternity", PEAKS / "peak_6x6_b3_m7_s0.txt")
    counted = puzzlesat.solve(board, "native-rowscan", count=True, twins=False, count_tree="first")
    assert (counted.count, counted.stats["nodes"]) == (12, 173194)
    solved = puzzlesat.solve(board, "native-rowscan", seed=3, twins=False)
    assert solved.stats["nodes"] == 114536  # seed 3's order as Draws draws it
    assert puzzlesat.solve(board, "native-rowscan", count=True, count_tree="first").stats["nodes"] < 173194


def test_two_workers_count_and_decide_as_one() -> None:
    board = puzzlesat.load("eternity", PEAKS / "peak_7x7_b4_m8_s1.txt")
    # head_start=0: the second process from the start
    two = puzzlesat.solve(
        board, "native-rowscan", count=True, twins=False, workers=2, head_start=0.0, count_tree="first"
    )
    # the whole tree of the first corner tile, as one process counts it (31508542 nodes, 4 boards), shared by both
    assert (two.status, two.count, two.stats["nodes"]) == (Status.SOLVED, 4, 31508542)
    assert two.stats["tasks"] > 0 and all(int(n) > 0 for n in two.stats["worker_nodes"].split("/"))
    assert puzzlesat.solve(board, "native-rowscan", workers=2, head_start=0.0).status is Status.SOLVED  # verified
    small = puzzlesat.load("eternity", PEAKS / "peak_6x6_b3_m7_s0.txt")
    broken = puzzlesat.Instance("eternity", make_unsolvable(small.data))
    alone = puzzlesat.solve(broken, "native-rowscan", count=True, count_tree="first")  # the decision's tree
    shared = puzzlesat.solve(broken, "native-rowscan", workers=2, head_start=0.0)
    assert (shared.status, shared.stats["nodes"]) == (Status.INFEASIBLE, alone.stats["nodes"])
