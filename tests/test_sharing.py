"""Race members that share their best answer (``Limits.shared``): each takes a better answer
the race holds as its bound (and hint), so it never answers worse, and offers its own."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.core import Limits, Status, get_puzzle, run_strategy
from puzzlesat.core.incumbent import Incumbent
from puzzlesat.domains.eternity import Solution, max_score
from puzzlesat.domains.eternity.verify import score, verify

REPO = Path(__file__).resolve().parents[1]
BLACKEN = REPO / "instances" / "blacken" / "seed_7x7.txt"


@pytest.mark.parametrize("strategy", ["native-bb", "cpsat-steps"])
def test_blacken_members_take_and_offer_the_race_best(tmp_path, strategy):
    puzzle = get_puzzle("blacken")
    inst = ps.load("blacken", BLACKEN)
    alone = run_strategy(puzzle, inst.data, "native-bb", Limits(timeout=60))
    assert alone.status is Status.OPTIMAL
    race = Incumbent(tmp_path / "best", "other")
    assert race.offer(alone.objective, alone.solution)
    result = run_strategy(puzzle, inst.data, strategy, Limits(timeout=60, shared=race.as_member(strategy)))
    assert result.status is Status.OPTIMAL and result.objective == alone.objective
    best = race.best()
    assert best is not None and best.objective == alone.objective


def _pinned(tmp_path: Path, board: str, pin: str) -> ps.Instance:
    hints = tmp_path / "pin.txt"
    hints.write_text(pin + "\n")
    return ps.load("eternity", REPO / "instances" / "eternity" / board, hints=str(hints))


def test_cpsat_score_model_proves_the_race_best_board_optimal(tmp_path):
    """The model must beat the race's best board: finding none is CP-SAT's proof that it is optimal."""
    puzzle = get_puzzle("eternity")
    inst = _pinned(tmp_path, "peak_5x5_b3_m6_s0.txt", "1 2 2 1")
    options = {"score": True}
    first = run_strategy(puzzle, inst.data, "cpsat-table", Limits(timeout=60, options=options))
    assert first.status is Status.OPTIMAL and first.objective == 2  # 38/40
    race = Incumbent(tmp_path / "best", "other")
    race.offer(first.objective, first.solution)
    again = run_strategy(puzzle, inst.data, "cpsat-table", Limits(timeout=60, options=options, shared=race))
    assert again.status is Status.OPTIMAL and again.objective == first.objective
    assert again.solution == first.solution and "other" in again.message  # the race's board, proven
    assert again.stats["constraints"] == first.stats["constraints"] + 1  # the bound: score >= 39


def test_cpsat_score_model_beats_a_worse_race_board(tmp_path):
    puzzle = get_puzzle("eternity")
    inst = _pinned(tmp_path, "peak_5x5_b3_m6_s0.txt", "1 2 2 1")
    options = {"score": True}
    found = run_strategy(puzzle, inst.data, "native-rowscan", Limits(timeout=1, options=options, workers=1))
    placed = list(found.solution.placements)
    placed[8], placed[16] = placed[16], placed[8]  # two inner tiles swapped (the pin is at cell 6): a worse board
    worse = Solution(tuple(placed))
    errors = max_score(inst.data) - score(inst.data, worse)
    assert not verify(inst.data, worse, matching=False) and errors > found.objective
    race = Incumbent(tmp_path / "best", "other")
    race.offer(errors, worse)
    result = run_strategy(
        puzzle, inst.data, "cpsat-table", Limits(timeout=60, options=options, shared=race.as_member("cpsat"))
    )
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)  # a better board is easy: it is never the race's
    assert result.objective is not None and 2 <= result.objective < errors
    best = race.best()
    assert best is not None and best.objective == result.objective and best.source == "cpsat"  # offered


def test_a_better_race_answer_stops_the_cpsat_search_and_tightens_its_model(tmp_path):
    """CP-SAT takes no bound mid-search: a better board from the race stops it and a model that
    must beat that board is built (``restarts``)."""
    puzzle = get_puzzle("eternity")
    inst = _pinned(tmp_path, "peak_6x6_b3_m7_s0.txt", "1 2 2 1")  # CP-SAT proves nothing here in 60 s
    options = {"score": True}
    good = run_strategy(puzzle, inst.data, "native-rowscan", Limits(timeout=4, options=options, workers=1))
    assert good.objective is not None
    race = Incumbent(tmp_path / "best", "native")
    timer = threading.Timer(1.5, race.offer, (good.objective, good.solution))
    timer.start()
    try:
        result = run_strategy(
            puzzle, inst.data, "cpsat-table", Limits(timeout=4, options=options, shared=race.as_member("cpsat"))
        )
    finally:
        timer.cancel()
    best = race.best()
    assert best is not None and best.objective <= good.objective
    if best.source == "native":  # CP-SAT had no board as good by 1.5 s (it has none that good in 60 s)
        assert result.stats.get("restarts", 0) >= 1
        assert result.status is Status.UNKNOWN or result.objective < good.objective
