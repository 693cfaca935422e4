"""The command line's parser stage by stage: each verb's flags come from the declarations."""

from __future__ import annotations

import argparse

import pytest

from puzzlesat import cli, cli_parser, core
from puzzlesat.core.arguments import TIMEOUT


def one_verb(stage: cli_parser.Stage, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv`` with a parser holding only the verb ``stage`` adds."""
    parser = cli_parser.Parser(prog="puzzlesat")
    stage(parser.add_subparsers(dest="command", required=True), argv)
    return parser.parse_args(argv)


def test_every_verb_has_a_stage_and_a_command() -> None:
    verbs = [stage.__name__.removeprefix("add_") for stage in cli_parser.STAGES]
    assert verbs == list(cli.COMMANDS)


def test_solve_stage_alone_reads_the_puzzles_flags() -> None:
    args = one_verb(cli_parser.add_solve, ["solve", "masyu", "x.txt", "--unique", "--timeout", "5"])
    assert (args.command, args.puzzle.name, args.file) == ("solve", "masyu", "x.txt")
    assert args.unique is True and args.timeout == 5.0
    assert {opt.name for opt in core.get_puzzle("masyu").solve_options} <= {opt.name for opt in args.declared}


def test_a_declared_flag_checks_its_value(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        one_verb(cli_parser.add_solve, ["solve", "masyu", "x.txt", "--timeout", "-1"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--timeout" in err[0]


def test_add_flags_makes_switches_values_and_lists() -> None:
    parser = cli_parser.Parser(prog="t")
    cli_parser.add_flags(parser, [TIMEOUT, cli_parser.JSON, cli_parser.PAIRS_FLAG])
    args = parser.parse_args(["--json", "-O", "a=1", "-O", "b=2", "--timeout", "1.5"])
    assert (args.json, args.option, args.timeout) == (True, ["a=1", "b=2"], 1.5)
    assert [opt.name for opt in args.declared] == ["timeout", "json", "option"]


def test_only_the_verbs_puzzles_are_built() -> None:
    assert cli_parser.puzzles_needed(["check", "masyu"], "solve") == []
    assert [p.name for p in cli_parser.puzzles_needed(["solve", "masyu"], "solve")] == ["masyu"]
    assert len(cli_parser.puzzles_needed(["solve", "--help"], "solve")) == len(core.available_puzzles())


def test_catalog_stage_sets_what_its_command_reads() -> None:
    args = one_verb(cli_parser.add_catalog, ["catalog", "pegsol", "--board", "french"])
    assert (args.puzzle, args.board, args.backend, args.workers) == ("pegsol", "french", "local", None)
