"""Every mistake a plugin can make stays contained: one line naming the plugin, the hook and the
exception, exit 2 on the command line (ERROR in a race or comparison), a PluginError in Python.

The plugin is ``faulty_plugin`` (this folder), a real one that misbehaves as ``$FAULTY`` asks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import faulty_plugin
import pytest

import puzzlesat
from puzzlesat import PluginError, Status, Strategy
from puzzlesat.core import ArgumentError, ArgumentTypeError, registry

ROOT = Path(__file__).resolve().parents[1]
E4 = str(ROOT / "instances" / "eternity" / "seed_4x4.txt")
PLUGIN = "plugin faulty_plugin:PUZZLE ($PUZZLESAT_PLUGINS)"


@pytest.fixture(scope="module")
def numbers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the instances 49 and 50 and the answers 7 and no solution."""
    folder = tmp_path_factory.mktemp("faulty")
    for name, text in (("n49", "49"), ("n50", "50"), ("a7", "7"), ("none", "SOLUTION NOT FOUND")):
        (folder / f"{name}.txt").write_text(text + "\n")
    return folder


def cli(*args: str, faulty: str = "") -> subprocess.CompletedProcess[str]:
    """The command line with the faulty plugin on, misbehaving as ``faulty`` says."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
        "PUZZLESAT_PLUGINS": "faulty_plugin:PUZZLE,faulty_plugin:STRATEGIES",
        "FAULTY": faulty,
    }
    command = [sys.executable, "-m", "puzzlesat.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)


def one_line(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The one stderr line of a run that exited with ``code`` and wrote nothing on stdout."""
    assert (done.returncode, done.stdout) == (code, ""), done
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr.strip()


@pytest.mark.parametrize(
    ("faulty", "verb", "line"),
    [
        ("parse:raise", ["solve", "faulty", "{n49}"], "parse raised ValueError: parse broke"),
        ("parse:exit", ["solve", "faulty", "{n49}"], "parse called sys.exit(4)"),
        ("format:raise", ["solve", "faulty", "{n49}"], "format raised ValueError: format broke"),
        ("verify:raise", ["solve", "faulty", "{n49}"], "verify raised ValueError: verify broke"),
        ("solve:raise", ["solve", "faulty", "{n49}"], "solve raised ValueError: solve broke"),
        ("solve:exit", ["solve", "faulty", "{n49}"], "solve called sys.exit(4)"),
        ("generator:raise", ["generate", "faulty"], "generator raised ValueError: generator broke"),
        ("encoder:raise", ["export", "faulty", "{n49}", "-s", "exact", "-o", "{out}"], "encoder raised ValueError"),
        (
            "model:raise",
            ["export", "faulty", "{n49}", "-s", "exact", "--format", "cpsat", "-o", "{out}"],
            "model builder raised ValueError: model broke",
        ),
        ("parse_solution:raise", ["check", "faulty", "{n49}", "{a7}"], "parse_solution raised ValueError"),
        ("", ["solve", "faulty", "{n49}", "-s", "gone"], "solve 'faulty_plugin_nowhere:solve' cannot be imported"),
        ("", ["solve", "faulty", "{n49}", "-s", "wrongtype"], "verifier rejected the answer: the answer is int"),
    ],
)
def test_a_hook_that_fails_is_one_line_naming_plugin_hook_and_exception(
    numbers: Path, tmp_path: Path, faulty: str, verb: list[str], line: str
) -> None:
    paths = {name: str(numbers / f"{name}.txt") for name in ("n49", "a7")}
    args = [arg.format(out=tmp_path / "out", **paths) for arg in verb]
    assert one_line(cli(*args, faulty=faulty)).startswith(f"puzzlesat: {PLUGIN}: {line}")


def test_a_failed_picture_keeps_the_answer(numbers: Path, tmp_path: Path) -> None:
    done = cli("solve", "faulty", str(numbers / "n49.txt"), "--svg", str(tmp_path / "x.svg"), faulty="draw:raise")
    assert (done.returncode, done.stdout) == (2, "7\n")
    assert done.stderr.splitlines()[-1] == f"puzzlesat: {PLUGIN}: draw raised ValueError: draw broke"


