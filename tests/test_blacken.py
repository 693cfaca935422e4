"""Tests of blacken: formats, verifier, bounds, generator, and every strategy against BFS."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlesat import cli
from puzzlesat.core import InvalidInstanceError, Limits, ParseError, Status, run_strategy
from puzzlesat.domains import blacken as bl

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "instances" / "blacken" / "seed_7x7.txt"
SEED_SOL = ROOT / "instances" / "blacken" / "seed_7x7.sol"
SEED_WHITES = ((1, 3), (2, 3), (3, 3), (4, 1), (4, 5), (5, 3))
SEED_MOVES = ((3, 6), (5, 4), (5, 2), (3, 0), (4, 3), (0, 3))


@functools.cache
def bfs_moves(inst: bl.Instance) -> int:
    """The optimum by breadth-first search, computed once per board."""
    moves = bl.bfs_optimum(inst)
    assert moves is not None
    return len(moves)


def seed_instance() -> bl.Instance:
    return bl.parse(SEED.read_text(), str(SEED))


def small_boards(count: int) -> list[bl.Instance]:
    """Small random boards whose breadth-first search is quick."""
    boards = []
    for seed in range(count):
        k, q = 5 + seed % 2, 2 + seed % 4
        boards.append(bl.generate({"size": k, "whites": q, "components": min(q, 1 + seed % 3)}, seed))
    return boards


# formats


def test_seed_instance_parses_to_literal() -> None:
    assert seed_instance() == bl.Instance(7, SEED_WHITES)


def test_seed_answer_round_trip() -> None:
    inst = seed_instance()
    text = SEED_SOL.read_text()
    sol = bl.parse_solution(inst, text)
    assert sol is not None
    assert sol.moves == SEED_MOVES and sol.claimed == 6
    assert bl.verify(inst, sol) == []
    assert bl.format_solution(inst, bl.Solution(SEED_MOVES)) == text


def test_write_instance_round_trip() -> None:
    inst = seed_instance()
    assert bl.write_instance(inst) == SEED.read_text()
    assert bl.parse(bl.write_instance(inst)) == inst


def test_headerless_file_takes_smallest_board() -> None:
    inst = bl.parse("4,2\n4,3\n4,4\n2,5\n6,5\n4,6\n", "f")
    assert inst.whites == SEED_WHITES and inst.size == 7


def test_wide_move_numbers_are_right_aligned() -> None:
    inst = bl.generate({"size": 12, "whites": 25, "components": 5}, 0)
    answer = bl.greedy(inst)
    assert answer is not None and len(answer) >= 10
    rows = bl.draw(inst, answer)
    assert len(rows) == 12 and all(len(row) == 24 for row in rows)
    r, c = answer[9]
    assert rows[r][2 * c : 2 * c + 2] == "10"
    r, c = answer[0]
    assert rows[r][2 * c : 2 * c + 2] == " 1"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty input"),
        ("7\n4,2\n", "expected 'k q'"),
        ("7 1\n1,4\n", "frame"),
        ("7 1\n9,4\n", "off the 7x7 board"),
        ("7 2\n4,2\n4,2\n", "already given"),
        ("7 3\n4,2\n4,3\n", "header says 3"),
        ("7 1\n4;x\n", "expected 'x,y'"),
        ("2 0\n", "at least 3"),
    ],
)
def test_parse_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ParseError, match=fragment) as info:
        bl.parse(text, "bad.txt")
    assert str(info.value).startswith("bad.txt:")


def test_parse_solution_rejects_garbage() -> None:
    inst = seed_instance()
    with pytest.raises(ParseError, match="The result is"):
        bl.parse_solution(inst, "result 6\n", "s")
    with pytest.raises(ParseError, match="x: X y: Y"):
        bl.parse_solution(inst, "The result is 1.\nx=4 y=1\n", "s")


# verifier


def test_verifier_rejects_placement_not_next_to_white() -> None:
    problems = bl.verify(seed_instance(), bl.Solution(((0, 0), *SEED_MOVES)))
    assert any("no white stone next to it" in p for p in problems)


def test_verifier_rejects_placement_on_a_stone() -> None:
    problems = bl.verify(seed_instance(), bl.Solution(((1, 3), *SEED_MOVES)))
    assert any("already holds a stone" in p for p in problems)
    problems = bl.verify(seed_instance(), bl.Solution((SEED_MOVES[0], SEED_MOVES[0], *SEED_MOVES[1:])))
    assert any("already holds a stone" in p for p in problems)


def test_verifier_rejects_a_wrong_flip() -> None:
    inst = seed_instance()
    text = SEED_SOL.read_text().replace(" B 5 B ", " W 5 B ")
    sol = bl.parse_solution(inst, text)
    assert sol is not None
    problems = bl.verify(inst, sol)
    assert any("board row y=5" in p for p in problems)
    # and a drawing claiming a flip that did not happen
    text = SEED_SOL.read_text().replace("       \n", "  B    \n")
    sol = bl.parse_solution(inst, text)
    assert sol is not None and any("board row y=7" in p for p in bl.verify(inst, sol))


def test_verifier_rejects_unfinished_and_miscounted() -> None:
    inst = seed_instance()
    assert any("white stone(s) left" in p for p in bl.verify(inst, bl.Solution(SEED_MOVES[:-1])))
    assert any("result line says 5" in p for p in bl.verify(inst, bl.Solution(SEED_MOVES, claimed=5)))


def test_board_push_pop_follows_reversi_rule() -> None:
    board = bl.Board(seed_instance())
    assert board.push((3, 6)) == []
    assert board.push((5, 4)) == [(4, 5)]  # diagonal run ending at the first stone
    assert board.push((4, 3)) == []  # a run ending on an empty cell does not flip
    board.pop()
    assert board.whites_left == 5 and board.at((4, 3)) == bl.EMPTY


# bounds and generator


def test_seed_bounds() -> None:
    inst = seed_instance()
    assert bl.lower_bound(inst) == 4
    assert bl.upper_bound(inst) == 12
    answer = bl.greedy(inst)
    assert answer is not None and bl.verify(inst, bl.Solution(answer)) == []


def test_generator_shapes() -> None:
    for seed in range(5):
        inst = bl.generate({"size": 10, "whites": 15, "components": 5}, seed)
        assert inst.q == 15 and len(bl.components(inst.whites)) == 5
        assert all(1 <= r <= 8 and 1 <= c <= 8 for r, c in inst.whites)
        assert inst == bl.generate({"size": 10, "whites": 15, "components": 5}, seed)


def test_generator_rejects_impossible() -> None:
    with pytest.raises(InvalidInstanceError):
        bl.generate({"size": 5, "whites": 2, "components": 3}, 0)
    with pytest.raises(InvalidInstanceError):
        bl.generate({"size": 4, "whites": 5, "components": 1}, 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(5, 12), st.integers(1, 12), st.integers(1, 4), st.integers(0, 10**6))
def test_generate_then_round_trip(size: int, q: int, groups: int, seed: int) -> None:
    try:
        inst = bl.generate({"size": size, "whites": q, "components": min(q, groups)}, seed)
    except InvalidInstanceError:
        return
    assert bl.parse(bl.write_instance(inst)) == inst
    answer = bl.greedy(inst, seed, tries=2)
    if answer is not None:
        sol = bl.Solution(answer)
        assert bl.verify(inst, sol) == []
        again = bl.parse_solution(inst, bl.format_solution(inst, sol))
        assert again is not None and again.moves == answer and bl.verify(inst, again) == []


# strategies


STRATEGIES = ["native-bb", "cpsat-steps", "cnf-steps:cadical195", "cnf-steps:glucose4"]


@pytest.mark.parametrize("name", STRATEGIES)
def test_seed_gives_six(name: str) -> None:
    result = run_strategy(bl.PUZZLE, seed_instance(), name, Limits(timeout=120))
    assert result.status is Status.OPTIMAL, (name, result.message)
    assert result.objective == 6 and len(result.solution.moves) == 6


def test_seed_gives_six_in_parallel() -> None:
    import multiprocessing

    result = run_strategy(bl.PUZZLE, seed_instance(), "native-bb-par", Limits(timeout=120, workers=2))
    assert result.status is Status.OPTIMAL and result.objective == 6, result.message
    forced = Limits(timeout=120, workers=2, options={"head_start": 0.0})  # force the processes
    result = run_strategy(bl.PUZZLE, seed_instance(), "native-bb-par", forced)
    assert result.status is Status.OPTIMAL and result.objective == 6, result.message
    assert result.stats["subtrees"] > 0 and result.stats["workers"] == 2
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_seed_gives_six_by_bfs() -> None:
    result = run_strategy(bl.PUZZLE, seed_instance(), "bfs", Limits())
    assert result.status is Status.OPTIMAL and result.objective == 6


@pytest.mark.parametrize("name", STRATEGIES + ["bfs"])
def test_strategies_agree_with_bfs(name: str) -> None:
    for inst in small_boards(8):
        want = bfs_moves(inst)
        result = run_strategy(bl.PUZZLE, inst, name, Limits(timeout=60))
        assert result.status is Status.OPTIMAL, (name, inst, result.message)
        assert result.objective == want, (name, inst)


@pytest.mark.slow
def test_parallel_agrees_with_bfs() -> None:
    inst = bl.generate({"size": 6, "whites": 5, "components": 2}, 3)
    forced = Limits(timeout=120, workers=2, options={"head_start": 0.0})
    result = run_strategy(bl.PUZZLE, inst, "native-bb-par", forced)
    assert result.status is Status.OPTIMAL and result.objective == bfs_moves(inst)


def test_empty_board_needs_no_move() -> None:
    inst = bl.Instance(5, ())
    for name in ["native-bb", "cpsat-steps", "cnf-steps"]:
        result = run_strategy(bl.PUZZLE, inst, name, Limits())
        assert result.status is Status.OPTIMAL and result.objective == 0


def test_component_bound_is_tight_on_seed() -> None:
    from puzzlesat.domains.blacken.bound import move_lower_bound
    from puzzlesat.native.blacken.bb import Search

    inst = seed_instance()
    assert move_lower_bound(inst) == 6  # the seed's own bound (components) says 4
    assert Search(inst, split=False).root_bound() == 4


def test_component_bound_never_exceeds_bfs() -> None:
    from puzzlesat.domains.blacken.bound import move_lower_bound

    for inst in small_boards(8):
        assert move_lower_bound(inst) <= bfs_moves(inst), inst


def test_seed_component_bound_is_not_a_lower_bound() -> None:
    """16 lone stones on a lattice: the seed's bound says 16, twelve moves do it."""
    inst = bl.parse((ROOT / "instances" / "blacken" / "lattice_10x10.txt").read_text())
    assert bl.lower_bound(inst) == 16
    result = run_strategy(bl.PUZZLE, inst, "native-bb", Limits(timeout=60))
    assert result.status is Status.OPTIMAL and result.objective == 12


