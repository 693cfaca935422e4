"""Edge matching's best score (``--score``): the native anytime search, CP-SAT, MaxSAT (RC2),
the weighted CNF export, the kernels' exact repairs, and the CLI's anytime answer."""

from __future__ import annotations

import hashlib
import itertools
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
from clirun import run_cli

from puzzlesat import api
from puzzlesat.core import Status
from puzzlesat.domains import eternity
from puzzlesat.native.eternity import score as es
from puzzlesat.native.eternity import score_kernel as kernel
from puzzlesat.native.eternity.knobs import Knobs

ROOT = Path(__file__).resolve().parents[1]
SCORE_STRATEGIES = ["native-rowscan", "cpsat-table", "maxsat-rc2"]


def unsolvable(size: int, seed: int, cols: int | None = None) -> eternity.Instance:
    """A generated board (``cols`` wide, default square) with one tile's colour changed: no board
    matches every edge."""
    options = {"rows": size, "cols": cols or size, "frame_colours": 2, "inner_colours": size + 1}
    return eternity.make_unsolvable(eternity.generate(options, seed))


def scored(instance: eternity.Instance, strategy: str, timeout: float = 20, **options: Any) -> tuple[Status, int]:
    """(status, score) of a --score run (with ``options``); the board is legal and keeps the hints."""
    result = api.solve(api.Instance("eternity", instance), strategy, timeout=timeout, score=True, **options)
    assert result.solution is not None, result.message
    assert eternity.verify(instance, result.solution, matching=False) == []
    assert result.objective == len(eternity.mismatches(instance, result.solution))
    return result.status, eternity.score(instance, result.solution)


@pytest.mark.parametrize(("size", "seed", "cols"), [(3, 0, None), (3, 1, None), (4, 0, None), (4, 2, None), (3, 0, 5)])
def test_every_score_strategy_proves_the_same_optimum_when_no_board_is_perfect(
    size: int, seed: int, cols: int | None
) -> None:
    instance = unsolvable(size, seed, cols)
    results = {name: scored(instance, name) for name in SCORE_STRATEGIES}
    assert {status for status, _ in results.values()} == {Status.OPTIMAL}, results
    best = {score for _, score in results.values()}
    assert len(best) == 1 and best.pop() < eternity.max_score(instance), results


def test_maxsat_rc2_without_score_answers_the_decision_question() -> None:
    board = api.Instance("eternity", unsolvable(3, 0))
    result = api.solve(board, "maxsat-rc2")
    assert result.status is Status.INFEASIBLE and "misses 1 edge" in result.message
    solvable = api.Instance("eternity", eternity.generate({"size": 3, "frame_colours": 2, "inner_colours": 3}, 1))
    solved = api.solve(solvable, "maxsat-rc2")
    assert solved.status is Status.SOLVED


def test_native_score_search_finds_a_perfect_board_of_a_solvable_5x5() -> None:
    instance = eternity.generate({"size": 5, "frame_colours": 3, "inner_colours": 6}, 3)
    status, score = scored(instance, "native-rowscan", timeout=30)
    assert (status, score) == (Status.OPTIMAL, eternity.max_score(instance))


def hinted_at_3_2() -> eternity.Instance:
    """A solvable 5x5 with one hint, at row 3, column 2 (cell 17), as its solution has it."""
    instance = eternity.generate({"size": 5, "frame_colours": 3, "inner_colours": 6}, 4)
    tile, rotation = api.solve(api.Instance("eternity", instance)).solution.placements[17]
    return eternity.with_hints(instance, f"{tile} 3 2 {rotation}")


@pytest.mark.parametrize("ahead", [0, 1, 2, 5])
def test_a_hints_row_is_filled_with_the_rows_above_it_column_by_column(ahead: int) -> None:
    """The hint's row 3 and ``ahead`` rows above it (at most to row 0), its first two columns
    row by row, then row 4 (the tail)."""
    cell, west_of, north_of = es.fill_order(hinted_at_3_2(), 1, Knobs(hint_ahead=ahead))
    top = max(3 - ahead, 0)
    band = [r * 5 + c for r in range(top, 4) for c in (0, 1)] + [r * 5 + c for c in range(2, 5) for r in range(top, 4)]
    assert cell.tolist() == list(range(top * 5)) + band + list(range(20, 25))
    assert (west_of < np.arange(25)).all() and (north_of < np.arange(25)).all()


