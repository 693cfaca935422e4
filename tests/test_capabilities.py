"""Declared capabilities: each strategy lists the modes it serves, and a request it cannot
serve is refused (exit 2 on the command line, UnsupportedRequest in Python), never answered
as another question; a race or comparison leaves such members out and says so."""

from __future__ import annotations

import io

import pytest
from clirun import run_cli

import puzzlesat
from puzzlesat import Status, UnsupportedRequest, api, core
from puzzlesat.domains import eternity

SEED = "instances/eternity/seed_4x4.txt"


@pytest.fixture(scope="module")
def imperfect(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 4x4 set with no perfect tiling; its best legal board matches 23 of 24 edges."""
    board = eternity.make_unsolvable(
        eternity.generate({"rows": 4, "cols": 4, "frame_colours": 2, "inner_colours": 5}, 0)
    )
    path = tmp_path_factory.mktemp("capabilities") / "imperfect.txt"
    path.write_text(eternity.write_instance(board))
    return str(path)


@pytest.mark.parametrize("puzzle", core.available_puzzles(), ids=lambda p: p.name)
def test_declared_modes_are_the_puzzles_flags(puzzle: core.Puzzle) -> None:
    flags = {opt.name for opt in puzzle.solve_options}
    assert set(puzzle.modes) <= flags
    for strat in puzzle.strategies:
        for mode in strat.modes:
            name, _, variant = mode.partition(":")
            assert name in puzzle.modes, (strat.name, mode)
            assert not variant or variant in strat.variants, (strat.name, mode)


def test_score_with_a_strategy_that_cannot_score_is_refused(imperfect: str) -> None:
    done = run_cli("solve", "eternity", imperfect, "--score", "-s", "cnf-heule")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "puzzlesat: eternity strategy cnf-heule:cadical195 does not serve --score; "
        "native-rowscan, cpsat-table, maxsat-rc2 can\n"
    )


def test_the_refusal_is_a_typed_value_error() -> None:
    board = puzzlesat.load("eternity", SEED)
    with pytest.raises(UnsupportedRequest, match="does not serve --count") as caught:
        puzzlesat.solve(board, "maxsat-rc2", count=True)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, puzzlesat.PuzzlesatError)
    cube = puzzlesat.load("rubik", "R U R' U'")
    with pytest.raises(UnsupportedRequest, match="cpsat-bmc does not serve --all; native-ida can"):
        puzzlesat.solve(cube, "cpsat-bmc", all=True)
    with pytest.raises(UnsupportedRequest, match="--extra"):
        puzzlesat.solve(cube, "cnf-bmc", extra=1)


def test_a_mode_at_its_default_is_no_request() -> None:
    cube = puzzlesat.load("rubik", "R U")
    result = puzzlesat.solve(cube, "cnf-bmc", all=False, extra=0, timeout=60)
    assert result.status is Status.OPTIMAL


def test_a_score_race_leaves_out_cnf_heule_and_says_so(imperfect: str) -> None:
    out = io.StringIO()
    board = puzzlesat.load("eternity", imperfect)
    result = puzzlesat.race(board, "native-rowscan,cnf-heule:cadical195", timeout=60, score=True, stream=out)
    assert "c left out cnf-heule:cadical195: not serving --score\n" in out.getvalue()
    assert result.status is Status.OPTIMAL and result.strategy == "native-rowscan"
    assert result.objective == 1


def test_a_race_where_no_member_serves_the_mode_is_refused(imperfect: str) -> None:
    done = run_cli("solve", "eternity", imperfect, "--score", "--portfolio", "cnf-heule,cnf-heule:glucose4")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "puzzlesat: eternity: none of cnf-heule, cnf-heule:glucose4 serves --score\n"


def test_compare_runs_only_the_strategies_that_serve_the_mode() -> None:
    out = io.StringIO()
    runs = api.compare("eternity", [SEED], "native-rowscan,cpsat-table", timeout=60, stream=out, count=True)
    assert [(r.strategy, r.status) for r in runs] == [("native-rowscan", "SOLVED")]
    assert "c left out cpsat-table: not serving --count" in out.getvalue()


def test_a_variant_can_lack_a_mode() -> None:
    done = run_cli("solve", "eternity", SEED, "--count", "-s", "cnf-heule:kissat404")
    assert done.returncode == 2 and "cnf-heule:kissat404 does not serve --count" in done.stderr
    listing = run_cli("list", "-v", "eternity").stdout
    assert "modes: count (not kissat404)" in listing and "modes: count, score" in listing


def test_list_verbose_shows_every_strategys_modes() -> None:
    listing = run_cli("list", "-v").stdout
    for puzzle in core.available_puzzles():
        if puzzle.modes:
            assert listing.count("      modes: ") >= len(puzzle.strategies)
    assert "modes: all, extra" in listing and "modes: unique" in listing
