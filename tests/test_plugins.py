"""Plugins cannot break the house: a plugin that fails to import, reuses a name, or whose
answer its verifier rejects is one line naming it, and the rest keeps working; a script
registers a puzzle or a strategy, and one a child process cannot import is a one-line error.

The installed plugins here are a folder on ``PYTHONPATH`` holding a module and the
``.dist-info`` that pip would write for it (the real install is tests/test_example_sudoku.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import portfolio_fixtures
import pytest

import puzzlesat
from puzzlesat import PluginError, Status, Strategy
from puzzlesat.core import registry

ROOT = Path(__file__).resolve().parents[1]
SEED = str(ROOT / "instances/eternity/seed_4x4.txt")

PLUGIN = """
from dataclasses import replace

from puzzlesat import Result, Status, Strategy
from puzzlesat.domains.eternity import PUZZLE, Solution

def lie(instance, limits, variant):
    return Result(Status.SOLVED, Solution(tuple((t, 0) for t in range(instance.cells))))

def crash(instance, limits, variant):
    raise RuntimeError("boom")

LIAR = Strategy("liar", "fakeplug:lie", "claims every tile unturned in order", puzzle="eternity")
CRASHER = Strategy("crasher", "fakeplug:crash", "raises", puzzle="eternity")
TAKEN = Strategy("native-rowscan", "fakeplug:lie", "a name eternity already has", puzzle="eternity")
MISNAMED = replace(PUZZLE, name="misnamed", strategies=("fakeplug_gone:STRATEGY",))
"""

ENTRY_POINTS = """
[puzzlesat.puzzles]
broken = fakeplug_missing:PUZZLE
eternity = fakeplug:LIAR
misnamed = fakeplug:MISNAMED

[puzzlesat.strategies]
liar = fakeplug:LIAR
crasher = fakeplug:CRASHER
taken = fakeplug:TAKEN
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the module ``fakeplug`` and its distribution ``fakeplug`` 0.1."""
    folder = tmp_path_factory.mktemp("plugins")
    (folder / "fakeplug.py").write_text(textwrap.dedent(PLUGIN))
    info = folder / "fakeplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return folder


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line with the plugin folder on ``PYTHONPATH``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(folder)])}
    return subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", *args], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT
    )


def test_list_shows_the_working_plugins_and_one_line_per_broken_one(installed: Path) -> None:
    done = cli(installed, "list")
    assert done.returncode == 0, done.stderr
    assert "  liar\n" in done.stdout and "  crasher\n" in done.stdout and "plugin fakeplug" in done.stdout
    assert "rubik" in done.stdout and "Traceback" not in done.stderr
    lines = sorted(done.stderr.splitlines())
    assert len(lines) == 4, done.stderr
    assert lines[0].startswith("puzzlesat: plugin fakeplug (entry point broken = fakeplug_missing:PUZZLE): cannot be")
    assert "entry point eternity = fakeplug:LIAR): puzzle name 'eternity' is taken" in lines[1]
    assert lines[2] == (
        "puzzlesat: plugin fakeplug (entry point misnamed = fakeplug:MISNAMED): misnamed: strategies "
        "'fakeplug_gone:STRATEGY' cannot be imported: ModuleNotFoundError: No module named 'fakeplug_gone'"
    )
    assert "entry point taken = fakeplug:TAKEN): strategy name 'native-rowscan' is taken for eternity" in lines[3]


def test_a_plugin_that_fails_to_import_is_one_line(installed: Path) -> None:
    done = cli(installed, "solve", "broken", "x.txt")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("puzzlesat: plugin fakeplug (entry point broken = fakeplug_missing:PUZZLE)")
    assert "ModuleNotFoundError" in done.stderr and len(done.stderr.splitlines()) == 1


def test_builtins_keep_working_beside_broken_plugins(installed: Path) -> None:
    done = cli(installed, "solve", "eternity", SEED)
    assert done.returncode == 0 and done.stdout.count("\n") == 16


def test_a_rejected_or_crashing_plugin_answer_names_the_plugin(installed: Path) -> None:
    done = cli(installed, "solve", "eternity", SEED, "-s", "liar")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("puzzlesat: plugin fakeplug: verifier rejected the answer: ")
    assert len(done.stderr.splitlines()) == 1
    done = cli(installed, "solve", "eternity", SEED, "-s", "crasher")
    assert (done.returncode, done.stderr) == (2, "puzzlesat: plugin fakeplug: solve raised RuntimeError: boom\n")


def test_a_plugin_strategy_races_beside_the_builtins(installed: Path) -> None:
    done = cli(installed, "solve", "eternity", SEED, "--portfolio", "native-rowscan,liar", "--timeout", "60")
    assert done.returncode == 0, done.stderr
    assert "liar" in done.stderr


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Script registrations made by a test are forgotten after it."""
    puzzles, strategies = dict(registry._script_puzzles), {k: dict(v) for k, v in registry._script_strategies.items()}
    yield
    registry._script_puzzles.clear()
    registry._script_puzzles.update(puzzles)
    registry._script_strategies.clear()
    registry._script_strategies.update(strategies)