def test_the_tail_is_four_rows_with_a_hint_in_the_last_five_five_without() -> None:
    """A hint in the last five rows makes the tail four rows; the setting, when given, rules."""
    board = eternity.generate({"size": 8, "frame_colours": 3, "inner_colours": 6}, 4)
    inner = next(t for t, sides in enumerate(board.tiles) if 0 not in sides)
    assert es.tail_rows(board) == 5
    assert es.tail_rows(eternity.with_hints(board, f"{inner} 2 2 0")) == 5
    assert es.tail_rows(eternity.with_hints(board, f"{inner} 3 2 0")) == 4
    assert es.tail_rows(eternity.with_hints(board, f"{inner} 3 2 0"), Knobs(tail_columns=6)) == 6


def test_the_cells_before_a_hint_take_tiles_that_fit_it_first() -> None:
    """The cells west and north of a hint have classes of their own, whose lists (every phase
    and key) put the tiles that match the hint's side first; every other row misses nothing."""
    cands = es.Candidates(hinted_at_3_2())
    depth = np.argsort(cands.cell)
    west, north = (int(cands.rows.classes[depth[cell]]) for cell in (16, 12))
    assert len({west, north}) == 2 and set(cands.cls[cands.miss > 0]) == {west, north}
    assert np.flatnonzero(cands.rows.ahead >= 0).tolist() == sorted(depth[[16, 12]])
    assert (cands.rows.ahead[depth[[16, 12]]] == depth[17]).all()
    off, order, _, _ = cands.arrays(np.random.default_rng(1))
    for k in (west, north):
        lists = [order[p][a:b] for p in range(4) for a, b in itertools.pairwise(off[p, k])]
        assert any(len(set(cands.miss[rows])) > 1 for rows in lists)
        assert all((np.diff(cands.miss[rows]) >= 0).all() for rows in lists)


def boards_found(cands: es.Candidates, allowed: np.ndarray, seed: int) -> tuple[list[tuple[int, list[int]]], int]:
    """Every board one scan finds, better and better, until it has searched everything: (errors,
    rows) of each, and the nodes it placed."""
    scan = es.Scan(cands, np.random.default_rng(seed), allowed.copy())
    best = np.array([len(allowed) * 4], dtype=np.int64)
    found, nodes = [], 0
    while True:
        status, done = scan.run(10_000, best)
        nodes += done
        if status == es.FOUND:
            found.append((int(best[0]), scan.state.best_placed.tolist()))
        elif status == es.EXHAUSTED:
            return found, nodes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_tile_that_misses_a_hint_ahead_is_placed_only_where_the_schedule_allows_the_error(seed: int) -> None:
    """Checking the hint's side at its west and north neighbours only cuts nodes: the same boards,
    in the same order, in fewer nodes than a scan that finds the mismatch at the hint."""
    cands = es.Candidates(hinted_at_3_2())
    allowed = es.Schedule(0.36, 1.0).allowed(25, 6)  # no error up to the hint (depth 15)
    found, nodes = boards_found(cands, allowed, seed)
    cands.rows = cands.rows._replace(ahead=np.full(25, -1, dtype=np.int64))
    unchecked, more = boards_found(cands, allowed, seed)
    assert found and found == unchecked and nodes < more


def test_native_score_search_keeps_the_hints() -> None:
    instance = eternity.generate({"size": 5, "frame_colours": 3, "inner_colours": 6}, 4)
    solved = api.solve(api.Instance("eternity", instance)).solution
    changed = eternity.make_unsolvable(instance)
    lines = [
        f"{tile} {cell // 5} {cell % 5} {rot}"
        for cell, (tile, rot) in enumerate(solved.placements)
        if cell in (0, 12, 18) and changed.tiles[tile] == instance.tiles[tile]
    ]
    hinted = eternity.with_hints(changed, "\n".join(lines))
    assert hinted.hints
    status, score = scored(hinted, "native-rowscan", timeout=10)
    assert status is Status.OPTIMAL and score < eternity.max_score(hinted)
    assert scored(hinted, "cpsat-table")[1] == score


