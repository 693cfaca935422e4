"""Edge matching's ``--count --checkpoint FILE`` and ``--resume FILE``: a count killed mid-way
resumes with only its unfinished tasks and ends with the count and nodes of one straight run;
a file that does not fit the run is refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from clirun import ROOT, run_cli

import puzzlesat
from puzzlesat import api
from puzzlesat.core import PuzzlesatError, Status
from puzzlesat.domains.eternity import verify
from puzzlesat.native.eternity import count_checkpoint as cc

# a count of several seconds on two free workers (a kill must land before its end), and its
# straight count: 58 boards, 1,842,337,665 nodes on tile1's tree (--workers 1 and 2 alike)
KILLED = {"seed": 6, "size": 7, "frame_colours": 3, "inner_colours": 7}
STRAIGHT = (58, 1_842_337_665)


def board_file(tmp_path: Path, name: str = "board.txt", **options: Any) -> tuple[puzzlesat.Instance, Path]:
    board = puzzlesat.generate("eternity", **options)
    path = tmp_path / name
    path.write_text(board.text)
    return board, path


def record_of(path: Path) -> dict[str, Any]:
    line = next(line for line in path.read_text().splitlines() if line.startswith(cc.COUNT))
    return dict(json.loads(line[len(cc.COUNT) :]))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    "options",
    [
        {"seed": 1, "size": 7, "frame_colours": 4, "inner_colours": 8},  # bitsets, the smallest tree
        {"seed": 1, "rows": 8, "cols": 9, "frame_colours": 6, "inner_colours": 16},  # 72 tiles: the row scan
    ],
)
def test_a_checkpointed_count_is_the_straight_count_and_records_every_task(
    options: dict[str, int], workers: int, tmp_path: Path
) -> None:
    board, _ = board_file(tmp_path, **options)
    straight = api.solve(board, count=True, workers=workers)
    saved = tmp_path / "count.txt"
    counted = api.solve(board, count=True, workers=workers, checkpoint=str(saved))
    assert counted.status is Status.SOLVED and counted.count == straight.count > 0, counted
    assert counted.stats["nodes"] == straight.stats["nodes"], (counted.stats, straight.stats)
    assert counted.stats["kernel"] == straight.stats["kernel"] and counted.stats.get("tree") == straight.stats.get(
        "tree"
    )
    assert not verify(board.data, counted.solution)
    record = record_of(saved)
    assert record["done"] == [[0, record["tasks"] - 1, record["found"], record["nodes"] - record["top_nodes"]]]
    # resuming a finished count answers at once, from the file alone
    again = api.solve(board, count=True, workers=workers, resume=str(saved))
    assert (again.count, again.stats["nodes"], again.stats["tasks_before"]) == (
        counted.count,
        record["nodes"],
        record["tasks"],
    )
    assert not verify(board.data, again.solution)


def test_a_count_killed_mid_way_resumes_to_the_count_and_nodes_of_a_straight_run(tmp_path: Path) -> None:
    board, path = board_file(tmp_path, **KILLED)
    saved = tmp_path / "count.txt"
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--count", "--workers", "2"]
    proc = subprocess.Popen([*cmd, "--checkpoint", str(saved)], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    done = 0
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if saved.exists() and (done := sum(b - a + 1 for a, b, _, _ in record_of(saved)["done"])) > 0:
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, at once
        proc.wait(timeout=30)
    record = record_of(saved)
    assert proc.returncode == -signal.SIGKILL and 0 < done < record["tasks"], (proc.returncode, record)
    resumed = api.solve(board, count=True, workers=2, resume=str(saved))
    assert resumed.status is Status.SOLVED and not verify(board.data, resumed.solution)
    assert (resumed.count, resumed.stats["nodes"]) == STRAIGHT, resumed.stats
    assert resumed.stats["tasks_before"] > 0 and resumed.stats["runs"] == 2
    assert record_of(saved)["nodes"] == STRAIGHT[1]


def test_a_count_stopped_at_its_time_limit_keeps_its_tasks_and_goes_on_from_them(tmp_path: Path) -> None:
    # about 430 M nodes and more: well past the time limit on one worker
    board, path = board_file(tmp_path, seed=1, size=8, frame_colours=4, inner_colours=9)
    saved = tmp_path / "count.txt"
    done = run_cli("solve", "eternity", str(path), "--count", "--workers", "1", "--timeout", "6",
                   "--checkpoint", str(saved))  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "") and "UNKNOWN" in done.stderr and str(saved) in done.stderr
    before = record_of(saved)
    assert before["done"] and before["nodes"] > before["top_nodes"]
    resumed = api.solve(board, count=True, workers=1, timeout=6, resume=str(saved))
    after = record_of(saved)
    assert resumed.status is Status.UNKNOWN and resumed.stats["tasks_before"] == sum(
        b - a + 1 for a, b, _, _ in before["done"]
    )
    assert (after["runs"], after["tree"], after["depth"]) == (2, before["tree"], before["depth"])
    assert after["nodes"] > before["nodes"] and after["found"] >= before["found"]


def _edited(saved: Path, **changes: object) -> None:
    record = record_of(saved) | changes
    lines = [
        cc.COUNT + json.dumps(record) if line.startswith(cc.COUNT) else line for line in saved.read_text().splitlines()
    ]
    saved.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[puzzlesat.Instance, Path, Path]:
    """A 7x7 board (its smallest tree is mirrored) and its finished count checkpoint."""
    tmp_path = tmp_path_factory.mktemp("count")
    board, path = board_file(tmp_path, seed=2, size=7, frame_colours=4, inner_colours=8)
    saved = tmp_path / "count.txt"
    assert api.solve(board, count=True, workers=1, checkpoint=str(saved)).status is Status.SOLVED
    return board, path, saved


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"kernel": "rowscan"}, "counted by the rowscan kernel"),
        ({"twins": False}, "twins=false, another tree"),
        ({"tree": "tile99"}, "none of this board's"),
        ({"instance": "0" * 16}, "another instance"),
        ({"depth": 3}, "differs from this run's"),
        ({"found": 99}, "add up to"),
        ({"done": [[5, 3, 0, 0]]}, "out of order"),
        ({"done": "all"}, "not a list"),
        ({"runs": -5}, "'runs' is -5"),
        ({"extra": 1}, "unknown field 'extra'"),
    ],
)
def test_a_file_that_does_not_fit_is_refused_in_one_line(
    finished: tuple[puzzlesat.Instance, Path, Path], tmp_path: Path, edit: dict[str, object], message: str
) -> None:
    board, path, saved = finished
    copy = tmp_path / "copy.txt"
    copy.write_text(saved.read_text())
    _edited(copy, **edit)
    with pytest.raises(PuzzlesatError, match=message):
        api.solve(board, count=True, workers=1, resume=str(copy))
    done = run_cli("solve", "eternity", str(path), "--count", "--resume", str(copy))
    assert done.returncode != 0 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and str(copy) in done.stderr, done.stderr


def test_corrupt_files_and_other_kinds_are_refused(
    finished: tuple[puzzlesat.Instance, Path, Path], tmp_path: Path
) -> None:
    board, _, saved = finished
    cut = tmp_path / "cut.txt"
    cut.write_text(saved.read_text()[:150])  # the record line cut short
    other, _ = board_file(tmp_path, "other.txt", seed=3, size=7, frame_colours=4, inner_colours=8)
    bad_board = tmp_path / "bad.txt"
    bad_board.write_text(saved.read_text().replace("\n0 ", "\n1 ", 1))
    score = tmp_path / "score.txt"
    api.solve(board, "native-rowscan", score=True, timeout=3, workers=1, checkpoint=str(score))
    for path, message in [
        (cut, "cut.txt"),
        (bad_board, "bad.txt"),
        (score, "a --score checkpoint, not a --count one"),
        (tmp_path / "absent.txt", "cannot read"),
    ]:
        with pytest.raises(PuzzlesatError, match=message):
            api.solve(board, count=True, workers=1, resume=str(path))
    with pytest.raises(PuzzlesatError, match="another instance"):
        api.solve(other, count=True, workers=1, resume=str(saved))
    with pytest.raises(PuzzlesatError, match="a --count checkpoint, not a --score one"):
        api.solve(board, "native-rowscan", score=True, timeout=3, workers=1, resume=str(saved))
    with pytest.raises(PuzzlesatError, match="not the first corner tile's"):
        api.solve(board, count=True, workers=1, resume=str(saved), count_tree="first")
    with pytest.raises(PuzzlesatError, match="colour_check"):
        api.solve(board, count=True, workers=1, checkpoint=str(tmp_path / "new.txt"), colour_check=True)
    with pytest.raises(PuzzlesatError, match="not with --backend ray"):
        api.solve(board, count=True, workers=1, checkpoint=str(tmp_path / "new.txt"), backend="ray")
    with pytest.raises(PuzzlesatError, match="or a --count run"):
        api.solve(board, "native-rowscan", workers=1, checkpoint=str(tmp_path / "new.txt"))


def test_the_tree_is_recorded_and_walked_again_on_resume(finished: tuple[puzzlesat.Instance, Path, Path]) -> None:
    board, _, saved = finished
    record = record_of(saved)
    assert record["tree"].endswith("-mirrored")
    resumed = api.solve(board, count=True, workers=1, resume=str(saved))
    assert (resumed.stats["tree"], resumed.stats["tree_nodes"]) == (record["tree"], 0)  # read, not picked again
    assert resumed.count == api.solve(board, count=True, workers=1).count


def test_sigterm_stops_a_checkpointed_count_with_its_tasks_written(tmp_path: Path) -> None:
    _, path = board_file(tmp_path, seed=1, size=8, frame_colours=4, inner_colours=9)
    saved = tmp_path / "count.txt"
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--count", "--workers", "2"]
    proc = subprocess.Popen([*cmd, "--checkpoint", str(saved)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not (saved.exists() and record_of(saved)["done"]):
            time.sleep(0.05)
        workers = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert (proc.returncode, out) == (1, "") and "interrupted" in err and str(saved) in err, err
    assert record_of(saved)["done"] and workers
    psutil.wait_procs(workers, timeout=10)
    assert not any(worker.is_running() for worker in workers)