def test_a_builtin_puzzle_refuses_a_plugins_solution_of_the_wrong_type() -> None:
    line = one_line(cli("solve", "eternity", E4, "-s", "faulty-wrongtype"))
    assert "verifier rejected the answer: the answer is int, not puzzlesat.domains.eternity" in line


@pytest.mark.parametrize("hook", ["import", "parse", "solve"])
def test_a_plugins_prints_never_reach_stdout(numbers: Path, hook: str) -> None:
    done = cli("solve", "faulty", str(numbers / "n49.txt"), faulty=f"{hook}:print")
    assert (done.returncode, done.stdout) == (0, "7\n")
    assert f"{hook} chatters on stdout" in done.stderr


def test_a_plugin_that_exits_at_import_is_named_when_its_puzzle_is_asked_for(numbers: Path) -> None:
    line = one_line(cli("solve", "faulty", str(numbers / "n49.txt"), faulty="import:exit"))
    assert line.startswith("puzzlesat solve: argument puzzle: invalid choice: 'faulty'")
    assert f"; {PLUGIN}: cannot be imported: ImportError: the module called sys.exit(4)" in line


def test_an_unproved_infeasible_is_printed_as_a_claim(numbers: Path) -> None:
    done = cli("solve", "faulty", str(numbers / "n50.txt"))
    assert done.returncode == 1
    assert done.stdout == f"c INFEASIBLE claimed by {PLUGIN}, not proved " + (
        "(solve --certify checks a proof the strategy records)\n"
    )


def test_a_race_and_a_comparison_show_the_mistakes_as_errors(numbers: Path) -> None:
    n49, n50 = str(numbers / "n49.txt"), str(numbers / "n50.txt")
    raced = cli("solve", "faulty", n49, "--portfolio", "exact,wrongtype,gone", "--timeout", "60")
    assert (raced.returncode, raced.stdout) == (0, "7\n"), raced.stderr
    table = cli("compare", "faulty", n49, n50, "--strategies", "exact,wrongtype,gone", "--timeout", "60")
    assert table.stdout.splitlines()[2] == "| n49.txt | **0.00** | ERROR | ERROR |", table.stderr
    assert "solve 'faulty_plugin_nowhere:solve' cannot be imported" in table.stderr


def test_compare_takes_the_mode_flags_solve_takes(numbers: Path) -> None:
    line = one_line(cli("compare", "faulty", str(numbers / "n49.txt"), "--unique"))
    assert line == "puzzlesat: faulty: none of exact, wrongtype, gone serves --unique"


def test_list_names_a_strategy_for_a_puzzle_that_does_not_exist() -> None:
    done = cli("list", "-v")
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "puzzlesat: plugin faulty_plugin:STRATEGIES ($PUZZLESAT_PLUGINS): strategy 'faulty-orphan' is for "
        "puzzle 'nosuchpuzzle', which does not exist"
    ]
    assert "[export dimacs, export cpsat" in done.stdout and "[export wcnf]" in done.stdout  # maxsat-rc2


def test_check_of_a_no_solution_answer_says_what_check_does(numbers: Path) -> None:
    line = one_line(cli("check", "faulty", str(numbers / "n50.txt"), str(numbers / "none.txt")), code=1)
    assert "none.txt: the answer says there is no solution: check verifies solutions" in line


@pytest.fixture
def registered() -> Iterator[None]:
    """The faulty puzzle registered by this process, as a script would, and forgotten after."""
    puzzlesat.register_puzzle(faulty_plugin.PUZZLE)
    yield
    registry._script_puzzles.pop("faulty", None)