@pytest.mark.parametrize("tail", [0, 2, 5])
def test_fill_order_places_west_and_north_neighbours_first(tail: int) -> None:
    instance = unsolvable(5, 0, 6)
    cell, west_of, north_of = es.fill_order(instance, tail)
    assert sorted(cell) == list(range(instance.cells))
    depth = np.argsort(cell)
    for d, at in enumerate(cell):
        r, c = divmod(int(at), instance.cols)
        assert west_of[d] == (depth[at - 1] if c > 0 else -1) and west_of[d] < d
        assert north_of[d] == (depth[at - instance.cols] if r > 0 else -1) and north_of[d] < d
        assert c == instance.cols - 1 or depth[at + 1] > d
        assert r == instance.rows - 1 or depth[at + instance.cols] > d
    if tail == 0:
        assert (cell == np.arange(instance.cells)).all()


@pytest.mark.parametrize(("size", "seed", "cols"), [(4, 0, None), (4, 2, None), (3, 0, 5)])
def test_native_score_search_proves_the_same_optimum_row_by_row_and_by_columns(
    size: int, seed: int, cols: int | None
) -> None:
    instance = unsolvable(size, seed, cols)
    by_columns = scored(instance, "native-rowscan")
    assert scored(instance, "native-rowscan", tail_columns=0) == by_columns
    assert by_columns[0] is Status.OPTIMAL


# restarts that start at the best board's bound, their candidate order random alone
AS_THE_TRACES_WERE_TAKEN = Knobs(start_slack=0, order_colours=0, hint_ahead=0, lead_columns=1, revisit=-1)


def scan_trace(
    instance: eternity.Instance, seed: int, schedule: es.Schedule, restarts: int, nodes: int
) -> tuple[int, int, bool, str, list[tuple[int, int]]]:
    """What row-scan restarts did: the best board's errors, the nodes, whether they proved it
    best, its digest, and the nodes and errors at each better board: equal searches, equal traces."""
    found: list[tuple[int, int]] = []
    search = es.ScoreSearch(instance, np.random.default_rng(seed), schedule, AS_THE_TRACES_WERE_TAKEN)
    search.on_improve = lambda board, errors: found.append((search.nodes, errors))
    for _ in range(restarts):
        search.scan(lambda: None, restart_nodes=nodes, one_restart=True)
    digest = hashlib.sha1(np.ascontiguousarray(search.best.board).tobytes()).hexdigest()[:12]
    return search.best.errors, search.nodes, search.proven, digest, found


# traces of the kernel as it was before it was made faster (main at 67cad56): it must search alike
SCAN_TRACES = [
    (
        (10, 3, None),
        1,
        es.SCHEDULES[0],
        3,
        300_000,
        (12, 900100, False, "d216978eb1b5", [(30785, 21), (30841, 16), (70005, 12)]),
    ),
    (
        (4, 2, 5),
        2,
        es.Schedule(1.0, 0.0),
        1,
        10**7,
        (1, 192619, True, "6f72d1b3dcc4", [(511, 8), (532, 7), (1491, 6), (4264, 5), (27564, 3), (187465, 1)]),
    ),
    (
        (5, 1, None),
        3,
        es.Schedule(0.5, 2.0),
        3,
        100_000,
        (1, 103429, False, "14ffc8225887", [(186, 6), (264, 5), (4985, 1)]),
    ),
]


@pytest.mark.parametrize(("board", "seed", "schedule", "restarts", "nodes", "trace"), SCAN_TRACES)
def test_row_scan_searches_as_it_always_did(
    board: tuple[int, int, int | None], seed: int, schedule: es.Schedule, restarts: int, nodes: int, trace: tuple
) -> None:
    """Restarts under a schedule, loosened to the complete one on a board it proves, and a
    complete scan (both sides unmatched too) place the same nodes and find the same boards."""
    assert scan_trace(unsolvable(*board), seed, schedule, restarts, nodes) == trace


