"""Edge matching's hunt at a fixed level (``--score --target N --boards DIR``): every board of the
level found and kept once, checked again before it is written, and the score search's answer
held at the time limit, compilation included, with the machine loaded."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from clirun import run_cli

from puzzlesat import api
from puzzlesat.core import PuzzlesatError, Status
from puzzlesat.domains import eternity
from puzzlesat.native.eternity import hunt as eh
from puzzlesat.native.eternity import score as es

ROOT = Path(__file__).resolve().parents[1]


def unsolvable(size: int, seed: int) -> eternity.Instance:
    """A generated square board with one tile's colour changed: no board matches every edge."""
    options = {"size": size, "frame_colours": 2, "inner_colours": size + 1}
    return eternity.make_unsolvable(eternity.generate(options, seed))


def board_file(tmp_path: Path, instance: eternity.Instance) -> Path:
    path = tmp_path / "board.txt"
    path.write_text(eternity.write_instance(instance))
    return path


def every_board(instance: eternity.Instance, target: int) -> set[tuple[tuple[int, ...], ...]]:
    """By brute force, every legal board of score ``target`` or more with the first corner tile
    top left (the score search keeps one board of each class of turns), as the colours each
    cell shows and its tile."""
    options = eternity.placements(instance)
    corner = eternity.first_corner(instance)
    found = set()

    def place(cell: int, used: frozenset[int], board: list[tuple[int, int]]) -> None:
        if cell == instance.cells:
            solution = eternity.Solution(tuple(board))
            if eternity.score(instance, solution) >= target:
                found.add(looks(instance, solution))
            return
        for tile, rot in options[cell]:
            if tile in used or (cell == 0 and corner is not None and tile != corner[0]):
                continue
            place(cell + 1, used | {tile}, [*board, (tile, rot)])

    place(0, frozenset(), [])
    return found


def looks(instance: eternity.Instance, solution: eternity.Solution) -> tuple[tuple[int, ...], ...]:
    """A board as each cell's tile and the colours it shows (a turn of a symmetric tile is the same board)."""
    return tuple((t, *eternity.rotated(instance.tiles[t], r)) for t, r in solution.placements)


@pytest.mark.parametrize(("seed", "below"), [(0, 1), (1, 2), (2, 3), (3, 0)])
def test_a_complete_hunt_finds_every_board_of_its_level_once(seed: int, below: int) -> None:
    """Without a time limit a hunt searches until its complete schedule is exhausted: its boards
    are exactly the legal boards of the level or better, each once (a brute force agrees)."""
    instance = unsolvable(3, seed)
    best = max(eternity.score(instance, eternity.Solution(b)) for b in _all_boards(instance))
    target = best - below
    result = api.solve(api.Instance("eternity", instance), "native-rowscan", score=True, target=target)
    found = [looks(instance, board) for board in result.boards]
    assert len(found) == len(set(found)), "a board kept twice"
    assert set(found) == every_board(instance, target)
    assert result.status is Status.OPTIMAL and eternity.score(instance, result.solution) == best
    assert result.stats["boards"] == len(found) and result.stats["target"] == target


def _all_boards(instance: eternity.Instance) -> list[tuple[tuple[int, int], ...]]:
    options = eternity.placements(instance)
    boards = []
    for choice in itertools.product(*(options[cell] for cell in range(instance.cells))):
        if len({tile for tile, _ in choice}) == instance.cells:
            boards.append(choice)
    return boards


def test_a_hunt_above_the_best_proves_there_is_no_such_board() -> None:
    instance = unsolvable(3, 0)
    best = max(eternity.score(instance, eternity.Solution(b)) for b in _all_boards(instance))
    result = api.solve(api.Instance("eternity", instance), "native-rowscan", score=True, target=best + 1)
    assert result.boards == [] and result.status is Status.FEASIBLE
    assert f"no board of score {best + 1} or more exists" in result.message


