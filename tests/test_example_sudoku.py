"""The example plugin (examples/sudoku) installed with pip, and the commands its README shows.

It is installed into a folder of its own (``pip install --target``) that the commands get on
``PYTHONPATH``, so the environment's site-packages is left as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sudoku"
CLASSIC = str(EXAMPLE / "puzzles" / "classic.txt")
ANSWER = "534678912672195348198342567859761423426853791713924856961537284287419635345286179\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the plugin is installed into (built from a copy: the source tree stays clean)."""
    work = tmp_path_factory.mktemp("sudoku")
    source = shutil.copytree(EXAMPLE, work / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = work / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return target


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``puzzlesat ARGS`` with the plugin installed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    return subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT
    )


def test_list_shows_the_plugin_puzzle_and_strategy(site: Path) -> None:
    done = run(site, "list", "-v")
    assert done.returncode == 0 and done.stderr == ""
    assert "sudoku  (portfolio: cpsat-alldiff, cnf-onehot:cadical195)  [plugin puzzlesat-sudoku]" in done.stdout
    assert "  cpsat-element\n" in done.stdout and "[export cpsat, plugin puzzlesat-sudoku]" in done.stdout


def test_solve_each_strategy_and_refuse_what_one_does_not_serve(site: Path) -> None:
    for strategy in ("cpsat-alldiff", "cnf-onehot", "cnf-onehot:glucose4", "python-dfs"):
        done = run(site, "solve", "sudoku", CLASSIC, "-s", strategy)
        assert (done.returncode, done.stdout) == (0, ANSWER), done.stderr
    done = run(site, "solve", "sudoku", CLASSIC, "--unique", "-s", "cnf-onehot")
    assert done.stdout == ANSWER and "unique=True" in done.stderr
    done = run(site, "solve", "sudoku", CLASSIC, "--unique", "-s", "cpsat-alldiff")
    assert (done.returncode, done.stderr) == (
        2,
        "puzzlesat: sudoku strategy cpsat-alldiff does not serve --unique; cnf-onehot, python-dfs can\n",
    )


def test_generate_check_export_decode(site: Path, tmp_path: Path) -> None:
    puzzle, answer, cnf = tmp_path / "p.txt", tmp_path / "p.sol", tmp_path / "p.cnf"
    assert run(site, "generate", "sudoku", "--seed", "5", "-o", str(puzzle)).returncode == 0
    solved = run(site, "solve", "sudoku", str(puzzle), "--unique", "-s", "python-dfs", "-o", str(answer))
    assert solved.returncode == 0 and "unique=True" in solved.stderr  # the generator's puzzles are unique
    assert run(site, "check", "sudoku", str(puzzle), str(answer)).stderr == "OK\n"
    digits = answer.read_text().strip()
    wrong = digits[1] + digits[0] + digits[2:] if digits[0] != digits[1] else digits[::-1]
    answer.write_text(wrong + "\n")
    assert run(site, "check", "sudoku", str(puzzle), str(answer)).returncode == 1
    assert run(site, "export", "sudoku", str(puzzle), "-s", "cnf-onehot", "-o", str(cnf)).returncode == 0
    assert cnf.read_text().startswith("c ") and "p cnf 729 " in cnf.read_text()
    model = subprocess.run(
        [sys.executable, "-c", SOLVE_DIMACS, str(cnf)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    (tmp_path / "p.out").write_text(model)
    decoded = run(site, "decode", "sudoku", str(tmp_path / "p.out"), "--map", f"{cnf}.json")
    assert decoded.returncode == 0 and decoded.stdout.strip() == digits


SOLVE_DIMACS = """
import sys
from pysat.formula import CNF
from pysat.solvers import Solver
with Solver("minisat22", bootstrap_with=CNF(from_file=sys.argv[1]).clauses) as s:
    s.solve()
    print("s SATISFIABLE")
    print("v", " ".join(map(str, s.get_model())), "0")
"""


def test_race_and_compare_sudoku(site: Path) -> None:
    done = run(site, "solve", "sudoku", CLASSIC, "--portfolio", "--timeout", "60")
    assert done.stdout == ANSWER
    assert "c portfolio: 2 members" in done.stderr or "decided by the head start" in done.stderr
    done = run(site, "compare", "sudoku", CLASSIC, "--timeout", "60")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "| instance | cpsat-alldiff | cnf-onehot | python-dfs |"
    assert done.stdout.splitlines()[3] == "| solved | 1/1 | 1/1 | 1/1 |"


def test_compare_eternity_shows_the_plugin_beside_native_rowscan(site: Path) -> None:
    seed = str(ROOT / "instances/eternity/seed_4x4.txt")
    done = run(site, "compare", "eternity", seed, "--strategies", "native-rowscan,cpsat-element", "--timeout", "60")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "| instance | native-rowscan | cpsat-element |"
    assert done.stdout.splitlines()[3] == "| solved | 1/1 | 1/1 |"
    model = site / "seed_4x4.pb"
    done = run(site, "export", "eternity", seed, "-s", "cpsat-element", "--format", "cpsat", "-o", str(model))
    assert done.returncode == 0, done.stderr
    assert model.stat().st_size > 0


def test_the_python_api(site: Path) -> None:
    script = f"""
import puzzlesat
assert "sudoku" in puzzlesat.puzzles()
assert [s.name for s in puzzlesat.strategies("sudoku")] == ["cpsat-alldiff", "cnf-onehot", "python-dfs"]
board = puzzlesat.load("sudoku", {CLASSIC!r})
result = puzzlesat.solve(board, "cnf-onehot", unique=True)
print(result.status.value, result.stats["unique"], puzzlesat.format(board, result), end="")
print(puzzlesat.generate("sudoku", seed=1, givens=40).text.count(".") == 41)
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout == f"SOLVED True {ANSWER}True\n", done.stderr
