"""The completion of a partial board (native/eternity/completion.py) against brute force, the
Blackwood-style schedule (the ``breaks`` option) and a hunt that completes its restarts'
deepest boards."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from puzzlesat import api
from puzzlesat.core.options import OptionError
from puzzlesat.domains import eternity
from puzzlesat.native.eternity import completion
from puzzlesat.native.eternity import score as es
from puzzlesat.native.eternity.knobs import Knobs


def unsolvable(size: int, seed: int) -> eternity.Instance:
    options = {"size": size, "frame_colours": 2, "inner_colours": size + 1}
    return eternity.make_unsolvable(eternity.generate(options, seed))


def legal(instance: eternity.Instance, board: np.ndarray) -> bool:
    return not eternity.verify(instance, eternity.Solution(tuple(map(tuple, board.tolist()))), matching=False)


def errors_of(instance: eternity.Instance, board: np.ndarray) -> int:
    return len(eternity.mismatches(instance, eternity.Solution(tuple(map(tuple, board.tolist())))))


def brute_force(instance: eternity.Instance, board: np.ndarray, empty: np.ndarray) -> int:
    """The fewest unmatched edges of a legal board keeping ``board`` off ``empty``: every
    arrangement and turn of the tiles left."""
    tiles = sorted(set(range(len(instance.tiles))) - set(board[board[:, 0] >= 0, 0].tolist()))
    best = 1 << 30
    for order in itertools.permutations(tiles):
        for turns in itertools.product(range(4), repeat=len(empty)):
            full = board.copy()
            full[empty, 0], full[empty, 1] = order, turns
            if legal(instance, full):
                best = min(best, errors_of(instance, full))
    return best


@pytest.mark.parametrize(("size", "seed", "holes"), [(3, 0, 3), (4, 1, 3), (4, 2, 4), (5, 3, 3), (5, 4, 4)])
def test_the_completion_is_the_best_one_brute_force_agrees(size: int, seed: int, holes: int) -> None:
    """Cells emptied from a legal board (the score search's first, greedy board: it misses edges)
    are filled with the tiles taken off, a legal board missing as few edges as any filling."""
    instance = unsolvable(size, seed)
    search = es.ScoreSearch(instance, np.random.default_rng(seed), es.SCHEDULES[0])
    rng = np.random.default_rng(seed)
    board = search.best.board.copy()
    empty = np.sort(rng.choice(instance.cells, size=holes, replace=False))
    board[empty] = -1
    full, exhaustive = completion.complete(instance, search.look, board)
    assert exhaustive and legal(instance, full)
    assert (full[board[:, 0] >= 0] == board[board[:, 0] >= 0]).all(), "a placed cell changed"
    assert errors_of(instance, full) == brute_force(instance, board, empty)


def test_a_completion_out_of_nodes_still_gives_a_legal_board() -> None:
    instance = unsolvable(6, 0)
    search = es.ScoreSearch(instance, np.random.default_rng(0), es.SCHEDULES[0])
    board = search.best.board.copy()
    board[-8:] = -1
    full, exhaustive = completion.complete(instance, search.look, board, nodes=20)
    assert not exhaustive and legal(instance, full)


def test_a_hinted_cell_left_empty_gets_its_hint() -> None:
    instance = unsolvable(4, 5)
    search = es.ScoreSearch(instance, np.random.default_rng(0), es.SCHEDULES[0])
    board = search.best.board.copy()
    cell = 5
    hinted = dataclasses.replace(instance, hints=(eternity.Hint(int(board[cell, 0]), cell, int(board[cell, 1])),))
    board[[cell, 6, 9]] = -1
    full, _ = completion.complete(hinted, search.look, board)
    assert tuple(full[cell]) == (hinted.hints[0].tile, hinted.hints[0].rotation) and legal(hinted, full)


def test_the_breaks_schedule_allows_no_error_before_its_first_cell_and_its_budget_after() -> None:
    schedule = es.Schedule(points=((9, 0), (11, 4), (14, 99)))
    allowed = schedule.allowed(16, 6)
    assert allowed.tolist() == [0] * 10 + [2, 4, 6, 6, 6, 6]
    assert schedule.looser().complete
    assert es.schedules(Knobs.from_options({"breaks": "9:0,11:4"})) == (es.Schedule(points=((9, 0), (11, 4))),)
    knobs = Knobs(breaks=((199, 0), (240, 10)), complete_cells=12)
    assert Knobs.from_options(knobs.options()) == knobs and Knobs.from_options(Knobs().options()) == Knobs()
    with pytest.raises(OptionError, match="breaks"):
        Knobs.from_options({"breaks": "11:0,9:4"})
    with pytest.raises(OptionError, match="breaks"):
        Knobs.from_options({"breaks": "9-0"})


def test_the_scan_keeps_its_deepest_partial_board() -> None:
    """A restart's deepest board holds the first depths of the fill order, legal as far as it goes."""
    instance = unsolvable(6, 2)
    search = es.ScoreSearch(instance, np.random.default_rng(1), es.Schedule(points=((20, 0), (30, 2))))
    scan = es.Scan(search.cands, search.rng, search.schedule.allowed(instance.cells, 2))
    scan.run(20_000, np.array([3], dtype=np.int64))
    depth = int(scan.state.deep[0])
    board = scan.deepest()
    assert 0 < depth < instance.cells
    filled = np.flatnonzero(board[:, 0] >= 0)
    assert sorted(filled.tolist()) == sorted(search.cands.cell[:depth].tolist())
    assert len(set(board[filled, 0].tolist())) == depth
    full, _ = completion.complete(instance, search.look, board)
    assert legal(instance, full)


def test_a_blackwood_style_hunt_keeps_only_verified_boards_of_its_level() -> None:
    """A hunt with the ``breaks`` schedule and completions: each board it keeps is a legal board of
    the level or better, kept once."""
    instance = unsolvable(6, 1)
    target = eternity.max_score(instance) - 8
    options = {"breaks": "20:0,30:3", "complete_cells": 6, "restart_nodes": 5_000, "start_slack": 0}
    result = api.solve(
        api.Instance("eternity", instance), "native-rowscan", score=True, target=target, timeout=10, **options
    )
    assert result.boards, "no board of the level"
    keys = {b.placements for b in result.boards}
    assert len(keys) == len(result.boards)
    for board in result.boards:
        assert not eternity.verify(instance, board, matching=False) and eternity.score(instance, board) >= target