def test_each_board_is_written_once_checked_again_and_named_by_score(tmp_path: Path) -> None:
    instance = unsolvable(6, 1)
    search = es.ScoreSearch(instance, np.random.default_rng(0), es.SCHEDULES[0])
    board, errors = search.best.board, search.best.errors
    total = eternity.max_score(instance)
    hunt = eh.Hunt(instance, total - errors, str(tmp_path / "boards"))
    assert not hunt.add(board, errors + 1), "a board whose score is not the one reported"
    assert hunt.rejected == 1 and not list((tmp_path / "boards").iterdir())
    assert hunt.add(board, errors) and not hunt.add(board.copy(), errors)
    assert not hunt.add(board, errors + 1) and hunt.rejected == 1, "a board kept is known by its key, not checked again"
    illegal = board.copy()
    illegal[1] = illegal[0]
    assert not hunt.add(illegal, errors) and hunt.rejected == 2
    again = eh.Hunt(instance, total - errors, str(tmp_path / "boards"))  # a resumed hunt reads the folder
    assert again.before == 1 and not again.add(board, errors)
    (written,) = (tmp_path / "boards").iterdir()
    assert written.name.startswith(f"{total - errors}-") and eh.NAME.match(written.name)
    check = run_cli("check", "eternity", str(board_file(tmp_path, instance)), str(written), "--score")
    assert check.returncode == 0 and f"c score {total - errors}/{total}" in check.stderr


def test_a_search_remembers_the_last_boards_only_and_each_is_still_written_once(tmp_path: Path) -> None:
    """The search's memory of the boards it handed on is bounded (flat in a long run); a board
    it forgot and finds again goes to the hunt a second time, which drops it."""
    recent = eh.Recent(100)
    for i in range(1000):
        assert recent.add(f"{i:016x}")
    assert len(recent) == 100 and not recent.add(f"{999:016x}") and recent.add(f"{0:016x}")
    instance = unsolvable(6, 1)
    search = es.ScoreSearch(instance, np.random.default_rng(0), es.SCHEDULES[0])
    board, errors = search.best.board, search.best.errors
    hunt = eh.Hunt(instance, eternity.max_score(instance) - errors, str(tmp_path / "boards"))
    handed: list[str] = []
    search.hit_keys = eh.Recent(2)
    search.on_hit = lambda found, e: (handed.append(eh.key(found)), hunt.add(found, e))
    others = [np.roll(board, k, axis=0) for k in (1, 2)]  # other placements (not legal: the hunt rejects them)
    for found in (board, board, others[0], others[1], board):  # the second board is forgotten at others[1]
        search.hit(found, errors)
    assert handed == [eh.key(b) for b in (board, others[0], others[1], board)]
    assert len(search.hit_keys) == 2 and search.found == {errors: 5}
    assert len(list((tmp_path / "boards").iterdir())) == 1 and hunt.rejected == 2


@pytest.mark.parametrize(("workers", "timeout"), [("1", "10"), pytest.param("2", "20", marks=pytest.mark.slow)])
def test_cli_hunt_writes_its_boards_and_a_resumed_one_never_again(tmp_path: Path, workers: str, timeout: str) -> None:
    """Two runs into one folder, the second resumed from the first's checkpoint: every board is a
    legal board of its named score, at the level or better, and no placement is written twice.
    (Two workers take seconds to start on a loaded machine: a longer run, slow.)"""
    instance = unsolvable(7, 3)
    path = board_file(tmp_path, instance)
    boards, checkpoint = tmp_path / "boards", tmp_path / "cp.txt"
    target = eternity.max_score(instance) - 30  # any board a scan completes, nearly: the machine may be loaded
    runs = [
        ["--checkpoint", str(checkpoint)],
        ["--resume", str(checkpoint)],
    ]
    for extra in runs:
        proc = run_cli(
            "solve", "eternity", str(path), "--score", "--target", str(target), "--boards", str(boards),
            "--timeout", timeout, "--workers", workers, *extra,
        )  # fmt: skip
        assert proc.returncode in (0, 3), proc.stderr
        assert f"target={target}" in proc.stderr and "ladder=" in proc.stderr
    names = sorted(p.name for p in boards.iterdir())
    assert names, "no board of the level in two short runs"
    keys = [eh.NAME.match(name).group(2) for name in names]  # type: ignore[union-attr]
    assert len(keys) == len(set(keys)), "a board written twice"
    for name in names[:20]:
        solution = eternity.parse_solution(instance, (boards / name).read_text())
        assert solution is not None and eternity.verify(instance, solution, matching=False) == []
        assert eternity.score(instance, solution) == int(name.split("-")[0]) >= target


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--score", "--boards", "DIR"], "--boards keeps the boards of a hunt"),
        (["--target", "10"], "--target serves a --score run"),
        (["--score", "--target", "500"], "--target 500: this board has 84 edges"),
        (["--score", "--target", "10", "--boards", "FILE"], "not a folder"),
        (["--score", "--target", "10", "--boards", "/dev/null"], "not a folder"),
        (["--score", "--target", "0"], "expected at least 1"),
    ],
)
def test_cli_refuses_a_hunt_it_cannot_run_in_one_line(tmp_path: Path, flags: list[str], message: str) -> None:
    path = board_file(tmp_path, unsolvable(7, 1))
    (tmp_path / "FILE").write_text("keep me")
    flags = [str(tmp_path / f) if f in ("DIR", "FILE") else f for f in flags]
    proc = run_cli("solve", "eternity", str(path), "--timeout", "5", *flags)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""
    assert (tmp_path / "FILE").read_text() == "keep me"


