"""benchmarks/eternity_yardstick.py: another solver's boards read, completed and scored by our checker."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

from puzzlesat.domains.eternity import Instance, max_score, rotated, score, verify, write_instance

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "eternity_yardstick.py"


def yardstick() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eternity_yardstick", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def planted(size: int = 5, seed: int = 3) -> tuple[Instance, list[tuple[int, int]]]:
    """A board whose tile i lies on cell i turned turns[i]: (instance, that placement)."""
    rng = random.Random(seed)
    horizontal = [
        [rng.randint(1, 2) if r in (0, size - 1) else rng.randint(3, 6) for _ in range(size - 1)] for r in range(size)
    ]
    vertical = [
        [rng.randint(1, 2) if c in (0, size - 1) else rng.randint(3, 6) for c in range(size)] for _ in range(size - 1)
    ]
    tiles, board = [], []
    for r in range(size):
        for c in range(size):
            look = (
                vertical[r - 1][c] if r else 0,
                horizontal[r][c] if c < size - 1 else 0,
                vertical[r][c] if r < size - 1 else 0,
                horizontal[r][c - 1] if c else 0,
            )
            turn = rng.randrange(4)
            tiles.append(rotated(look, -turn))
            board.append((len(tiles) - 1, turn))
    return Instance(size, size, 7, tuple(tiles)), board


def url(instance: Instance, board: list[tuple[int, int] | None], letters: str) -> str:
    """The board as libblackwood's viewer address, its colour c written as letters[c]."""
    pieces = "".join(f"{p[0] + 1:03d}" if p else "000" for p in board)
    edges = "".join("".join(letters[x] for x in rotated(instance.tiles[p[0]], p[1])) if p else "aaaa" for p in board)
    return f"https://e2.bucas.name/#puzzle=X&board_w=5&board_h=5&board_pieces={pieces}&board_edges={edges}&motifs_order=x\n"


def test_url_boards_get_their_turns_from_their_letters_and_their_holes_filled_best() -> None:
    ys = yardstick()
    instance, board = planted()
    holes = [3, 4, 9, 12]  # two frame cells, a corner, an inner cell
    partial = [None if cell in holes else p for cell, p in enumerate(board)]
    (read,) = ys.read_boards(url(instance, partial, "agfedcb"), "url", instance)
    for cell, p in enumerate(partial):
        got = read[cell]
        assert (got is None) == (p is None)
        if p is not None and got is not None:
            assert got[0] == p[0] and rotated(instance.tiles[got[0]], got[1]) == rotated(instance.tiles[p[0]], p[1])
    solution = ys.complete(instance, read)
    assert verify(instance, solution, matching=False) == []
    assert score(instance, solution) == max_score(instance)  # the planted tiles fit the holes exactly


def test_a_board_the_tiles_cannot_show_is_an_error_not_a_board() -> None:
    ys = yardstick()
    instance, board = planted()
    text = url(instance, board, "agfedcb")
    wrong = text.replace("board_pieces=001002", "board_pieces=002001")  # two tiles swapped, letters kept
    try:
        ys.read_boards(wrong, "url", instance)
    except ValueError as exc:
        assert "cannot show" in str(exc)
    else:
        raise AssertionError("a swapped tile was read")


def test_jblackwood_rows_read_one_based_tiles_and_clockwise_turns() -> None:
    ys = yardstick()
    instance, board = planted()
    rows = [
        " ".join(f"{t + 1:3d}/{r}" if cell != 7 else "---/-" for cell, (t, r) in enumerate(board) if cell // 5 == y)
        for y in range(5)
    ]
    (read,) = ys.read_boards("\n".join(rows) + "\n\nhttps://example\n", "jblackwood", instance)
    assert read == [None if cell == 7 else p for cell, p in enumerate(board)]


def test_the_script_runs_a_solver_counts_only_its_new_boards_and_stops_it(tmp_path: Path) -> None:
    instance, board = planted()
    (tmp_path / "e.txt").write_text(write_instance(instance))
    results = tmp_path / "results"
    results.mkdir()
    old = url(instance, board, "abcdefg")
    (results / "old").write_text(old)  # there before the run: not counted
    writer = tmp_path / "solver.py"
    writer.write_text(f"import pathlib, time\npathlib.Path('results/new').write_text({old!r} * 2)\ntime.sleep(120)\n")
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "e.txt"), "--seconds", "3", "--cwd", str(tmp_path)]
        + ["--boards", "results/*", "--format", "url", "--from", str(max_score(instance) - 1)]
        + ["--", sys.executable, str(writer)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - start < 60  # the sleeping solver was killed, not waited for
    top = max_score(instance)
    assert f"| {top} | 2 | 1 |" in proc.stdout  # two boards read, one placement
    assert "boards read 2" in proc.stderr