def test_row_scan_searches_the_official_board_as_it_always_did(shared_instances: Path) -> None:
    """20 M nodes on the official 16x16 with its starter piece, late rows (one side unmatched) included."""
    folder = shared_instances / "eternity"
    board = api.load("eternity", folder / "e2_16x16.txt")
    starter = next(line for line in (folder / "e2_16x16_hints.txt").read_text().splitlines() if line.startswith("139"))
    instance = eternity.with_hints(board.data, starter)
    found = [(1198115, 48), (1204655, 43), (1205551, 39), (1206622, 37), (1207803, 35), (1207856, 34)]
    found += [(1207905, 33), (1209202, 32), (1213110, 30), (1272405, 28), (3641349, 26), (3645507, 23)]
    assert scan_trace(instance, 4, es.SCHEDULES[0], 2, 10_000_000) == (23, 20000256, False, "038ca6a8611b", found)
    found = [(5281346, 53), (5294698, 43), (5301458, 37), (5345414, 35), (5347684, 32), (6127436, 30)]
    found += [(6230220, 28), (7263583, 27), (7277874, 25)]
    assert scan_trace(instance, 5, es.Schedule(0.4, 3.5), 1, 10_000_000) == (25, 10000256, False, "16e31d843065", found)


@pytest.mark.parametrize("colours", [0, 2, 5])
def test_candidate_lists_put_tiles_showing_the_drawn_colours_first(colours: int) -> None:
    """Within every list (phase, class, key), tiles showing more drawn colours come first."""
    cands = es.Candidates(unsolvable(6, 1), Knobs(order_colours=colours))
    shows = cands.preference(np.random.default_rng(5))
    assert (shows.max() > 0) == (colours > 0)
    off, order, _, _ = cands.arrays(np.random.default_rng(5))  # the same draws first
    segments = 0
    for p, starts in enumerate(off.reshape(4, -1)):
        for start, end in itertools.pairwise(starts):
            if end > start + 1:
                segments += 1
                assert (np.diff(shows[order[p][start:end]].astype(np.int64)) <= 0).all()
    assert segments > 0


def test_restarts_above_the_best_offer_only_better_boards() -> None:
    """Restarts that start ``start_slack`` errors above the best (stepping stones) hand on only
    boards that beat it, each counted right, and still prove the optimum of a small board."""
    instance = unsolvable(6, 2)
    search = es.ScoreSearch(instance, np.random.default_rng(1), es.SCHEDULES[0], Knobs(start_slack=4))
    offered: list[tuple[int, int]] = []
    search.on_improve = lambda board, errors: offered.append((errors, es.board_errors(instance, search.look, board)))
    for _ in range(6):
        search.scan(lambda: None, restart_nodes=300_000, one_restart=True)
    errors = [given for given, _ in offered]
    assert len(errors) > 1 and errors == sorted(set(errors), reverse=True)
    assert all(given == counted for given, counted in offered)
    assert scored(unsolvable(4, 2), "native-rowscan")[0] is Status.OPTIMAL


def test_a_restart_spends_the_restart_nodes_of_its_knobs() -> None:
    """A restart and its revisit spend ``restart_nodes`` each."""
    search = es.ScoreSearch(unsolvable(12, 1), np.random.default_rng(1), es.SCHEDULES[0], Knobs(restart_nodes=50_000))
    before = search.nodes
    search.scan(lambda: None, one_restart=True)
    assert 0 < search.nodes - before <= 2 * 50_000 and search.restarts == 1


