"""Race members that share their best answer (``Limits.shared``): each takes a better answer
the race holds as its bound (and hint), so it never answers worse, and offers its own."""

from __future__ import annotations

from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.core import Limits, Status, get_puzzle, run_strategy
from puzzlesat.core.incumbent import Incumbent

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


def test_cpsat_score_model_starts_from_the_race_best_board(tmp_path):
    puzzle = get_puzzle("eternity")
    pin = tmp_path / "pin.txt"
    pin.write_text("1 2 2 1\n")
    inst = ps.load("eternity", REPO / "instances" / "eternity" / "peak_5x5_b3_m6_s0.txt", hints=str(pin))
    options = {"score": True}
    first = run_strategy(puzzle, inst.data, "cpsat-table", Limits(timeout=3, options=options))
    assert first.status in (Status.FEASIBLE, Status.OPTIMAL) and first.objective is not None
    race = Incumbent(tmp_path / "best", "other")
    race.offer(first.objective, first.solution)
    again = run_strategy(puzzle, inst.data, "cpsat-table", Limits(timeout=3, options=options, shared=race))
    assert again.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert again.objective is not None and again.objective <= first.objective  # the bound holds from the start
    assert again.stats["constraints"] == first.stats["constraints"] + 1
