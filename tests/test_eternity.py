"""Edge matching: parser, verifier, generator, every strategy, export/decode, CLI errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlesat import core
from puzzlesat.core import Limits, ParseError, Status
from puzzlesat.domains import eternity

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "instances" / "eternity" / "seed_4x4.txt"
SEED_SOLUTION = ROOT / "instances" / "eternity" / "seed_4x4.sol"
STRATEGIES = ["native-rowscan", "cpsat-table", "cnf-heule:cadical195", "cnf-heule:kissat404", "cnf-heule:glucose4"]
PUZZLE = eternity.PUZZLE


def generated(size: int, seed: int) -> eternity.Instance:
    return eternity.generate({"size": size, "frame_colours": 2 + size % 2, "inner_colours": size + 1}, seed)


def test_seed_example_round_trips_and_verifies() -> None:
    text = SEED.read_text()
    instance = eternity.parse(text, str(SEED))
    assert (instance.rows, instance.cols, instance.colours, len(instance.tiles)) == (4, 4, 5, 16)
    assert instance.tiles[0] == (0, 1, 2, 0)
    assert eternity.write_instance(instance) == text
    solution = eternity.parse_solution(instance, SEED_SOLUTION.read_text())
    assert solution is not None
    assert solution.placements[:3] == ((0, 0), (9, 1), (11, 1))
    assert eternity.verify(instance, solution) == []
    assert eternity.format_solution(instance, solution) == SEED_SOLUTION.read_text()


def test_rotation_follows_the_seed_convention() -> None:
    # after r clockwise turns, side s shows listed colour (s - r) mod 4
    assert eternity.rotated((1, 2, 3, 4), 0) == (1, 2, 3, 4)
    assert eternity.rotated((1, 2, 3, 4), 1) == (4, 1, 2, 3)
    assert eternity.rotated((1, 2, 3, 4), 3) == (2, 3, 4, 1)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_solves_the_seed(strategy: str) -> None:
    instance = eternity.parse(SEED.read_text())
    result = core.run_strategy(PUZZLE, instance, strategy, Limits(timeout=60))
    assert result.status is Status.SOLVED, (strategy, result.message)
    assert eternity.verify(instance, result.solution) == []


@pytest.mark.parametrize("size", [4, 5, 6])
@pytest.mark.parametrize("strategy", ["native-rowscan", "cpsat-table", "cnf-heule:cadical195"])
def test_strategies_solve_generated_puzzles(strategy: str, size: int) -> None:
    for seed in range(2):
        instance = generated(size, seed)
        result = core.run_strategy(PUZZLE, instance, strategy, Limits(timeout=120, workers=2))
        assert result.status is Status.SOLVED, (strategy, size, seed, result.message)
        assert eternity.verify(instance, result.solution) == [], (strategy, size, seed)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_unsolvable_puzzle_is_proved_so(strategy: str) -> None:
    instance = eternity.make_unsolvable(generated(4, 7))
    result = core.run_strategy(PUZZLE, instance, strategy, Limits(timeout=60))
    assert result.status is Status.INFEASIBLE, strategy
    assert eternity.format_solution(instance, None) == "SOLUTION NOT FOUND\n"


def test_native_seeds_explore_differently() -> None:
    instance = generated(6, 3)
    nodes = {core.run_strategy(PUZZLE, instance, "native-rowscan", Limits(seed=s)).stats["nodes"] for s in range(4)}
    assert len(nodes) > 1


def brute_force_solvable(instance: eternity.Instance) -> bool:
    """Try every order and every turn that puts grey exactly on the rim."""
    from itertools import permutations, product

    def fitting(cell: int, tile: int) -> list[int]:
        rim = set(instance.frame_sides(cell))
        return [
            r for r in range(4) if {s for s, x in enumerate(eternity.rotated(instance.tiles[tile], r)) if x == 0} == rim
        ]

    for order in permutations(range(instance.cells)):
        for rots in product(*(fitting(cell, tile) for cell, tile in enumerate(order))):
            if not eternity.verify(instance, eternity.Solution(tuple(zip(order, rots, strict=True)))):
                return True
    return False


def test_strategies_agree_with_brute_force_on_2x3_boards() -> None:
    outcomes = set()
    for seed in range(12):
        instance = eternity.generate({"rows": 2, "cols": 3, "frame_colours": 2, "inner_colours": 1}, seed)
        if seed % 2:  # recolour one edge: two colours then occur an odd number of times
            tiles = [list(t) for t in instance.tiles]
            side = next(s for s in range(4) if tiles[0][s])
            tiles[0][side] = tiles[0][side] % 3 + 1
            instance = eternity.Instance(2, 3, instance.colours, tuple((a, b, c, d) for a, b, c, d in tiles))
        brute = brute_force_solvable(instance)
        outcomes.add(brute)
        for strategy in ["native-rowscan", "cpsat-table", "cnf-heule:cadical195"]:
            result = core.run_strategy(PUZZLE, instance, strategy, Limits(timeout=30))
            assert result.status in (Status.SOLVED, Status.INFEASIBLE), (strategy, seed)
            assert (result.status is Status.SOLVED) == brute, (strategy, seed)
    assert outcomes == {True, False}


def corrupt(solution: eternity.Solution, cell: int, placement: tuple[int, int]) -> eternity.Solution:
    placements = list(solution.placements)
    placements[cell] = placement
    return eternity.Solution(tuple(placements))


def test_verifier_rejects_corrupted_answers() -> None:
    instance = eternity.parse(SEED.read_text())
    good = eternity.parse_solution(instance, SEED_SOLUTION.read_text())
    assert good is not None
    tile, rot = good.placements[5]
    wrong_rotation = corrupt(good, 5, (tile, (rot + 1) % 4))
    assert any("meet" in p for p in eternity.verify(instance, wrong_rotation))
    duplicated = corrupt(good, 5, good.placements[6])
    assert any("used twice" in p for p in eternity.verify(instance, duplicated))
    # swap an inner tile onto the frame: its grey edges end up inside
    swapped = list(good.placements)
    swapped[1], swapped[5] = swapped[5], swapped[1]
    problems = eternity.verify(instance, eternity.Solution(tuple(swapped)))
    assert any("grey edge inside" in p for p in problems)
    assert any("faces the frame" in p for p in problems)
    assert eternity.verify(instance, eternity.Solution(good.placements[:-1])) != []


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(2, 6),
    cols=st.integers(2, 6),
    frame=st.integers(1, 4),
    inner=st.integers(1, 8),
    seed=st.integers(0, 10_000),
)
def test_generated_instances_round_trip(rows: int, cols: int, frame: int, inner: int, seed: int) -> None:
    instance = eternity.generate({"rows": rows, "cols": cols, "frame_colours": frame, "inner_colours": inner}, seed)
    assert eternity.parse(eternity.write_instance(instance)) == instance
    assert instance.colours == 1 + frame + inner
    assert (
        eternity.generate({"rows": rows, "cols": cols, "frame_colours": frame, "inner_colours": inner}, seed)
        == instance
    )


@given(text=st.text(alphabet="0123456789 -x\n", max_size=80))
def test_parser_accepts_or_raises_parse_error(text: str) -> None:
    try:
        instance = eternity.parse(text, "fuzz")
    except ParseError as exc:
        assert str(exc).startswith("fuzz")
    else:
        assert len(instance.tiles) == instance.rows * instance.cols


BAD_INPUTS = {
    "short": ("4 5\n0 1 2 0\n", "expected 16 tile lines"),
    "non_numeric": ("4 5\n0 1 2 x\n" + "0 1 2 0\n" * 15, ":2: expected integers, got 'x'"),
    "wrong_count": ("2 3\n" + "0 1 1 0\n" * 5, "expected 4 tile lines"),
    "colour_range": ("2 3\n0 1 1 0\n0 0 1 7\n0 1 1 0\n0 1 1 0\n", ":3: colour 7 out of range 0..3"),
    "three_colours_on_a_line": ("2 3\n0 1 1\n0 0 1 1\n0 1 1 0\n0 1 1 0\n", ":2: expected 4 colours"),
    "empty": ("", "empty input"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gives_one_line_and_exit_2(name: str, tmp_path: Path) -> None:
    text, message = BAD_INPUTS[name]
    path = tmp_path / f"{name}.txt"
    path.write_text(text)
    proc = run_cli("solve", "eternity", str(path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(path) in lines[0], proc.stderr
    assert proc.stdout == ""


def test_cli_solves_the_seed_from_stdin_and_checks_it(tmp_path: Path) -> None:
    proc = run_cli("solve", "eternity", "-s", "native-rowscan", stdin=SEED.read_text())
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 16
    answer = tmp_path / "answer.txt"
    answer.write_text(proc.stdout)
    assert run_cli("check", "eternity", str(SEED), str(answer)).returncode == 0
    answer.write_text(proc.stdout.replace("0 0\n", "0 1\n", 1))
    check = run_cli("check", "eternity", str(SEED), str(answer))
    assert check.returncode == 1 and "meet" in check.stderr


def test_cli_json_and_unknown_strategy() -> None:
    import json

    proc = run_cli("solve", "eternity", str(SEED), "--json", "-s", "cnf-heule:glucose4")
    data = json.loads(proc.stdout)
    assert data["status"] == "SOLVED" and data["stats"]["clauses"] > 0 and len(data["solution"].splitlines()) == 16
    bad = run_cli("solve", "eternity", str(SEED), "-s", "cnf-heule:nosuch")
    assert bad.returncode == 2 and "unknown variant 'nosuch'" in bad.stderr


def test_cli_generate_is_reproducible(tmp_path: Path) -> None:
    args = ("generate", "eternity", "--size", "5", "--frame-colours", "3", "--inner-colours", "6", "--seed", "9")
    first, second = run_cli(*args), run_cli(*args)
    assert first.returncode == 0 and first.stdout == second.stdout
    assert eternity.parse(first.stdout).colours == 10


def test_dimacs_export_solved_externally_decodes_and_verifies(tmp_path: Path) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    puzzle_file = tmp_path / "p.txt"
    puzzle_file.write_text(eternity.write_instance(generated(5, 1)))
    cnf_path = tmp_path / "p.cnf"
    proc = run_cli("export", "eternity", str(puzzle_file), "-s", "cnf-heule", "-o", str(cnf_path))
    assert proc.returncode == 0, proc.stderr
    text = cnf_path.read_text()
    assert 'c puzzlesat strategy="cnf-heule"' in text and "\nc var 1 x " in text
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    answer = tmp_path / "answer.out"
    answer.write_text("c external solver\ns SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    decoded = run_cli("decode", "eternity", str(answer), "--map", str(cnf_path) + ".json")
    assert decoded.returncode == 0, decoded.stderr
    instance = eternity.parse(puzzle_file.read_text())
    solution = eternity.parse_solution(instance, decoded.stdout)
    assert solution is not None and eternity.verify(instance, solution) == []
    answer.write_text("s UNSATISFIABLE\n")
    claimed = run_cli("decode", "eternity", str(answer), "--map", str(cnf_path) + ".json")
    # an external solver's UNSAT is its claim, not our proof
    assert claimed.returncode == 1 and "SOLUTION NOT FOUND" not in claimed.stdout
    assert claimed.stdout == "c UNSATISFIABLE claimed by the external solver, not verified\n"


def test_cpsat_export_writes_a_model(tmp_path: Path) -> None:
    out = tmp_path / "model.pb.txt"
    proc = run_cli("export", "eternity", str(SEED), "-s", "cpsat-table", "--format", "cpsat", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "table" in out.read_text()


def test_cnf_options_change_the_formula() -> None:
    from puzzlesat.encoders.eternity import encode

    instance = generated(5, 2)
    base = encode(instance).stats["clauses"]
    assert encode(instance, {"forbidden": 1}).stats["clauses"] > base
    assert encode(instance, {"support": 0, "amo": 0}).stats["clauses"] < base


def test_public_heule_instances_solve(shared_instances: Path) -> None:
    path = shared_instances / "eternity" / "heule2008_em_7_3_6_shuf.txt"
    instance = eternity.parse(path.read_text(), str(path))
    result = core.run_strategy(PUZZLE, instance, "native-rowscan", Limits(timeout=60))
    assert result.status is Status.SOLVED