def test_native_timeout_keeps_an_answer() -> None:
    inst = bl.generate({"size": 12, "whites": 25, "components": 5}, 0)
    result = run_strategy(bl.PUZZLE, inst, "native-bb", Limits(timeout=0.5))
    assert result.status in (Status.SOLVED, Status.OPTIMAL) and result.solution is not None


def test_cnf_timeout_keeps_the_greedy_answer_unproven() -> None:
    """Out of time before the first horizon: the greedy answer, SOLVED and said to be unproven."""
    inst = bl.parse((ROOT / "instances" / "blacken" / "gen_k10_q15_c5_s2.txt").read_text())
    result = run_strategy(bl.PUZZLE, inst, "cnf-steps", Limits(timeout=1e-9))
    assert result.status is Status.SOLVED and result.objective == len(result.solution.moves)
    assert result.message == "timeout: best found, not proven"


# CNF export: "in N moves?"


def test_encode_answers_the_horizon_question() -> None:
    from pysat.solvers import Solver

    from puzzlesat.encoders.blacken import encode

    inst = seed_instance()
    for horizon, expected in ((5, False), (6, True)):
        encoding = encode(inst, {"horizon": horizon})
        with Solver(name="cadical195", bootstrap_with=encoding.cnf.clauses) as solver:
            assert solver.solve() is expected, horizon
            if expected:
                sol = encoding.decode(encoding.true_keys(solver.get_model()))
                assert len(sol.moves) <= 6 and bl.verify(inst, sol) == []