def completions(board: np.ndarray, cells: np.ndarray) -> Iterator[eternity.Solution]:
    """Every board that puts the tiles on ``cells`` back on them in any order and turn."""
    for tiles in itertools.permutations(board[cells, 0]):
        for turns in itertools.product(range(4), repeat=len(cells)):
            placed = board.copy()
            placed[cells, 0], placed[cells, 1] = tiles, turns
            yield eternity.Solution(tuple((int(t), int(r)) for t, r in placed))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_scan_below_a_kept_head_finds_the_best_completion_of_it(seed: int) -> None:
    """A scan that keeps a board's first depths never changes them, and its complete search
    (every error allowed) ends on the best legal completion of that head, as brute force finds
    it: the head's own errors are counted as the kernel counts them."""
    instance = unsolvable(4, seed)
    n = instance.cells
    cands = es.Candidates(instance)
    anything = np.full(n, 2 * n, dtype=np.int64)
    first = es.Scan(cands, np.random.default_rng(seed), anything.copy())
    assert first.run(10_000, np.array([4 * n]), double=True)[0] == es.FOUND
    keep = n - 4
    head = first.state.best_placed[:keep].copy()
    scan = es.Scan(cands, np.random.default_rng(seed + 1), anything.copy(), head)
    best = np.array([4 * n], dtype=np.int64)
    while (status := scan.run(10_000, best, double=True)[0]) == es.FOUND:
        assert (scan.state.best_placed[:keep] == head).all()
    assert status == es.EXHAUSTED
    boards = completions(first.board(), cands.cell[keep:])
    legal = [board for board in boards if not eternity.verify(instance, board, matching=False)]
    assert best[0] == min(len(eternity.mismatches(instance, board)) for board in legal)


def restarts_spent(instance: eternity.Instance, restarts: int, knobs: Knobs) -> tuple[list[int], list[tuple[int, int]]]:
    """The nodes of each of ``restarts`` restarts, and (errors given, errors counted) of every board offered."""
    search = es.ScoreSearch(instance, np.random.default_rng(1), es.SCHEDULES[0], knobs)
    offered: list[tuple[int, int]] = []
    search.on_improve = lambda board, errors: offered.append((errors, es.board_errors(instance, search.look, board)))
    spent = []
    for _ in range(restarts):
        before = search.nodes
        search.scan(lambda: None, one_restart=True)
        spent.append(search.nodes - before)
    return spent, offered


def test_a_restart_that_ends_near_the_best_revisits_its_head() -> None:
    """With ``revisit`` wide enough for every restart, a restart that found a board is followed by a
    search below its head (more nodes than the restart's own); boards are handed on only when
    better, each counted right.  With ``revisit`` -1 no restart spends more than its own."""
    spent = {}
    for revisit in (-1, 100):
        spent[revisit], offered = restarts_spent(unsolvable(8, 1), 4, Knobs(restart_nodes=100_000, revisit=revisit))
        errors = [given for given, _ in offered]
        assert errors == sorted(set(errors), reverse=True)
        assert all(given == counted for given, counted in offered)
    assert max(spent[-1]) <= 100_000 < max(spent[100]) <= 200_000


def test_a_revisit_spends_what_the_restarts_took_to_find_its_head() -> None:
    """A revisit may spend the nodes of the restarts since the last one (its schedules tried in
    turn while they run out), then the count starts again."""
    knobs = Knobs(restart_nodes=100_000, revisit=100)
    search = es.ScoreSearch(unsolvable(8, 1), np.random.default_rng(1), es.SCHEDULES[0], knobs)
    search.unrevisited = 900_000  # as if nine restarts before this one had ended far from the best
    before = search.nodes
    search.scan(lambda: None, one_restart=True)
    assert 200_000 < search.nodes - before <= 1_100_000
    assert search.revisits == 1 and search.unrevisited == 0


