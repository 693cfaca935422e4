"""Edge matching's ``--score --checkpoint FILE`` and ``--resume FILE``: the best board survives a
``kill -9`` whole, and a resumed run starts from it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from clirun import run_cli

from puzzlesat import api
from puzzlesat.core import PuzzlesatError, Status
from puzzlesat.domains import eternity
from puzzlesat.native.eternity import checkpoint as ck

ROOT = Path(__file__).resolve().parents[1]


def board_file(tmp_path: Path, size: int = 8, seed: int = 1) -> tuple[eternity.Instance, Path]:
    """A generated board with no perfect solution, written to ``board.txt``."""
    options = {"size": size, "frame_colours": 2, "inner_colours": size + 1}
    instance = eternity.make_unsolvable(eternity.generate(options, seed))
    path = tmp_path / "board.txt"
    path.write_text(eternity.write_instance(instance))
    return instance, path


def record_of(path: Path) -> dict[str, object]:
    line = next(line for line in path.read_text().splitlines() if line.startswith(ck.RECORD))
    return dict(json.loads(line[len(ck.RECORD) :]))


def test_sigkill_leaves_a_whole_board_and_resume_goes_on_from_it(tmp_path: Path) -> None:
    instance, path = board_file(tmp_path)
    saved = tmp_path / "best.txt"
    picture = tmp_path / "best.svg"  # the checkpoint's picture, beside it
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--score"]
    proc = subprocess.Popen(
        [*cmd, "--checkpoint", str(saved), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,  # its workers are killed with it
    )
    try:
        deadline = time.monotonic() + 90
        while not saved.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        time.sleep(1.5)  # a few better boards, some of them written
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    check = run_cli("check", "eternity", str(path), str(saved), "--score")  # the file is an answer as it is
    assert check.returncode == 0, check.stderr
    solution = eternity.parse_solution(instance, saved.read_text())
    assert solution is not None
    score = eternity.score(instance, solution)
    record = record_of(saved)
    assert record["score"] == score and record["runs"] == 1 and f"c score {score}/112" in check.stderr
    assert picture.read_text().startswith("<svg")
    # resumed: the saved board is the bound, so the answer is at least as good, and the file goes on
    # (long enough for the kernels to load on a loaded machine: within a shorter limit the
    # resumed board is the answer as it is, and the file is not written again)
    resumed = run_cli("solve", "eternity", str(path), "--score", "--resume", str(saved), "--timeout", "8")
    assert resumed.returncode in (0, 3), resumed.stderr
    answer = eternity.parse_solution(instance, resumed.stdout)
    assert answer is not None and eternity.verify(instance, answer, matching=False) == []
    assert eternity.score(instance, answer) >= score and "runs=2" in resumed.stderr
    after = record_of(saved)
    assert after["runs"] == 2 and after["score"] == eternity.score(instance, answer)
    assert float(after["seconds"]) > float(record["seconds"])  # type: ignore[arg-type]


def test_resume_refuses_another_instance_and_an_illegal_board(tmp_path: Path) -> None:
    instance, path = board_file(tmp_path, size=5)
    saved = tmp_path / "best.txt"
    result = api.solve(api.Instance("eternity", instance), timeout=3, score=True, checkpoint=str(saved))
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert eternity.parse_solution(instance, saved.read_text()) == result.solution  # the final board is written
    other = eternity.make_unsolvable(eternity.generate({"size": 5, "frame_colours": 2, "inner_colours": 6}, 9))
    with pytest.raises(PuzzlesatError, match="checkpoint of another instance"):
        api.solve(api.Instance("eternity", other), timeout=3, score=True, resume=str(saved))
    solution = result.solution
    assert solution is not None
    twice = [solution.placements[0], *solution.placements[:-1]]  # one tile twice
    broken = tmp_path / "broken.txt"
    broken.write_text(eternity.format_solution(instance, eternity.Solution(tuple(twice))))
    with pytest.raises(PuzzlesatError, match="broken.txt: not a legal board"):
        api.solve(api.Instance("eternity", instance), timeout=3, score=True, resume=str(broken))
    proc = run_cli("solve", "eternity", str(path), "--checkpoint", str(saved))
    assert proc.returncode == 2 and "add --score" in proc.stderr


def test_a_plain_answer_resumes_and_checkpoints_are_throttled(tmp_path: Path) -> None:
    instance, _ = board_file(tmp_path, size=6)
    start = api.solve(api.Instance("eternity", instance), timeout=3, score=True)
    plain = tmp_path / "answer.txt"
    plain.write_text(eternity.format_solution(instance, start.solution))
    resumed = api.solve(api.Instance("eternity", instance), timeout=3, score=True, resume=str(plain))
    assert resumed.solution is not None and resumed.objective <= start.objective
    assert resumed.stats["runs"] == 2  # a plain answer counts as one run before
    # at most one write a second: the second better board waits for a tick or the flush
    saved = tmp_path / "t.txt"
    record = ck.Record(ck.fingerprint(instance), 0, 0, 1, 0.0, 0)
    keeper = ck.Checkpoint(instance, str(saved), None, record)
    board = np.array(start.solution.placements)
    keeper.save(board, 5)
    first = saved.read_text()
    keeper.save(board, 4)
    assert saved.read_text() == first and keeper.dirty
    keeper.flush()
    assert record_of(saved)["score"] == eternity.max_score(instance) - 4 and not keeper.dirty


def test_the_picture_follows_the_board_with_its_mismatches_in_red(tmp_path: Path) -> None:
    instance, _ = board_file(tmp_path, size=6)
    saved = tmp_path / "best.txt"
    result = api.solve(api.Instance("eternity", instance), timeout=3, score=True, checkpoint=str(saved))
    assert result.solution is not None and ck.picture(str(saved)) == str(tmp_path / "best.svg")
    red = (tmp_path / "best.svg").read_text().count('stroke="#ff0000"')
    assert red == len(eternity.mismatches(instance, result.solution)) > 0
