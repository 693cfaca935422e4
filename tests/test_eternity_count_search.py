"""Counts on tile bitsets (native/eternity/count_search.py): the row-scan kernel's tree, node for node.

Each board is counted by both kernels to exhaustion, which must place the same nodes and
complete the same boards (twins on and off, a hinted board, a rectangle, boards whose tiles fit
one key in two turns); the split of a count into tasks must share its tree exactly, as the
row-scan search's split does, wherever it pauses (a pause comes at a cell's end: a few nodes
past the budget).
"""

from __future__ import annotations

from array import array

import pytest

import puzzlesat
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.domains.eternity import Instance, generate, verify, with_hints
from puzzlesat.native.eternity.arrays import ALT_SHIFT, FIELD
from puzzlesat.native.eternity.count_search import CountSearch, bit_table, fits
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search, Task


def few_colours(seed: int) -> Instance:
    """A 4x4 of one frame and two inner colours: identical pieces, and tiles that fit a key in two turns."""
    return generate({"size": 4, "frame_colours": 1, "inner_colours": 2}, seed)


def hinted() -> Instance:
    board = generate({"size": 5, "frame_colours": 2, "inner_colours": 4}, 7)
    solved = puzzlesat.solve(puzzlesat.Instance("eternity", board), "native-rowscan").solution
    assert solved is not None
    tile, rotation = solved.placements[12]
    return with_hints(board, f"{tile} 2 2 {rotation}")


BOARDS = {
    "4x4 few colours 0": lambda: few_colours(0),
    "4x4 few colours 2": lambda: few_colours(2),
    "5x5": lambda: generate({"size": 5, "frame_colours": 2, "inner_colours": 4}, 3),
    "6x6": lambda: generate({"size": 6, "frame_colours": 3, "inner_colours": 6}, 4),
    "3x5": lambda: generate({"rows": 3, "cols": 5, "frame_colours": 1, "inner_colours": 2}, 0),
    "5x5 hinted": hinted,
}


def exhaust(instance: Instance, lookup: Lookup, task: Task, step: int) -> tuple[int, int]:
    """(nodes, boards) of one task to the end, giving a piece away every ``step`` nodes (searched the same way)."""
    search = CountSearch(instance, lookup)
    search.start(task)
    nodes = boards = 0
    while True:
        status, done = search.run(step, limit=COUNT_LIMIT)
        nodes += done
        if status == EXHAUSTED:
            return nodes, boards + search.found
        assert status == BUDGET and done >= step
        piece = search.split()
        if piece is not None:
            more = exhaust(instance, lookup, piece, step)
            nodes, boards = nodes + more[0], boards + more[1]


@pytest.mark.parametrize("name", list(BOARDS))
@pytest.mark.parametrize("twins", [False, True])
def test_bitsets_count_the_row_scans_tree_node_for_node(name: str, twins: bool) -> None:
    instance = BOARDS[name]()
    lookup = Lookup(instance, twins)
    rows = Search(instance, lookup, Draws(1))
    expected = rows.run(10**10, limit=COUNT_LIMIT)
    assert expected[0] == EXHAUSTED and rows.found > 0
    bits = CountSearch(instance, lookup)
    assert bits.run(10**10, limit=COUNT_LIMIT) == expected
    assert bits.found == rows.found
    # shared out in some 200 pieces, and paused a third of the way and handed over: the same tree
    nodes = expected[1]
    assert exhaust(instance, lookup, (array("q"), -1), 37 + nodes // 200) == (nodes, rows.found)
    paused = CountSearch(instance, lookup)
    status, done = paused.run(nodes // 3, limit=COUNT_LIMIT)
    assert status == BUDGET and nodes // 3 <= done < nodes
    rest = [exhaust(instance, lookup, task, 101 + nodes // 50) for task in paused.remaining()]
    assert (done + sum(n for n, _ in rest), paused.found + sum(b for _, b in rest)) == (nodes, rows.found)


def test_few_colours_exercise_the_second_turn_of_a_tile() -> None:
    """Both 4x4 boards hold tiles that fit one key in two turns, and such a turn is given away as a task."""
    for seed in (0, 2):
        instance = few_colours(seed)
        search = CountSearch(instance, Lookup(instance, True))
        second = {(word >> ALT_SHIFT & FIELD) - 1 for word in search.table.pack} - {-1}  # rows that are a next turn
        assert second
        given = set()
        while search.run(3, limit=COUNT_LIMIT)[0] == BUDGET:
            given |= {prefix[-1] in second for prefix, _ in search.remaining() if prefix}
        assert given == {False, True}


def test_each_board_found_is_a_solution_and_the_count_goes_on_from_it() -> None:
    instance = BOARDS["5x5"]()
    search = CountSearch(instance, Lookup(instance))
    boards = []
    while (status := search.run(10**9, limit=len(boards) + 1))[0] == FOUND:
        assert not verify(instance, search.board())
        boards.append(search.board().placements)
    assert status[0] == EXHAUSTED and len(set(boards)) == len(boards) == search.found > 1


@pytest.mark.parametrize("name", ["4x4 few colours 0", "4x4 few colours 2", "3x5"])
def test_boards_found_one_by_one_with_twins_and_second_turns_add_up_to_the_count(name: str) -> None:
    """The last cell's boards counted tile by tile (twins, tiles of two turns): each stop a new board."""
    instance = BOARDS[name]()
    lookup = Lookup(instance, True)
    whole = CountSearch(instance, lookup)
    expected = whole.run(10**9, limit=COUNT_LIMIT)
    assert expected[0] == EXHAUSTED
    search = CountSearch(instance, lookup)
    boards, nodes = [], 0
    while (status := search.run(10**9, limit=search.found + 1))[0] == FOUND:
        nodes += status[1]
        assert not verify(instance, search.board())
        boards.append(search.board().placements)
    assert len(set(boards)) == len(boards) == search.found == whole.found > 1
    assert nodes + status[1] == expected[1]


@pytest.mark.parametrize("seed", [0, 2])
@pytest.mark.parametrize("depth", [6, 10])
def test_a_cut_trees_partial_boards_come_one_at_a_time_second_turns_too(seed: int, depth: int) -> None:
    """The tree cut ``depth`` cells down (a checkpoint's tasks, the tree choice): one stop a partial
    board, two turns of one tile on its last cell two stops, and the nodes of a straight run."""
    instance = few_colours(seed)
    lookup = Lookup(instance, True)
    table = bit_table(lookup)
    cut = table._replace(base=array("Q", table.base[:depth]))
    whole = CountSearch(instance, lookup, cut)
    expected = whole.run(10**9, limit=COUNT_LIMIT)
    search = CountSearch(instance, lookup, cut)
    seen, nodes = [], 0
    while (status := search.run(10**9, limit=search.found + 1))[0] == FOUND:
        nodes += status[1]
        seen.append(tuple(search.placed(depth)))
    assert len(set(seen)) == len(seen) == search.found == whole.found > 1
    assert nodes + status[1] == expected[1]
    turns = {(a[:-1], lookup.rows[a[-1]][2]) for a in seen}  # the boards but the last tile's turn
    assert len(turns) < len(seen)


def test_counts_fall_back_to_the_row_scan_past_a_word_or_with_the_colour_check() -> None:
    assert fits(generate({"size": 8, "frame_colours": 3, "inner_colours": 8}, 0), False)
    assert not fits(generate({"size": 9, "frame_colours": 3, "inner_colours": 8}, 0), False)
    assert not fits(generate({"size": 5, "frame_colours": 2, "inner_colours": 4}, 0), True)