def test_workers_scan_with_the_knobs_of_their_caller() -> None:
    """A spawned worker takes its caller's knobs: restarts of 50 K nodes, hundreds in a second,
    where the default's 20 M would make a handful."""
    knobs = Knobs(restart_nodes=50_000)
    search = es.ScoreSearch(unsolvable(12, 1), np.random.default_rng(1), es.SCHEDULES[0], knobs)
    es.scan_in_processes(search, [1], time.perf_counter() + 8)  # a worker's start takes seconds when loaded
    assert search.restarts > 20 and search.nodes < 2 * 60_000 * search.restarts


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-O", "bogus=1"], "unknown option 'bogus'"),
        (["-O", "restart_nodes=12"], "expected at least 1000"),
        (["-O", "revisit_slacks=3;4"], "expected text like '3,4,5,6'"),
        (["-O", "schedules=0.35,2.5"], "expected text like '0.35:2.5,0.37:2.5'"),
        (["-O", "schedules=1.5:2"], "expected text like"),
        (["-O", "scan_share=2"], "expected at most 1"),
    ],
)
def test_a_knob_is_checked_at_the_edge_in_one_line(tmp_path: Path, options: list[str], message: str) -> None:
    path = tmp_path / "board.txt"
    path.write_text(eternity.write_instance(unsolvable(5, 1)))
    proc = run_cli("solve", "eternity", str(path), "--score", "--timeout", "2", *options)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


def test_knobs_read_back_from_their_options_and_reach_the_search() -> None:
    knobs = Knobs(restart_nodes=123_456, revisit_slacks=(2, 7), schedules=((0.3, 2.0), (1.0, 0.0)), tail_columns=3)
    assert Knobs.from_options(knobs.options()) == knobs
    assert Knobs.from_options({"restart_nodes": None, "twins": True}) == Knobs()
    assert es.schedules(knobs) == (es.Schedule(0.3, 2.0), es.Schedule(1.0, 0.0))
    listed = run_cli("list", "eternity", "-v").stdout
    restart_line = next(line for line in listed.splitlines() if "restart_nodes=int" in line)
    assert "(default 20000000)" in restart_line and "schedules=str (default 0.35:2.5,0.37:2.5)" in listed


def test_schedule_allows_errors_late_and_loosens_to_the_complete_one() -> None:
    schedule = es.Schedule(0.25, 2.0)
    allowed = schedule.allowed(16, 8)
    assert allowed[:12].sum() == 0 and allowed[-1] == 8 and (np.diff(allowed) >= 0).all()
    while not schedule.complete:
        schedule = schedule.looser()
    assert (schedule.allowed(16, 8) == 8).all()