# CLI


def test_cli_solve_check_generate_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "seed.sol"
    assert cli.main(["solve", "blacken", str(SEED), "-s", "native-bb", "-o", str(out)]) == 0
    assert out.read_text().startswith("The result is 6.\n")
    assert cli.main(["check", "blacken", str(SEED), str(out)]) == 0
    bad = tmp_path / "bad.sol"
    bad.write_text("The result is 1.\nx: 1 y: 1\n")
    assert cli.main(["check", "blacken", str(SEED), str(bad)]) == 1
    gen = tmp_path / "gen.txt"
    assert (
        cli.main(
            ["generate", "blacken", "--size", "8", "--whites", "7", "--components", "3", "--seed", "4", "-o", str(gen)]
        )
        == 0
    )
    assert bl.parse(gen.read_text()).q == 7
    cnf = tmp_path / "q.cnf"
    assert cli.main(["export", "blacken", str(SEED), "-s", "cnf-steps", "-O", "horizon=6", "-o", str(cnf)]) == 0
    assert cnf.read_text().startswith("c puzzlesat")
    broken = tmp_path / "broken.txt"
    broken.write_text("7 1\n1,1\n")
    assert cli.main(["solve", "blacken", str(broken)]) == 2
    assert "broken.txt:2:" in capsys.readouterr().err


def test_benchmark_quick_runs() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "blacken.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "native-bb" in proc.stdout and "cnf-steps" in proc.stdout
