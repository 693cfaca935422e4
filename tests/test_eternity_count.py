"""``--count`` on edge matching: every solution once per class of the board's rotations.

The native kernel's count is checked against two independent ones: a brute force over the
tiles' permutations that groups the solutions into rotation classes itself (small boards),
and cnf-heule's blocking clauses, with and without its symmetry breaking.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from clirun import ROOT, run_cli

import puzzlesat
from puzzlesat.core import Status
from puzzlesat.domains.eternity import Instance, Solution, make_unsolvable, rotated, verify, with_hints

Board = tuple[tuple[int, int], ...]


def looks(instance: Instance, tile: int, cell: int) -> list[int]:
    """The turns of a tile that look different and put grey on the cell's frame sides (the smallest of each look)."""
    rim = set(instance.frame_sides(cell))
    return sorted(
        {
            normal(instance, tile, turn)
            for turn in range(4)
            if rim <= {s for s in range(4) if rotated(instance.tiles[tile], turn)[s] == 0}
        }
    )


def normal(instance: Instance, tile: int, turn: int) -> int:
    """The smallest turn that gives the tile the same look as ``turn``."""
    return min(r for r in range(4) if rotated(instance.tiles[tile], r) == rotated(instance.tiles[tile], turn))


def turned_board(instance: Instance, board: Board, quarter_turns: int) -> Board:
    """The board turned clockwise by quarter turns (two on a rectangle: the half turn)."""
    rows, cols = instance.rows, instance.cols
    for _ in range(quarter_turns):
        new: list[tuple[int, int]] = [(0, 0)] * len(board)
        for cell, (tile, turn) in enumerate(board):
            r, c = divmod(cell, cols)
            new[c * rows + (rows - 1 - r)] = (tile, normal(instance, tile, turn + 1))
        board, rows, cols = tuple(new), cols, rows
    return board


def brute_force(instance: Instance) -> tuple[int, int]:
    """(every solution, classes of rotations), by trying each tile on each cell of its kind."""
    frames = [len(instance.frame_sides(cell)) for cell in range(instance.cells)]
    kinds = {k: [t for t in range(instance.cells) if instance.grey_count(t) == k] for k in (0, 1, 2)}
    cells = {k: [c for c in range(instance.cells) if frames[c] == k] for k in (0, 1, 2)}
    solutions = set()
    for corner, side, inner in itertools.product(*(itertools.permutations(kinds[k]) for k in (2, 1, 0))):
        tiles: list[int] = [0] * instance.cells
        for k, order in ((2, corner), (1, side), (0, inner)):
            for cell, tile in zip(cells[k], order, strict=True):
                tiles[cell] = tile
        for turns in itertools.product(*(looks(instance, t, c) for c, t in enumerate(tiles))):
            board = tuple(zip(tiles, turns, strict=True))
            if not verify(instance, Solution(board)):
                solutions.add(board)
    steps = (1, 2, 3) if instance.square else (2,)
    classes = {min([board, *(turned_board(instance, board, q) for q in steps)]) for board in solutions}
    return len(solutions), len(classes)


def counts(board: puzzlesat.Instance) -> tuple[int | None, int | None, int | None, int]:
    """native, cnf-heule, cnf-heule without symmetry breaking, and the solutions that one found."""
    native = puzzlesat.solve(board, "native-rowscan", count=True)
    cnf = puzzlesat.solve(board, "cnf-heule", count=True)
    raw = puzzlesat.solve(board, "cnf-heule", count=True, symmetry=False)
    return native.count, cnf.count, raw.count, raw.stats["solutions"]


@pytest.mark.parametrize(
    ("rows", "cols", "frame", "inner", "seed"),
    [(3, 3, 2, 2, 0), (3, 3, 2, 2, 1), (3, 3, 1, 2, 2), (2, 3, 2, 1, 0), (2, 4, 2, 1, 1), (3, 2, 1, 1, 3)],
)
def test_count_matches_brute_force(rows: int, cols: int, frame: int, inner: int, seed: int) -> None:
    board = puzzlesat.generate("eternity", seed=seed, rows=rows, cols=cols, frame_colours=frame, inner_colours=inner)
    every, classes = brute_force(board.data)
    assert classes > 1
    assert every == classes * (4 if rows == cols else 2)  # no solution is its own rotation
    assert counts(board) == (classes, classes, classes, every)


@pytest.mark.parametrize(
    ("size", "frame", "inner", "seed"), [(4, 2, 2, 0), (4, 2, 2, 1), (5, 2, 6, 1), (5, 3, 5, 1), (5, 2, 8, 0)]
)
def test_count_matches_blocking_clauses(size: int, frame: int, inner: int, seed: int) -> None:
    board = puzzlesat.generate("eternity", seed=seed, size=size, frame_colours=frame, inner_colours=inner)
    native, cnf, raw, every = counts(board)
    assert native is not None and native > 1
    assert native == cnf == raw and every == 4 * native