def test_window_repair_is_exact_and_consistent() -> None:
    """Branch and bound over a 2x2 window in a fixed surround agrees with brute force."""
    rng = np.random.default_rng(0)
    m = 4
    for _ in range(4):
        looks = rng.integers(1, 4, size=(m, 4, 4))
        outside = rng.integers(1, 4, size=8)
        # cells 0 1 / 2 3: window neighbours as -2 - index, the surround as colours
        around = np.array(
            [
                [outside[0], -3, -4, outside[1]],
                [outside[2], outside[3], -5, -2],
                [-2, -5, outside[4], outside[5]],
                [-3, outside[6], outside[7], -4],
            ]
        )

        def cost(assign: list[tuple[int, int]], looks: np.ndarray = looks, around: np.ndarray = around) -> int:
            total = 0
            for j, (t, q) in enumerate(assign):
                for s in range(4):
                    a = int(around[j, s])
                    if a >= 0:
                        total += int(looks[t, q, s] != a)
                    elif -2 - a < j:
                        to, qo = assign[-2 - a]
                        total += int(looks[to, qo, (s + 2) % 4] != looks[t, q, s])
            return total

        best = min(
            cost(list(zip(p, qs, strict=True)))
            for p in itertools.permutations(range(m))
            for qs in itertools.product(range(4), repeat=m)
        )
        out = np.zeros(m, dtype=np.int64)
        got, _ = kernel.window_best(np.arange(m), around, looks, np.ones((m, m, 4), dtype=np.int64), 99, 10**6, out)
        assert got == best == cost([(int(o) // 4, int(o) % 4) for o in out])


def test_assignment_is_the_cheapest_permutation() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        cost = rng.integers(0, 9, size=(5, 5))
        to = kernel.assignment(cost)
        assert sorted(to) == list(range(5))
        best = min(sum(cost[i, p[i]] for i in range(5)) for p in itertools.permutations(range(5)))
        assert cost[np.arange(5), to].sum() == best


def test_neighbourhood_moves_never_lose_edges() -> None:
    instance = unsolvable(6, 2)
    look = es.looks(instance)
    rng = np.random.default_rng(2)
    search = es.ScoreSearch(instance, rng, es.SCHEDULES[0])
    board = search.best.board.copy()
    errors = search.best.errors
    moves = es.Neighbourhoods(instance, look, rng)
    for _ in range(200):
        errors -= moves.step(board)
        assert es.board_errors(instance, look, board) == errors
    solution = eternity.Solution(tuple((int(t), int(r)) for t, r in board))
    assert eternity.verify(instance, solution, matching=False) == []


def test_export_wcnf_writes_hard_and_soft_clauses(tmp_path: Path) -> None:
    board = api.Instance("eternity", unsolvable(3, 0))
    written = api.export(board, "maxsat-rc2", tmp_path / "p.wcnf", format="wcnf")
    text = (tmp_path / "p.wcnf").read_text()
    weights = [line.split()[0] for line in text.splitlines() if line and line[0] not in "cp"]
    assert weights.count("1") == eternity.max_score(board.data)  # one soft clause per edge
    assert written.clauses == len(weights)
    with pytest.raises(api.PuzzlesatError, match="exports --format wcnf"):
        api.export(board, "maxsat-rc2", tmp_path / "p.cnf", format="dimacs")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_cli_prints_the_best_board_at_the_time_limit(tmp_path: Path, workers: str) -> None:
    instance = unsolvable(7, 5)
    path = tmp_path / "board.txt"
    path.write_text(eternity.write_instance(instance))
    proc = run_cli("solve", "eternity", str(path), "--score", "--timeout", "3", "--workers", workers)
    assert proc.returncode in (0, 3), proc.stderr  # 0 only if the search proved its board best
    solution = eternity.parse_solution(instance, proc.stdout)
    assert solution is not None and eternity.verify(instance, solution, matching=False) == []
    assert f"c score {eternity.score(instance, solution)}/84" in proc.stderr
    answer = tmp_path / "answer.txt"
    answer.write_text(proc.stdout)
    check = run_cli("check", "eternity", str(path), str(answer), "--score")
    assert check.returncode == 0 and f"c score {eternity.score(instance, solution)}/84" in check.stderr


def _cpu(process: psutil.Process, children: bool) -> float:
    """CPU seconds of ``process`` itself, or of its children as they run."""
    try:
        targets = process.children() if children else [process]
        return sum(sum(p.cpu_times()[:2]) for p in targets)
    except psutil.Error:
        return 0.0


@pytest.mark.parametrize(("signum", "workers"), [(signal.SIGTERM, "1"), (signal.SIGTERM, "2"), (signal.SIGINT, "2")])
def test_cli_answers_the_best_board_on_sigterm_or_ctrl_c(tmp_path: Path, signum: int, workers: str) -> None:
    path = tmp_path / "board.txt"
    instance = unsolvable(8, 1)
    path.write_text(eternity.write_instance(instance))
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--score", "--workers", workers],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    busy = psutil.Process(proc.pid)
    while _cpu(busy, workers != "1") < 3 and proc.poll() is None:  # past the imports and the compilation
        time.sleep(0.2)
    children = busy.children(recursive=True)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    solution = eternity.parse_solution(instance, out)
    assert solution is not None and eternity.verify(instance, solution, matching=False) == []
    assert "interrupted" in err and f"c score {eternity.score(instance, solution)}/112" in err
    _, alive = psutil.wait_procs(children, timeout=5)
    assert not alive, f"workers left behind: {alive}"


@pytest.mark.slow
def test_official_board_scores_high_in_a_few_seconds(shared_instances: Path) -> None:
    """The official 16x16 with its starter piece: a legal board past 420 in 8 s."""
    folder = shared_instances / "eternity"
    board = api.load("eternity", folder / "e2_16x16.txt")
    starter = next(line for line in (folder / "e2_16x16_hints.txt").read_text().splitlines() if line.startswith("139"))
    instance = eternity.with_hints(board.data, starter)
    status, score = scored(instance, "native-rowscan", timeout=8)
    assert status is Status.FEASIBLE and score >= 420