def test_a_script_registers_a_puzzle_and_every_verb_sees_it(clean_registry: None) -> None:
    puzzlesat.register_puzzle(portfolio_fixtures.PUZZLE)
    puzzlesat.register_puzzle(portfolio_fixtures.PUZZLE)  # the same again: nothing happens
    assert "fixture-root" in puzzlesat.puzzles()
    board = puzzlesat.load("fixture-root", "49")
    result = puzzlesat.solve(board, "exact")
    assert (result.status, puzzlesat.format(board, result)) == (Status.SOLVED, "7\n")
    assert puzzlesat.check(board, "7\n") == [] and puzzlesat.check(board, "6\n") != []
    raced = puzzlesat.race(board, "exact,hang", timeout=30)
    assert raced.status is Status.SOLVED and raced.strategy.startswith("exact")
    with pytest.raises(PluginError, match="puzzle name 'eternity' is taken"):
        puzzlesat.register_puzzle(replace(portfolio_fixtures.PUZZLE, name="eternity"))


def test_a_puzzle_names_its_strategies_and_reads_them_on_first_use(
    clean_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as the built-in puzzles do: each declaration sits in its formulation's module, named by module:attr
    (tmp_path / "declared_here.py").write_text(
        "from puzzlesat import Strategy\n"
        'DECLARED = Strategy("declared", "portfolio_fixtures:solve_exact", "the root", puzzle="fixture-named")\n'
        'ELSEWHERE = Strategy("elsewhere", "portfolio_fixtures:solve_exact", "the root", puzzle="eternity")\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    exact = portfolio_fixtures.PUZZLE.strategies[0]
    named = replace(portfolio_fixtures.PUZZLE, name="fixture-named", strategies=("declared_here:DECLARED", exact))
    assert "declared_here" not in sys.modules  # not imported by the declaration of the puzzle
    puzzlesat.register_puzzle(named)
    assert [s.name for s in puzzlesat.strategies("fixture-named")] == ["declared", "exact"]
    assert puzzlesat.solve(puzzlesat.load("fixture-named", "49")).strategy == "declared"  # the first: the default
    for attr, why in (
        ("nowhere:STRATEGY", "cannot be imported: ModuleNotFoundError"),
        ("declared_here:ELSEWHERE", "is not a Strategy of"),
    ):
        wrong = replace(portfolio_fixtures.PUZZLE, name="fixture-wrong", strategies=(attr,))
        with pytest.raises(PluginError, match=f"^fixture-wrong: .*{why}"):
            puzzlesat.register_puzzle(wrong)
    assert "fixture-wrong" not in puzzlesat.puzzles()


def test_a_strategy_object_goes_to_solve_race_and_compare(clean_registry: None) -> None:
    puzzlesat.register_puzzle(portfolio_fixtures.PUZZLE)
    mine = Strategy("mine", portfolio_fixtures.solve_exact, "the exact root, a script's own", puzzle="fixture-root")
    board = puzzlesat.load("fixture-root", "81")
    assert puzzlesat.solve(board, mine).solution == portfolio_fixtures.Root(9)
    assert "mine" in [s.name for s in puzzlesat.strategies("fixture-root")]
    assert puzzlesat.race(board, [mine], timeout=30).solution == portfolio_fixtures.Root(9)
    runs = puzzlesat.compare("fixture-root", [board], [mine, "exact"], timeout=30)
    assert [(r.strategy, r.status) for r in runs] == [("mine", "SOLVED"), ("exact", "SOLVED")], runs
    other = Strategy("mine", portfolio_fixtures.solve_liar, "another with the same name", puzzle="fixture-root")
    with pytest.raises(PluginError, match="strategy name 'mine' is taken for fixture-root"):
        puzzlesat.solve(board, other)


def test_a_strategy_a_child_cannot_import_is_one_line(clean_registry: None) -> None:
    def local(instance: object, limits: object, variant: object) -> None:
        return None

    lost = Strategy("lost", local, "defined inside a function", puzzle="eternity")
    board = puzzlesat.load("eternity", SEED)
    with pytest.raises(PluginError, match="^strategy lost for eternity: a child process cannot import "):
        puzzlesat.race(board, [lost, "native-rowscan"], timeout=30)
    with pytest.raises(PluginError, match="^script strategy lost: solve returned NoneType, not a puzzlesat.Result$"):
        puzzlesat.solve(board, lost)  # in this process it runs, and answers nothing


def test_the_environment_names_plugins_for_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "envplug.py").write_text(
        "from puzzlesat import Strategy\n"
        'MIRROR = Strategy("mirror", "puzzlesat.models.eternity:solve", "cpsat-table again", puzzle="eternity")\n'
        "NOTHING = 3\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path), str(ROOT / "tests")]),
        "PUZZLESAT_PLUGINS": "envplug:MIRROR, nowhere:X,envplug:NOTHING,portfolio_fixtures:PUZZLE",
    }

    def cli_env(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "puzzlesat.cli", *args]
        return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)

    listed = cli_env("list")
    assert "  mirror\n" in listed.stdout and "fixture-root" in listed.stdout
    assert listed.stderr.splitlines() == [
        "puzzlesat: plugin nowhere:X ($PUZZLESAT_PLUGINS): cannot be imported: ModuleNotFoundError: "
        "No module named 'nowhere'",
        "puzzlesat: plugin envplug:NOTHING ($PUZZLESAT_PLUGINS): is not a puzzlesat.Puzzle, Strategy or sequence "
        "of Strategies",
    ]
    table = cli_env("compare", "eternity", SEED, "--strategies", "mirror,native-rowscan", "--timeout", "60")
    assert table.stdout.splitlines()[0] == "| instance | mirror | native-rowscan |", table.stderr
    assert table.stdout.splitlines()[3] == "| solved | 1/1 | 1/1 |"
    raced = cli_env("solve", "fixture-root", "-", "--portfolio", "exact,hang", "--timeout", "60", stdin="49\n")
    assert (raced.returncode, raced.stdout) == (0, "7\n"), raced.stderr
