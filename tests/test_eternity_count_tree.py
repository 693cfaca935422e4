"""A count's eight trees (native/eternity/count_tree.py): a corner tile top-left, the board as given or mirrored.

Every tree must count the same boards, one per class of rotations: each tree's boards, mapped
back onto the board as given (verified) and turned to a canonical rotation, are the first
tree's, and on 3x3 boards as many as test_eternity_count's brute force counts.  A
count picks the tree with the fewest nodes in its first two rows, says which in its stats,
and answers a board of the board as given (verified), alone or on two workers, with the same
nodes; rectangles and hinted boards keep their one tree.
"""

from __future__ import annotations

import pytest
from test_eternity_count import brute_force

from puzzlesat import api
from puzzlesat.core import Limits, Status
from puzzlesat.core.kernel_status import EXHAUSTED, FOUND
from puzzlesat.domains.eternity import Instance, Solution, generate, rotated, verify, with_hints
from puzzlesat.native.eternity import count_tree
from puzzlesat.native.eternity.count_search import CountSearch
from puzzlesat.native.eternity.search import COUNT_LIMIT


def turned(solution: Solution, size: int) -> Solution:
    """The board of a ``size x size`` solution turned a quarter clockwise."""
    cells = solution.placements
    return Solution(
        tuple((cells[(size - 1 - c) * size + r][0], (cells[(size - 1 - c) * size + r][1] + 1) % 4)
              for r in range(size) for c in range(size))
    )  # fmt: skip


def canonical(instance: Instance, solution: Solution) -> tuple[tuple[int, int], ...]:
    """The least of the board's four turns, each placement written by the look it shows."""
    looks = []
    for _ in range(4):
        looks.append(tuple((tile, rotated(instance.tiles[tile], rot)) for tile, rot in solution.placements))
        solution = turned(solution, instance.rows)
    best = min(looks)
    return tuple((tile, next(r for r in range(4) if rotated(instance.tiles[tile], r) == look)) for tile, look in best)


def boards(instance: Instance, tree: count_tree.Tree) -> tuple[int, set[tuple[tuple[int, int], ...]]]:
    """(nodes, every board of the tree, on ``instance`` and canonical), each board verified."""
    work, lookup = count_tree.counted(instance, tree, False)
    search = CountSearch(work, lookup)
    found, nodes = set(), 0
    while True:
        status, done = search.run(10**9, limit=search.found + 1)
        nodes += done
        if status == EXHAUSTED:
            return nodes, found
        assert status == FOUND
        board = search.board()
        if tree.mirrored:
            board = board.transposed(work.rows, work.cols)
        assert not verify(instance, board)
        found.add(canonical(instance, board))


BOARDS = {
    "4x4": lambda: generate({"size": 4, "frame_colours": 2, "inner_colours": 3}, 2),
    "5x5": lambda: generate({"size": 5, "frame_colours": 2, "inner_colours": 5}, 3),
    "6x6": lambda: generate({"size": 6, "frame_colours": 3, "inner_colours": 6}, 4),
}


def test_transposed_twice_is_the_board_and_its_solutions_are_the_mirrored_ones() -> None:
    instance = generate({"rows": 3, "cols": 5, "frame_colours": 1, "inner_colours": 3}, 4)
    assert instance.transposed().transposed() == instance
    solved = api.solve(api.Instance("eternity", instance), "native-rowscan").solution
    assert solved is not None and not verify(instance, solved)
    mirror = solved.transposed(instance.rows, instance.cols)
    assert not verify(instance.transposed(), mirror) and mirror != solved
    assert mirror.transposed(instance.cols, instance.rows) == solved
    hinted = with_hints(instance, f"{solved.placements[6][0]} 1 1 {solved.placements[6][1]}")
    assert not verify(hinted.transposed(), mirror)


@pytest.mark.parametrize("name", list(BOARDS))
def test_every_tree_counts_the_same_boards(name: str) -> None:
    instance = BOARDS[name]()
    trees = count_tree.trees(instance)
    assert len(trees) == 8 and trees[0] == count_tree.Tree(count_tree.corner_tiles(instance)[0], False)
    walked = [boards(instance, tree) for tree in trees]
    assert walked[0][1] and all(found == walked[0][1] for _, found in walked)
    assert len({nodes for nodes, _ in walked}) > 1  # the trees differ: the choice means something


@pytest.mark.parametrize("seed", [0, 1])
def test_every_tree_of_a_3x3_counts_what_brute_force_counts(seed: int) -> None:
    instance = generate({"size": 3, "frame_colours": 2, "inner_colours": 2}, seed)
    _, classes = brute_force(instance)  # test_eternity_count's: every board of every tile on every cell
    assert classes > 1
    for tree in count_tree.trees(instance):
        assert len(boards(instance, tree)[1]) == classes, tree


def test_a_count_walks_the_tree_with_the_fewest_nodes_in_its_first_rows() -> None:
    instance = BOARDS["6x6"]()
    limits = Limits(options={"count": True})
    tree, spent = count_tree.pick(instance, limits, True, False, 0.0)
    assert tree is not None and spent > 0
    depth = 2 * instance.cols
    first_rows = {}
    for option in count_tree.trees(instance):
        search = count_tree.first_rows(instance, option, True, depth)
        first_rows[option] = search.run(10**12, limit=COUNT_LIMIT)[1]
    assert first_rows[tree] == min(first_rows.values())
    assert count_tree.pick(instance, limits, True, False, 0.0, "first") == (count_tree.trees(instance)[0], 0)
    late = Limits(timeout=0.001, options={"count": True})  # out of time: the first tree, at once
    assert count_tree.pick(instance, late, True, False, -1.0)[0] == count_tree.trees(instance)[0]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_count_says_its_tree_and_answers_a_board_of_the_board_as_given(workers: int) -> None:
    board = api.Instance("eternity", BOARDS["6x6"]())
    first = api.solve(board, "native-rowscan", count=True, workers=workers, count_tree="first")
    best = api.solve(board, "native-rowscan", count=True, workers=workers)
    assert first.status is best.status is Status.SOLVED and first.count == best.count > 0
    assert first.stats["tree"] == count_tree.trees(board.data)[0].name and first.stats["tree_nodes"] == 0
    assert best.stats["tree"] == "tile33-mirrored" and best.stats["nodes"] < first.stats["nodes"], best.stats
    assert not verify(board.data, best.solution)
    assert best.stats["nodes"] == api.solve(board, "native-rowscan", count=True, workers=3 - workers).stats["nodes"]


def test_rectangles_hints_and_the_colour_check_keep_their_one_tree() -> None:
    rectangle = generate({"rows": 3, "cols": 5, "frame_colours": 1, "inner_colours": 2}, 0)
    square = BOARDS["5x5"]()
    solved = api.solve(api.Instance("eternity", square), "native-rowscan").solution
    assert solved is not None
    hinted = with_hints(square, f"{solved.placements[12][0]} 2 2 {solved.placements[12][1]}")
    for instance in (rectangle, hinted):
        assert count_tree.trees(instance) == []
        assert count_tree.pick(instance, Limits(), True, False, 0.0) == (None, 0)
        result = api.solve(api.Instance("eternity", instance), "native-rowscan", count=True, workers=1)
        assert result.status is Status.SOLVED and "tree" not in result.stats
    assert count_tree.trees(square) and count_tree.pick(square, Limits(), True, True, 0.0) == (None, 0)