def test_count_of_a_rectangle_matches_blocking_clauses() -> None:
    board = puzzlesat.generate("eternity", seed=2, rows=3, cols=5, frame_colours=2, inner_colours=3)
    native, cnf, raw, every = counts(board)
    assert native is not None and native > 1
    assert native == cnf == raw and every == 2 * native


@pytest.mark.parametrize("strategy", ["native-rowscan", "cnf-heule"])
def test_an_unsolvable_board_counts_zero_with_a_proof(strategy: str) -> None:
    board = puzzlesat.generate("eternity", seed=0, size=4, frame_colours=2, inner_colours=2)
    broken = puzzlesat.Instance("eternity", make_unsolvable(board.data))
    result = puzzlesat.solve(broken, strategy, count=True)
    assert (result.status, result.count, result.stats["solutions"]) == (Status.INFEASIBLE, 0, 0)
    assert puzzlesat.format(broken, result) == "0\n"


def test_a_count_carries_a_verified_board_and_prints_one_number() -> None:
    board = puzzlesat.load("eternity", ROOT / "instances" / "eternity" / "seed_4x4.txt")
    result = puzzlesat.solve(board, count=True)
    assert (result.status, result.count) == (Status.SOLVED, 640)
    assert puzzlesat.check(board, result.solution) == []
    assert puzzlesat.format(board, result) == "640\n"
    assert result.to_json(board.puzzle, board.data)["count"] == 640


def test_cli_count_prints_the_number_and_the_stats() -> None:
    done = run_cli("solve", "eternity", "instances/eternity/seed_4x4.txt", "--count")
    assert (done.returncode, done.stdout) == (0, "640\n")
    assert done.stderr.startswith("c native-rowscan: SOLVED") and "nodes=" in done.stderr
    done = run_cli("solve", "eternity", "instances/eternity/seed_4x4.txt", "--count", "--json")
    assert json.loads(done.stdout)["count"] == 640


def test_cli_count_at_the_time_limit_is_unknown_with_a_partial_count(tmp_path: Path) -> None:
    board = puzzlesat.generate("eternity", seed=0, size=8, frame_colours=1, inner_colours=1)  # astronomically many
    path = tmp_path / "many.txt"
    path.write_text(board.text)
    # every inner tile alike: with twins the count is one board times 3! 24! 36! labelings, at once
    done = run_cli("solve", "eternity", str(path), "--count")
    assert done.stdout == f"{math.factorial(3) * math.factorial(24) * math.factorial(36)}\n"
    done = run_cli("solve", "eternity", str(path), "--count", "--timeout", "5", "-O", "twins=0")
    assert (done.returncode, done.stdout) == (1, "")
    assert "UNKNOWN" in done.stderr and "solutions found before it" in done.stderr


@pytest.mark.parametrize("strategy", ["cpsat-table", "cnf-heule:kissat404"])
def test_strategies_that_cannot_count_refuse(strategy: str) -> None:
    done = run_cli("solve", "eternity", "instances/eternity/seed_4x4.txt", "--count", "-s", strategy)
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr
        == f"puzzlesat: eternity strategy {strategy} does not serve --count; native-rowscan, cnf-heule can\n"
    )


def test_brendan_set1_6x6_has_65_solutions(shared_instances: Path) -> None:
    """Brendan Owen's published count (about 1.5e7 nodes of a row scan)."""
    board = puzzlesat.load("eternity", shared_instances / "eternity/brendan_set1/brendan_06x06.txt")
    result = puzzlesat.solve(board, count=True, timeout=120)
    assert (result.status, result.count) == (Status.SOLVED, 65)
    assert 1e7 < result.stats["nodes"] < 2e7


def test_with_a_hint_every_board_that_keeps_it_counts() -> None:
    """A hint fixes the board's turn: no rotation is set aside, and the two counts still agree."""
    board = puzzlesat.generate("eternity", seed=1, size=4, frame_colours=2, inner_colours=2)
    plain = puzzlesat.solve(board, count=True)
    assert plain.solution is not None and plain.count is not None
    tile, turn = plain.solution.placements[5]  # an inner cell of a counted board
    hinted = puzzlesat.Instance("eternity", with_hints(board.data, f"{tile} 1 1 {turn}\n"))
    native, cnf, raw, every = counts(hinted)
    assert native is not None and 1 <= native < 4 * plain.count
    assert native == cnf == raw == every
