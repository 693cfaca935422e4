"""Data flows one way: an instance carries its puzzle, looked up once at the edge (the command
line's parser, or the API's first call), and every later step takes it from there."""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import puzzlesat
from puzzlesat import api, cli, core
from puzzlesat.core import registry

ROOT = Path(__file__).resolve().parents[1]
E4 = ROOT / "instances" / "eternity" / "seed_4x4.txt"
M7 = ROOT / "instances" / "masyu" / "seed_7x7.txt"


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts the registry's look-ups of each puzzle name from here on."""
    seen: Counter[str] = Counter()
    real = registry.get_puzzle

    def counted(name: str) -> core.Puzzle:
        seen[name] += 1
        return real(name)

    monkeypatch.setattr(registry, "get_puzzle", counted)
    monkeypatch.setattr(core, "get_puzzle", counted)
    return seen


def test_a_solve_looks_its_puzzle_up_once(lookups: Counter[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["solve", "masyu", str(M7), "--url", "--json"])
    assert code == 0, err.getvalue()
    assert '"status": "SOLVED"' in out.getvalue() and "c puzz.link:" in err.getvalue()
    assert lookups == Counter(masyu=1)


def test_the_api_takes_the_puzzle_from_the_instance(lookups: Counter[str]) -> None:
    board = puzzlesat.load("eternity", E4)
    assert board.puzzle is core.get_puzzle("eternity") and repr(board).startswith("Instance('eternity', ")
    lookups.clear()
    result = puzzlesat.solve(board)
    puzzlesat.format(board, result)
    puzzlesat.draw(board, result)
    assert puzzlesat.notes(board, result, score=True) == ["c score 24/24"]
    assert puzzlesat.check(board, result) == []
    assert not lookups


def test_a_puzzle_object_is_taken_where_a_name_is() -> None:
    masyu = core.get_puzzle("masyu")
    grid = api.load(masyu, M7)
    assert grid.puzzle is masyu and api.Instance("masyu", grid.data) == api.Instance(masyu, grid.data)
    assert api.generate(masyu, 3, size=4).puzzle is masyu
    assert [s.name for s in api.strategies(masyu)] == [s.name for s in api.strategies("masyu")]


@pytest.mark.parametrize(
    ("call", "error", "names"),
    [
        (lambda: api.Instance(42, None), TypeError, "puzzle"),
        (lambda: api.Instance("nosuchpuzzle", None), ValueError, "unknown puzzle 'nosuchpuzzle'"),
        (lambda: api.notes(api.load("masyu", M7), None, metric="qtm"), ValueError, "unknown option 'metric'"),
        (lambda: api.notes(api.load("masyu", M7), 5), TypeError, "answer"),
    ],
)
def test_bad_arguments_are_refused_at_the_edge(call: Any, error: type[Exception], names: str) -> None:
    with pytest.raises(error, match=names):
        call()


def test_notes_say_what_the_puzzle_has_to_say() -> None:
    grid = api.load("masyu", M7)
    solved = api.solve(grid)
    assert api.notes(grid, solved) == []
    assert api.notes(grid, solved.solution, url=True)[0].startswith("c puzz.link: ")
    assert api.notes(grid, puzzlesat.Result(puzzlesat.Status.UNKNOWN), url=True) == []
