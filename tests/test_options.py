"""Declared options: conversion, unknown keys, the CLI's exit 2, and defaults that match the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import puzzlesat
from puzzlesat import core
from puzzlesat.core import Limits, Option, OptionError, PuzzlesatError
from puzzlesat.core.options import defaults, parse_pairs, resolve
from puzzlesat.core.run_options import for_strategies
from puzzlesat.encoders.dimacs import clause_count

ROOT = Path(__file__).resolve().parents[1]
E4 = ROOT / "instances" / "eternity" / "seed_4x4.txt"
# one small instance per puzzle, for the exportable formulations
SMALL = {
    "eternity": E4,
    "masyu": ROOT / "instances" / "masyu" / "seed_7x7.txt",
    "pegsol": ROOT / "instances" / "pegsol" / "english33_center.txt",
    "blacken": ROOT / "instances" / "blacken" / "seed_7x7.txt",
    "rubik": ROOT / "instances" / "rubik" / "scramble_8_seed1.txt",
}


def test_values_are_read_strictly() -> None:
    flag = Option("amo", bool, True, "")
    assert [flag.convert(v) for v in ("1", "yes", "off", "FALSE", True, 0)] == [True, True, False, False, True, False]
    number = Option("bits", int, None, "", low=1)
    assert number.convert("22") == 22 and number.convert(None) is None
    for bad in ("abc", "2.5", "３", "", " 3", "-3", "0"):
        with pytest.raises(OptionError):
            number.convert(bad)
    with pytest.raises(OptionError, match="expected one of htm, qtm"):
        Option("metric", str, "htm", "", choices=("htm", "qtm")).convert("foo")
    with pytest.raises(OptionError):
        Option("x", float, 1.0, "").convert("nan")


@given(st.integers(min_value=-(10**18) + 1, max_value=10**18 - 1))
def test_integers_round_trip(value: int) -> None:
    assert Option("n", int, 0, "").convert(str(value)) == value
    with pytest.raises(OptionError):  # 19 digits and more: no option needs them
        Option("n", int, 0, "").convert(str(value) + "0" * (19 - len(str(abs(value)))))


@given(st.text(alphabet=st.characters(whitelist_categories=("Nd",)), min_size=1, max_size=4))
def test_only_ascii_digits_are_numbers(text: str) -> None:
    if text.isascii():
        assert Option("n", int, 0, "").convert(text) == int(text)
    else:
        with pytest.raises(OptionError):
            Option("n", int, 0, "").convert(text)


def test_unknown_keys_name_the_valid_ones() -> None:
    declared = (Option("amo", bool, True, ""), Option("support", bool, True, ""))
    assert resolve(declared, {"amo": "0"}, "x") == {"amo": False, "support": True}
    with pytest.raises(OptionError, match="unknown option 'amoo' for x; valid options: amo, support"):
        resolve(declared, {"amoo": "1"}, "x")
    assert parse_pairs(["no-meet=1", "order=sym2"]) == {"no_meet": "1", "order": "sym2"}
    with pytest.raises(OptionError, match="expected KEY=VALUE"):
        parse_pairs(["amo"])


def test_cli_unknown_option_exits_2_with_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(E4), "-s", "cnf-heule", "-O", "amoo=1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "valid options: amo, count, forbidden, support, symmetry" in lines[0]


def test_python_unknown_option_raises() -> None:
    board = puzzlesat.load("eternity", E4)
    with pytest.raises(PuzzlesatError, match="valid options: amo, count, forbidden, support, symmetry$"):
        puzzlesat.solve(board, "cnf-heule", amoo=1)
    with pytest.raises(
        PuzzlesatError,
        match="for eternity native-rowscan; valid options: boards, breaks, checkpoint, colour_check, complete_cells, "
        "count, count_tree, fill, head_start, hint_ahead, ",
    ):
        puzzlesat.solve(board, "native-rowscan", amo=0)
    with pytest.raises(PuzzlesatError, match="valid options: none"):
        puzzlesat.solve(puzzlesat.load("blacken", SMALL["blacken"]), "bfs", amo=0)
    with pytest.raises(PuzzlesatError, match="unknown option 'size' for rubik generator; valid options: moves"):
        puzzlesat.generate("rubik", size=3)


@pytest.mark.parametrize(
    ("puzzle", "strategy", "valid"),
    [
        # the puzzle's modes a strategy does not serve are not offered (--count, --score, ...)
        ("eternity", "cpsat-table", "score, symmetry"),
        ("eternity", "maxsat-rc2", "score"),
        ("eternity", "cnf-heule:kissat404", "amo, forbidden, support, symmetry"),  # Kissat cannot count
        ("rubik", "cpsat-bmc", "canonical, horizon, max_depth, metric, tables"),
        (
            "rubik",
            "native-ida",
            "all, escalate_seconds, extra, max_depth, metric, parallel_from, plain_depth, progress, tables",
        ),
        ("masyu", "cpsat-lazy", "draw, unique, url"),
    ],
)
def test_a_refused_option_lists_only_what_the_strategy_serves(puzzle: str, strategy: str, valid: str) -> None:
    instance = puzzlesat.load(puzzle, SMALL[puzzle])
    with pytest.raises(OptionError, match=f"for {puzzle} {strategy}; valid options: {valid}$"):
        puzzlesat.solve(instance, strategy, bogus=1)


def test_a_mode_the_strategy_does_not_serve_is_refused_not_unknown() -> None:
    board = puzzlesat.load("eternity", E4)
    with pytest.raises(puzzlesat.UnsupportedRequest, match="cpsat-table does not serve --count"):
        puzzlesat.solve(board, "cpsat-table", count=True)
    assert puzzlesat.solve(board, "cpsat-table", count=False).status.value == "SOLVED"  # off: nothing asked


def test_a_race_lists_what_its_members_serve() -> None:
    puzzle = core.get_puzzle("eternity")
    with pytest.raises(OptionError, match="for eternity cpsat-table, maxsat-rc2; valid options: score, symmetry$"):
        for_strategies(puzzle, ["cpsat-table", "maxsat-rc2"], {"bogus": 1})
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlesat.cli",
            "compare",
            "eternity",
            str(E4),
            "--strategies",
            "cpsat-table",
            "-O",
            "twins=0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        "puzzlesat: unknown option 'twins' for eternity cpsat-table; valid options: score, symmetry"
    ]


def test_a_race_hands_each_member_only_its_own_options() -> None:
    puzzle = core.get_puzzle("eternity")
    board = puzzlesat.load("eternity", E4)
    # forbidden=1 belongs to cnf-heule; native-rowscan runs as if it were not there
    result = core.run_strategy(puzzle, board.data, "native-rowscan", Limits(options={"forbidden": True}))
    assert result.status.value == "SOLVED"
    with pytest.raises(OptionError):
        for_strategies(puzzle, ["native-rowscan"], {"forbidden": True})
    assert for_strategies(puzzle, ["native-rowscan", "cnf-heule"], {"forbidden": "1"})["forbidden"] is True


def test_a_race_leaves_each_member_its_own_defaults() -> None:
    # cnf-plan declares ordering as 0/1/2, cpsat-plan as a switch: a race fills in neither
    puzzle = core.get_puzzle("pegsol")
    race = ["cnf-plan:cadical195", "cpsat-plan"]
    assert "ordering" not in for_strategies(puzzle, race, {})
    small = puzzle.parse((ROOT / "instances" / "pegsol" / "rect6x4_hole_3_2.txt").read_text())
    for name in race:
        result = core.run_strategy(puzzle, small, name, Limits(timeout=30, options=for_strategies(puzzle, race, {})))
        assert result.status.value != "ERROR", result.message


@pytest.mark.parametrize(
    ("puzzle", "strategy"),
    [(p.name, s.name) for p in core.available_puzzles() for s in p.strategies if s.encoder or s.model],
)
def test_declared_defaults_are_the_formulations_own(puzzle: str, strategy: str) -> None:
    """Building with every declared default spelled out gives the formula built with none."""
    target = core.get_puzzle(puzzle)
    strat, _ = target.strategy(strategy)
    data = target.parse(SMALL[puzzle].read_text(), str(SMALL[puzzle]))
    spelled = defaults(strat.options + target.solve_options)
    if strat.encoder:
        build = core.load_target(strat.encoder)
        plain, full = build(data, {}), build(data, spelled)
        assert (plain.cnf.nv, clause_count(plain.cnf)) == (full.cnf.nv, clause_count(full.cnf))
    if strat.model:
        build = core.load_target(strat.model)
        plain, full = build(data, {})[0], build(data, spelled)[0]
        assert str(plain.proto) == str(full.proto) and len(str(plain.proto)) > 100


@pytest.fixture
def looked_up(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The strategy names :meth:`Puzzle.choose` resolves from here on (a Choice passed again is not one)."""
    names: list[str] = []
    choose = core.Puzzle.choose

    def counting(self: core.Puzzle, name: str | core.Choice) -> core.Choice:
        if isinstance(name, str):
            names.append(name)
        return choose(self, name)

    monkeypatch.setattr(core.Puzzle, "choose", counting)
    return names