def test_cli_refuses_a_fifo_as_the_boards_folder(tmp_path: Path) -> None:
    path = board_file(tmp_path, unsolvable(7, 1))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = run_cli("solve", "eternity", str(path), "--score", "--target", "10", "--boards", str(fifo), "--timeout", "5")
    assert proc.returncode == 2 and "not a folder" in proc.stderr and fifo.is_fifo()


@pytest.mark.parametrize("flag", ["--checkpoint", "--resume"])
def test_a_checkpoint_on_a_device_or_a_folder_is_refused_and_left_alone(tmp_path: Path, flag: str) -> None:
    path = board_file(tmp_path, unsolvable(5, 1))
    for target in ("/dev/null", str(tmp_path)):
        proc = run_cli("solve", "eternity", str(path), "--score", "--timeout", "3", flag, target)
        assert proc.returncode == 2 and ("not a regular file" in proc.stderr or "is a folder" in proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1
    assert Path("/dev/null").is_char_device() and not Path("/dev/null.svg").exists()


def test_python_hunt_refuses_a_target_above_the_board() -> None:
    with pytest.raises(PuzzlesatError, match="edges to match at most"):
        api.solve(api.Instance("eternity", unsolvable(4, 0)), "native-rowscan", score=True, target=500, timeout=5)


@pytest.fixture
def hog() -> object:
    """Two processes spinning on the CPU for the length of a test (the machine loaded)."""
    spin = [sys.executable, "-c", "while True: pass"]
    procs = [subprocess.Popen(spin) for _ in range(2)]
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_a_cold_cache_under_load_still_answers_a_legal_board_in_time(tmp_path: Path, hog: object, workers: str) -> None:
    """The time limit counts numba's compilation: with an empty kernel cache, beside a CPU hog,
    a 3 s run answers a legal board (made in plain Python, or by the search once it is ready),
    exit 3, within the limit and 5% and a second (the run's own wall time; the process's start-up
    and imports come before its clock starts)."""
    instance = unsolvable(8, 1)
    path = board_file(tmp_path, instance)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold")}
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--score", "--timeout", "3",
         "--workers", workers, "--checkpoint", str(tmp_path / "cp.txt")],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    solution = eternity.parse_solution(instance, proc.stdout)
    assert solution is not None and eternity.verify(instance, solution, matching=False) == []
    assert f"c score {eternity.score(instance, solution)}/112" in proc.stderr
    took = float(proc.stderr.split(": FEASIBLE in ")[1].split("s ")[0])
    assert took <= 3 * 1.05 + 1, proc.stderr


class _Waiting:
    """A pool whose messages are all waiting already: :func:`score._heard_ready` takes them."""

    def __init__(self, messages: list[tuple[object, ...]]) -> None:
        self.messages = messages

    def next(self, timeout: float | None = None) -> object:
        if not self.messages:
            raise TimeoutError
        return self.messages.pop(0)


def test_the_parent_takes_the_waiting_boards_in_one_go_each_once(tmp_path: Path) -> None:
    instance = unsolvable(6, 1)
    search = es.ScoreSearch(instance, np.random.default_rng(0), es.SCHEDULES[0])
    board, errors = search.best.board, search.best.errors
    search.level = errors
    search.hunt = eh.Hunt(instance, eternity.max_score(instance) - errors, str(tmp_path / "boards"))
    counts = search.counts()
    hits = [("hit", errors, board.copy(), worker, counts) for worker in (0, 1)]
    pool = _Waiting([*hits, ("done", 0, counts), ("done", 1, counts), ("count", 0, counts)])
    assert es._heard_ready(search, pool, 3) == 1 and len(pool.messages) == 2  # type: ignore[arg-type]
    assert es._heard_ready(search, pool, 3) == 1 and not pool.messages  # type: ignore[arg-type]
    assert search.hunt.stats({})["boards"] == 1 and len(list((tmp_path / "boards").iterdir())) == 1