def test_in_python_every_mistake_is_a_plugin_error(registered: None, monkeypatch: pytest.MonkeyPatch) -> None:
    board = puzzlesat.load(faulty_plugin.PUZZLE, "49\n")  # the user's own object finds the registered one
    monkeypatch.setenv("FAULTY", "parse:raise,solve:exit,draw:raise,generator:raise")
    with pytest.raises(PluginError, match=r"^script puzzle faulty: parse raised ValueError: parse broke$"):
        puzzlesat.load("faulty", "49\n")
    with pytest.raises(PluginError, match=r"^script puzzle faulty: solve called sys.exit\(4\)$"):
        puzzlesat.solve(board)
    with pytest.raises(PluginError, match=r"draw raised ValueError"):
        puzzlesat.draw(board)
    with pytest.raises(PluginError, match=r"generator raised ValueError"):
        puzzlesat.generate("faulty", 0)
    with pytest.raises(PluginError, match=r"the answer is int, not faulty_plugin.Root$"):
        puzzlesat.solve(board, "wrongtype")
    monkeypatch.setenv("FAULTY", "")
    assert puzzlesat.solve(board).status is Status.SOLVED


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda: Strategy("", "m:f", "empty name"), ArgumentError, "strategy name ''"),
        (lambda: Strategy("a b", "m:f", "a space"), ArgumentError, "strategy name 'a b'"),
        (lambda: Strategy("x:y", "m:f", "a colon"), ArgumentError, "strategy name 'x:y'"),
        (lambda: Strategy("x", 42, "a number"), ArgumentTypeError, "strategy 'x': target must be"),
        (lambda: Strategy("x", "nocolon", "no colon"), ArgumentTypeError, "strategy 'x': target must be"),
        (lambda: Strategy("x", "m:f", "", encoder=3), ArgumentTypeError, "strategy 'x': encoder must be"),
        (lambda: Strategy("x", "m:f", "", engine="gpu"), ArgumentError, "strategy 'x': engine 'gpu' is not one of"),
    ],
)
def test_a_declaration_checks_its_names_and_functions(make: object, error: type, words: str) -> None:
    with pytest.raises(error, match=f"^{words}"):
        make()  # type: ignore[operator]


def test_a_puzzle_declaration_checks_its_functions() -> None:
    from dataclasses import replace

    with pytest.raises(ArgumentTypeError, match=r"^puzzle 'faulty': verify must be a function, got 42$"):
        replace(faulty_plugin.PUZZLE, verify=42)
    with pytest.raises(ArgumentError, match=r"^puzzle name ''"):
        replace(faulty_plugin.PUZZLE, name="")


def test_register_strategy_checks_the_puzzle_it_names() -> None:
    mine = Strategy("mine", faulty_plugin.solve, "a script's")
    with pytest.raises(ArgumentTypeError, match=r"^puzzle name: expected a str, got int$"):
        puzzlesat.register_strategy(mine, 42)  # type: ignore[arg-type]
    with pytest.raises(puzzlesat.BackendUnavailable, match=r"^unknown puzzle 'nosuch'"):
        puzzlesat.register_strategy(mine, "nosuch")


SCRIPT = """
import puzzlesat
from puzzlesat import Result, Status, Strategy
from faulty_plugin import PUZZLE, Root


def mine(instance, limits, variant):
    return Result(Status.SOLVED, Root(7))


if __name__ == "__main__":
    puzzlesat.register_puzzle(PUZZLE)
    board = puzzlesat.load("faulty", "49\\n")
    strategy = Strategy("mine", mine, "a top-level function of this script", puzzle="faulty")
    print(puzzlesat.race(board, [strategy], timeout=60).strategy)
    print([run.status for run in puzzlesat.compare("faulty", [board], [strategy], timeout=60)])
"""


def test_a_scripts_top_level_strategy_races_and_compares(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    done = subprocess.run(
        [sys.executable, "script.py"], capture_output=True, text=True, env=env, timeout=180, cwd=tmp_path
    )
    assert (done.returncode, done.stdout) == (0, "mine\n['SOLVED']\n"), done.stderr