def test_a_run_resolves_its_strategy_name_once(looked_up: list[str]) -> None:
    """``solve`` turns the name into a Choice once; the options, the refusal check, the run and
    the result's name all read that one object."""
    board = puzzlesat.load("eternity", ROOT / "instances" / "eternity" / "seed_4x4.txt")
    result = puzzlesat.solve(board, "cnf-heule@amo=0", timeout=60)
    assert result.status is core.Status.SOLVED
    assert result.strategy == "cnf-heule:cadical195@amo=0"
    assert looked_up == ["cnf-heule@amo=0"]


def test_a_portfolio_child_resolves_its_strategy_name_once(looked_up: list[str]) -> None:
    """A race's child (here in this process) loads the strategy and runs it from one Choice."""
    from puzzlesat.portfolio.child import ChildSpec, child_main

    class Pipe:
        """The sending end of a child's pipe: keeps what it is sent."""

        def __init__(self) -> None:
            self.sent: list[tuple[object, ...]] = []

        def send(self, message: tuple[object, ...]) -> None:
            self.sent.append(message)

        def close(self) -> None:
            pass

    board = puzzlesat.load("eternity", E4)
    pipe = Pipe()
    child_main(pipe, ChildSpec("eternity", board.data, "cnf-heule@amo=0", timeout=60))
    assert [message[0] for message in pipe.sent] == ["started", "loaded", "result"]
    result = pipe.sent[-1][1]
    assert isinstance(result, core.Result) and result.status is core.Status.SOLVED, result
    assert result.strategy == "cnf-heule:cadical195@amo=0"
    assert looked_up == ["cnf-heule@amo=0"]
