"""Every core by default: a strategy whose search splits gets the cores this process may run on
when no worker count is given, ``workers=1`` keeps one process, and a small board is settled
before any process is started."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import puzzlesat
from puzzlesat.core import arguments as check_arg
from puzzlesat.core import processes

pytestmark = pytest.mark.every_core
ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"


def test_the_default_is_every_core_of_the_affinity_for_a_strategy_that_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert check_arg.default_workers(True) == 3
    assert check_arg.default_workers(False) == 1


def test_solve_without_workers_uses_the_default_and_workers_1_keeps_one(monkeypatch: pytest.MonkeyPatch) -> None:
    board = puzzlesat.load("eternity", INSTANCES / "eternity" / "seed_4x4.txt")
    assert puzzlesat.solve(board, "native-rowscan").stats["workers"] == len(os.sched_getaffinity(0))
    assert puzzlesat.solve(board, "native-rowscan", workers=1).stats["workers"] == 1
    assert "workers" not in puzzlesat.solve(board, "cnf-heule").stats  # one process: nothing to say
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})  # a process narrowed to one core
    assert puzzlesat.solve(board, "native-rowscan").stats["workers"] == 1


# a head start long enough for a loaded machine (0.2 s to 1 s by default, in wall time)
LONG_HEAD = {"head_start": 30.0}


def _no_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting a pool fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a small board started processes")

    monkeypatch.setattr(processes, "TaskPool", refuse)


@pytest.mark.parametrize(
    ("puzzle", "file", "strategy", "knobs"),
    [
        ("eternity", "eternity/seed_4x4.txt", "native-rowscan", LONG_HEAD),
        ("pegsol", "pegsol/english33_center.txt", "native-dfs", LONG_HEAD),
        ("blacken", "blacken/seed_7x7.txt", "native-bb", LONG_HEAD),
        ("rubik", "rubik/scramble_8_seed1.txt", "native-ida", {}),
    ],
)
def test_a_small_board_is_settled_here_before_any_process(
    monkeypatch: pytest.MonkeyPatch, puzzle: str, file: str, strategy: str, knobs: dict[str, float]
) -> None:
    _no_processes(monkeypatch)
    board = puzzlesat.load(puzzle, INSTANCES / file)
    result = puzzlesat.solve(board, strategy, workers=2, timeout=60, **knobs)
    assert result.status.is_final, result.message
    assert result.stats["workers"] == 2


def test_the_score_search_settles_a_small_board_before_any_process(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_processes(monkeypatch)
    board = puzzlesat.load("eternity", INSTANCES / "eternity" / "seed_4x4.txt")
    result = puzzlesat.solve(board, "native-rowscan", workers=2, timeout=60, score=True, **LONG_HEAD)
    assert result.status is puzzlesat.Status.OPTIMAL


def test_list_v_and_the_stats_say_how_many_workers() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    listing = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "list", "-v"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    cores = len(os.sched_getaffinity(0))
    assert f"engine: native, splits over --workers (default: all {cores} cores)" in listing.stdout
    assert "engine: sat, one process" in listing.stdout
    board = str(INSTANCES / "eternity" / "seed_4x4.txt")
    for flags, workers in (([], cores), (["--workers", "1"], 1)):
        done = subprocess.run(
            [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", board, *flags],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert re.search(rf" workers={workers}\b", done.stderr), done.stderr
