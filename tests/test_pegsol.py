"""Peg solitaire: formats, verifier, impossibility proofs, and the three strategies."""

from __future__ import annotations

import functools
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlesat import cli
from puzzlesat.core import InvalidInstanceError, Limits, ParseError, Status, run_strategy
from puzzlesat.domains import pegsol as P

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances" / "pegsol"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "instances" / "pegsol"
STRATEGIES = ("native-dfs", "cnf-plan:cadical195", "cpsat-plan")


def solve(instance: P.Instance, name: str, timeout: float = 30, **options: object):  # type: ignore[no-untyped-def]
    return run_strategy(P.PUZZLE, instance, name, Limits(timeout=timeout, options=dict(options)))


def brute_force(instance: P.Instance) -> bool:
    """Exhaustive search over peg sets, for tiny boards only."""
    jumps = instance.jumps()
    goal = frozenset(x for x in instance.cells if instance.target[x[0]][x[1]] == P.PEG)

    @functools.cache
    def reach(pegs: frozenset[tuple[int, int]]) -> bool:
        if len(pegs) == len(goal):
            return pegs == goal
        return any(reach((pegs - {a, b}) | {c}) for a, b, c in jumps if a in pegs and b in pegs and c not in pegs)

    start = frozenset(x for x in instance.cells if instance.start[x[0]][x[1]] == P.PEG)
    return len(start) >= len(goal) and reach(start)


def random_instance(rng: random.Random, rows: int, cols: int) -> P.Instance:
    """A random board shape and start; the goal is a random playout's end or random pegs."""
    shape = [
        [P.OFF if rng.random() < 0.15 else (P.PEG if rng.random() < 0.7 else P.HOLE) for _ in range(cols)]
        for _ in range(rows)
    ]
    start = tuple(tuple(row) for row in shape)
    inst = P.Instance(rows, cols, start, start)
    board = P.Board(inst)
    for _ in range(rng.randrange(1, 8)):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
    goal = board.matrix()
    if rng.random() < 0.4 and board.pegs:
        cells = inst.cells
        pegs = set(rng.sample(cells, len(board.pegs)))
        goal = tuple(
            tuple(P.OFF if v == P.OFF else (P.PEG if (r, c) in pegs else P.HOLE) for c, v in enumerate(row))
            for r, row in enumerate(start)
        )
    return P.Instance(rows, cols, start, goal)


# --- formats ---------------------------------------------------------------------------------

SEED_TEXT = "3 4\n1 1 -1 0\n1 1 1 1\n0 -1 1 1\n"


def test_parse_seed_form_and_round_trip() -> None:
    inst = P.parse(SEED_TEXT, "s")
    assert (inst.rows, inst.cols) == (3, 4)
    assert inst.start[0] == (1, 1, -1, 0)
    assert inst.goal is None
    assert inst.target[0] == (-1, -1, 1, 0)
    assert P.write_instance(inst) == SEED_TEXT
    assert P.parse(P.write_instance(inst)) == inst


def test_parse_goal_form_with_comments() -> None:
    text = "# a comment\n1 4   # rows cols\n1 1 -1 0\n# goal\n-1 -1 1 0\n"
    inst = P.parse(text)
    assert inst.goal == ((-1, -1, 1, 0),)
    assert inst.moves_needed == 1
    assert P.parse(P.write_instance(inst)) == inst


@pytest.mark.parametrize("path", sorted(INSTANCES.glob("*.txt")), ids=lambda p: p.name)
def test_shipped_instances_round_trip(path: Path) -> None:
    text = path.read_text()
    assert P.write_instance(P.parse(text, str(path))) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty input"),
        ("2\n1 1\n", "expected header 'm n'"),
        ("2 x\n", "expected header"),
        ("0 3\n", "at least 1 row"),
        ("2 3\n1 1 1\n1 1\n", "bad:3: expected 3 values in the row, got 2"),
        ("2 3\n1 1 1\n1 2 1\n", "bad:3: expected 1 (peg), -1 (hole) or 0 (off board), got '2'"),
        ("2 3\n1 1 1\n1 a 1\n", "got 'a'"),
        ("2 3\n1 1 1\n", "expected 2 rows (start) or 4 rows"),
        ("1 3\n1 1 0\n-1 -1 1\n", "bad:3: goal cell (0, 2) is on the board"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        P.parse(text, "bad")


def test_move_text_and_solution_round_trip() -> None:
    inst = P.parse(SEED_TEXT)
    sol = P.Solution((P.Move(0, 0, 0, 2), P.Move(2, 3, 2, 1)))
    text = P.format_solution(inst, sol)
    assert text == "0:0-0:2\n2:3-2:1\n"
    assert P.parse_solution(inst, text) == sol
    assert P.format_solution(inst, None) == "Impossivel\n"
    assert P.parse_solution(inst, "Impossivel\n") is None
    with pytest.raises(ParseError, match="sol:2: expected a move"):
        P.parse_solution(inst, "0:0-0:2\n0:0 0:2\n", "sol")


# --- board and verifier ----------------------------------------------------------------------


def test_push_pop_and_legal_moves() -> None:
    english = P.generate({"board": "english"}, 0)
    board = P.Board(english)
    assert sorted(map(str, board.legal_moves())) == ["1:3-3:3", "3:1-3:3", "3:5-3:3", "5:3-3:3"]
    before = board.matrix()
    board.push(P.Move(1, 3, 3, 3))
    assert board.matrix()[1][3] == P.HOLE and board.matrix()[2][3] == P.HOLE and board.matrix()[3][3] == P.PEG
    assert board.pop() == P.Move(1, 3, 3, 3)
    assert board.matrix() == before


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (P.Move(3, 3, 1, 3), "no peg on"),  # the centre is the hole
        (P.Move(0, 3, 2, 3), "landing cell"),  # lands on a peg
        (P.Move(1, 3, 3, 4), "exactly two cells"),  # not a straight jump
        (P.Move(0, 2, 0, 0), "not on the board"),  # (0, 0) is off the English board
    ],
)
def test_verifier_rejects_illegal_jump(move: P.Move, reason: str) -> None:
    english = P.generate({"board": "english"}, 0)
    problems = P.verify(english, P.Solution((move,)))
    assert len(problems) == 1 and reason in problems[0], problems
    with pytest.raises(P.IllegalMoveError):
        P.Board(english).push(move)


def test_verifier_rejects_wrong_final_board() -> None:
    english = P.generate({"board": "english"}, 0)
    problems = P.verify(english, P.Solution((P.Move(1, 3, 3, 3),)))
    assert problems and all("ends with" in p for p in problems)
    assert len(problems) == 30  # the 31 pegs left, but the centre
    assert P.verify(english, P.Solution(())) != []


def test_jump_through_hole_rejected() -> None:
    inst = P.parse("1 3\n1 -1 -1\n-1 -1 1\n")
    assert "no peg to jump over" in P.verify(inst, P.Solution((P.Move(0, 0, 0, 2),)))[0]


# --- named boards and generator --------------------------------------------------------------


@pytest.mark.parametrize(("board", "cells"), [("english", 33), ("french", 37), ("german", 45), ("diamond", 41)])
def test_named_boards(board: str, cells: int) -> None:
    inst = P.generate({"board": board}, 0)
    assert len(inst.cells) == cells
    assert inst.start_pegs == cells - 1
    assert inst.start[inst.rows // 2][inst.cols // 2] == P.HOLE


def test_generator_options() -> None:
    rect = P.generate({"rows": 6, "cols": 4, "hole": "3,2"}, 0)
    assert (rect.rows, rect.cols, rect.start[3][2]) == (6, 4, P.HOLE)
    a = P.generate({"board": "rect", "rows": 5, "cols": 5, "holes": 3}, 7)
    assert a == P.generate({"board": "rect", "rows": 5, "cols": 5, "holes": 3}, 7)
    assert sum(v == P.HOLE for row in a.start for v in row) == 3
    goal = P.generate({"board": "english", "hole": "0,3", "goal": "3,3"}, 0)
    assert goal.goal is not None and goal.goal_pegs == 1 and goal.goal[3][3] == P.PEG
    with pytest.raises(InvalidInstanceError, match="not on the english board"):
        P.generate({"board": "english", "hole": "0,0"}, 0)
    with pytest.raises(InvalidInstanceError, match="unknown board"):
        P.generate({"board": "hexagon"}, 0)


# --- impossibility proofs --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rect5x5_center.txt", "french37_center.txt", "rect4x4_two_holes.txt"])
def test_parity_proofs(name: str) -> None:
    inst = P.parse((INSTANCES / name).read_text())
    reason = P.prove_impossible(inst)
    assert reason is not None and reason.startswith("position-class parity")


def test_null_class_boards_pass_parity() -> None:
    for hole in ("3,3", "0,2", "2,0", "1,3"):
        assert P.prove_impossible(P.generate({"board": "english", "hole": hole}, 0)) is None


def test_peg_count_and_pagoda_proofs() -> None:
    more = P.parse("1 3\n1 -1 -1\n1 -1 1\n")
    assert (P.prove_impossible(more) or "").startswith("peg count")
    far = P.parse("1 6\n1 1 -1 -1 -1 -1\n-1 -1 -1 -1 -1 1\n")
    assert (P.prove_impossible(far) or "").startswith("pagoda function")
    cert = P.pagoda_certificate(far)
    assert cert is not None
    p, on_start, on_goal = cert
    assert on_goal > on_start
    assert all(p[c] <= p[a] + p[b] for a, b, c in far.jumps())
    near = P.parse("1 6\n1 1 -1 -1 -1 -1\n-1 -1 1 -1 -1 -1\n")
    assert P.prove_impossible(near) is None


# --- strategies ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", STRATEGIES)
@pytest.mark.parametrize("board", ["rect3x6_corner", "rect5x5_center.txt", "rect3x3_center.txt"])
def test_strategies_on_shipped_boards(name: str, board: str) -> None:
    if board.endswith(".txt"):
        inst = P.parse((INSTANCES / board).read_text())
    else:
        inst = P.generate({"rows": 3, "cols": 6, "hole": "0,0"}, 0)
    result = solve(inst, name)
    expected = Status.INFEASIBLE if "5x5" in board or "3x3" in board else Status.SOLVED
    assert result.status is expected, (name, board, result.message)
    if expected is Status.SOLVED:
        assert P.verify(inst, result.solution) == []
        assert len(result.solution.moves) == inst.moves_needed
    else:
        assert result.message, "an impossibility needs its reason"


@pytest.mark.parametrize("seed", range(10))
def test_strategies_agree_with_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    inst = random_instance(rng, rng.choice([2, 3]), rng.choice([3, 4]))
    expected = brute_force(inst)
    for name in STRATEGIES:
        for no_proofs in (False, True):
            result = solve(inst, name, no_proofs=no_proofs)
            assert result.status is (Status.SOLVED if expected else Status.INFEASIBLE), (
                name,
                no_proofs,
                P.write_instance(inst),
                result.message,
            )
    if not expected:
        # whatever a proof claims must agree with the exhaustive search
        assert P.prove_impossible(inst) is None or not brute_force(inst)


def test_native_dfs_proves_impossibility_by_exhaustion() -> None:
    inst = P.parse((INSTANCES / "rect4x4_two_holes.txt").read_text())
    assert P.prove_impossible(inst) is not None
    result = solve(inst, "native-dfs", no_proofs=True)
    assert result.status is Status.INFEASIBLE
    assert "exhaustive" in result.message and result.stats["nodes"] > 0


@pytest.mark.parametrize("hole", ["3,3", "2,0", "4,2", "3,2"])
def test_english_complements(hole: str) -> None:
    inst = P.generate({"board": "english", "hole": hole}, 0)
    result = solve(inst, "native-dfs", timeout=60)
    assert result.status is Status.SOLVED
    assert len(result.solution.moves) == 31
    final = P.Board(inst)
    for move in result.solution.moves:
        final.push(move)
    r, c = map(int, hole.split(","))
    assert final.pegs == {(r, c)}


@pytest.mark.parametrize("order", ["sym0", "sym5", "random3"])
def test_native_fixed_orders(order: str) -> None:
    inst = P.parse((INSTANCES / "rect6x4_hole_3_2.txt").read_text())
    assert solve(inst, "native-dfs", order=order).status is Status.SOLVED


def test_native_meets_itself_in_the_middle() -> None:
    inst = P.parse((INSTANCES / "rect6x6_hole_3_2.txt").read_text())
    result = solve(inst, "native-dfs", timeout=60, endgame_at=0)  # the endgame from the first slice on
    assert result.status is Status.SOLVED
    assert not P.verify(inst, result.solution)
    assert result.stats["endgame_jumps"] >= 2 and result.stats["met_at"] == 34 - result.stats["endgame_jumps"]


@pytest.mark.parametrize(("start", "finish"), [((0, 2), (3, 1)), ((2, 0), (2, 0))])
def test_native_endgame_on_other_goals(start: tuple[int, int], finish: tuple[int, int]) -> None:
    # the meet in the middle searches back from any goal, not only the complement
    from puzzlesat.domains.pegsol import catalog as C

    inst = C.problem_instance(*C.board_cells("rect", 4, 4), start, finish)
    result = solve(inst, "native-dfs", no_proofs=True, endgame_size=1000, endgame_at=0)
    assert result.status is (Status.SOLVED if brute_force(inst) else Status.INFEASIBLE)
    assert "endgame_jumps" in result.stats


def test_native_workers_split_the_tree() -> None:
    # two processes, each with half the first jumps: a solution from either, a proof from both
    five = P.generate({"rows": 5, "cols": 5}, 0)
    limits = Limits(timeout=60, workers=2, options={"no_proofs": True, "head_start": 0.0})  # no search alone first
    result = run_strategy(P.PUZZLE, five, "native-dfs", limits)
    assert result.status is Status.INFEASIBLE and "all 2 shares" in result.message
    six = P.parse((INSTANCES / "rect6x4_hole_3_2.txt").read_text())
    result = run_strategy(P.PUZZLE, six, "native-dfs", Limits(timeout=60, workers=2))
    assert result.status is Status.SOLVED and result.stats["workers"] == 2


def test_native_symmetry_tables_give_the_least_image() -> None:
    import numpy as np

    from puzzlesat.native.pegsol.kernel import canonical
    from puzzlesat.native.pegsol.layout import Layout

    inst = P.generate({"board": "english", "goal": "3,3"}, 0)
    layout = Layout.of(inst)
    maps = layout.symmetries(layout.pegs(inst.target))
    assert len(maps) == 8
    tables = layout.symmetry_tables(maps)
    rng = random.Random(4)
    for _ in range(50):
        pegs = {x for x in layout.cells if rng.random() < 0.5}
        images = [layout.words({m(x) for x in pegs}) for m in maps]
        lo, hi = layout.words(pegs)
        got = canonical(np.uint64(lo), np.uint64(hi), tables, layout.chunks())
        assert (int(got[1]), int(got[0])) == min((h, lo_) for lo_, h in images)


def test_native_pagoda_cuts_are_pagodas() -> None:
    # weights learned from the dead positions: no jump raises their sum, so a cut is sound
    from puzzlesat.native.pegsol import dfs as native

    inst = P.generate({"board": "french", "hole": "0,2", "goal": "3,1"}, 0)
    with pytest.MonkeyPatch.context() as mp:
        found: list[object] = []
        original = native._Runner.add_pagodas
        mp.setattr(native._Runner, "add_pagodas", lambda self, w, v: (found.append(w), original(self, w, v)))
        result = solve(inst, "native-dfs", timeout=20, endgame_at=1 << 40, pagoda_at=1 << 12)
    from puzzlesat.native.pegsol.layout import Layout

    layout = Layout.of(inst)
    assert found and "pagoda_seconds" in result.stats, result.stats
    for weights in found[0]:  # type: ignore[attr-defined]
        for a, b, c in inst.jumps():
            assert weights[layout.index(c)] <= weights[layout.index(a)] + weights[layout.index(b)]
    # the same search with no_pagoda seeks none, whatever pagoda_at says
    plain = solve(inst, "native-dfs", timeout=20, endgame_at=1 << 40, pagoda_at=1 << 12, no_pagoda=True)
    assert "pagoda_seconds" not in plain.stats, plain.stats


def _plans(inst: P.Instance, options: dict[str, object]) -> set[P.Solution]:
    """Every plan the CNF admits (distinct jump assignments), each verified."""
    from pysat.solvers import Solver

    from puzzlesat.encoders.pegsol import encode

    enc = encode(inst, options)
    plans = set()
    with Solver(name="cadical195", bootstrap_with=enc.cnf.clauses) as solver:
        jump_vars = [v for v, key in enc.named_vars().items() if key[0] == "jump"]
        while solver.solve():
            model = solver.get_model()
            sol = enc.decode(enc.true_keys(model))
            assert P.verify(inst, sol) == []
            plans.add(sol)
            solver.add_clause([-v for v in jump_vars if model[v - 1] > 0])
    return plans


def test_cnf_ordering_clauses_keep_solutions_and_cut_models() -> None:
    inst = P.parse("2 4\n1 1 -1 -1\n1 1 -1 -1\n-1 -1 1 -1\n-1 -1 1 -1\n")
    counts = {o: len(_plans(inst, {"parallel": 0, "ordering": o, "symmetry": 0})) for o in (0, 1, 2)}
    # two independent row jumps: both orders without the clauses, one with them
    assert counts == {0: 2, 1: 1, 2: 1}, counts
    # the parallel form plays them in one step: one plan
    assert len(_plans(inst, {"parallel": 1, "symmetry": 0})) == 1
    # the two rows mirror each other: symmetry breaking keeps one of the two first jumps
    assert len(_plans(inst, {"parallel": 0, "ordering": 0})) == 1


def test_cnf_lex_normal_form_cuts_more_than_consecutive_ordering() -> None:
    # three independent jumps b, c, a with c dependent on b: the consecutive rule admits
    # interleavings that the normal form (ordering=2) does not
    inst = P.generate({"rows": 3, "cols": 4, "hole": "0,1"}, 0)
    sizes = [len(_plans(inst, {"parallel": 0, "ordering": o, "symmetry": 0})) for o in (0, 1, 2)]
    assert sizes[0] > sizes[1] > sizes[2] >= 1, sizes


# cnf-plan's encoding variants, as strategy-name options (see benchmarks/pegsol.py --encodings)
CNF_VARIANTS = [
    "",
    "@parity=0",
    "@parity=2",
    "@symmetry=0",
    "@pagoda=1",
    "@reverse=1",
    "@reach=0",
    "@window=1",
    "@parallel=0",
    "@parallel=0@parity=0@symmetry=0",
    "@parallel=0@parity=2",
    "@parallel=0@ordering=0",
    "@parallel=0@ordering=2",
    "@parallel=0@count=1",
    "@parallel=0@pagoda=1",
    "@parallel=0@reverse=1",
    "@parallel=0@reach=0",
]
# small boards and their answers: two solvable (a complement and a single survivor elsewhere),
# two impossible (the 4x4 and 3x3 complements)
SMALL_BOARDS = [
    ({"rows": 3, "cols": 4, "hole": "0,1"}, Status.SOLVED),
    ({"rows": 4, "cols": 4, "hole": "0,1", "goal": "0,2"}, Status.SOLVED),
    ({"rows": 4, "cols": 4}, Status.INFEASIBLE),
    ({"rows": 3, "cols": 3}, Status.INFEASIBLE),
]


@pytest.mark.parametrize("variant", CNF_VARIANTS)
def test_cnf_plan_variants_agree(variant: str) -> None:
    for options, expected in SMALL_BOARDS:
        inst = P.generate(options, 0)
        result = solve(inst, "cnf-plan:cadical195" + variant, timeout=60, no_proofs=True)
        assert result.status is expected, (variant, options, result.message)
        if result.solution is not None:  # run_strategy has verified it; once more, explicitly
            assert P.verify(inst, result.solution) == []
        assert result.strategy == "cnf-plan:cadical195" + variant


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_property_cnf_plan_forms_match_brute_force(seed: int) -> None:
    inst = random_instance(random.Random(seed), 3, 4)
    expected = Status.SOLVED if brute_force(inst) else Status.INFEASIBLE
    for variant in ("", "@parallel=0@ordering=2@count=1@pagoda=1", "@pagoda=1@reverse=1"):
        result = solve(inst, "cnf-plan:cadical195" + variant, no_proofs=True)
        assert result.status is expected, (variant, result.message)


def test_cnf_pagodas_are_pagodas() -> None:
    from puzzlesat.encoders.pegsol import _least_pagoda

    english = P.generate({"board": "english"}, 0)
    for goal in english.cells:
        p = _least_pagoda(english, goal)
        assert p.get(goal, 0) > 0, goal
        assert all(p.get(c, 0) <= p.get(a, 0) + p.get(b, 0) for a, b, c in english.jumps()), goal


@pytest.mark.parametrize("variant", ["@pagoda=1", "@parallel=0@pagoda=1"])
def test_cnf_plan_pagoda_bounds_keep_solutions(variant: str) -> None:
    for hole in ("3,2", "0,0"):
        inst = P.generate({"rows": 6, "cols": 4, "hole": hole}, 0)
        assert solve(inst, "cnf-plan" + variant, timeout=60).status is Status.SOLVED, hole


def test_cnf_plan_parity_clauses_refute_the_5x5_complement() -> None:
    five = P.generate({"rows": 5, "cols": 5}, 0)
    for variant in ("", "@parallel=0"):
        result = solve(five, "cnf-plan:cadical195" + variant, timeout=60, no_proofs=True)
        assert result.status is Status.INFEASIBLE and result.stats["conflicts"] == 0, result.stats


def test_cnf_plan_parallel_steps_below_the_jumps_prove_nothing() -> None:
    inst = P.generate({"rows": 4, "cols": 4}, 0)  # impossible, but 2 parallel steps say nothing
    result = solve(inst, "cnf-plan:cadical195@steps=2", no_proofs=True)
    assert result.status is Status.UNKNOWN and "more steps" in result.message
    assert solve(P.generate({"rows": 3, "cols": 4, "hole": "0,1"}, 0), "cnf-plan@steps=9").status is Status.SOLVED


def test_strategy_name_options() -> None:
    from puzzlesat.core import OptionError, split_strategy

    assert split_strategy("cnf-plan:cadical195@parallel=0@pagoda=1") == (
        "cnf-plan:cadical195",
        {"parallel": "0", "pagoda": "1"},
    )
    inst = P.generate({"rows": 3, "cols": 4, "hole": "0,1"}, 0)
    sequential = solve(inst, "cnf-plan@parallel=0", parallel=True)  # the name's option wins
    assert sequential.stats["horizon"] == inst.moves_needed and "first_step" not in sequential.stats
    with pytest.raises(OptionError, match="valid options"):
        solve(inst, "cnf-plan@nonsense=1")
    with pytest.raises(OptionError, match="KEY=VALUE"):
        solve(inst, "cnf-plan@parallel")


def test_compare_runs_strategy_name_variants(tmp_path: Path) -> None:
    import puzzlesat

    path = tmp_path / "four.txt"
    path.write_text(P.write_instance(P.generate({"rows": 4, "cols": 4}, 0)))
    runs = puzzlesat.compare(
        "pegsol",
        [puzzlesat.load("pegsol", path)],
        "cnf-plan:cadical195,cnf-plan:cadical195@parity=0",
        timeout=60,
        no_proofs=True,
    )
    assert [(r.strategy, r.status) for r in runs.records] == [
        ("cnf-plan:cadical195", "INFEASIBLE"),
        ("cnf-plan:cadical195@parity=0", "INFEASIBLE"),
    ]
    assert runs.records[0].stats["conflicts"] == 0 < runs.records[1].stats["conflicts"]


def test_cpsat_model_options() -> None:
    from puzzlesat.models.pegsol import build_model

    inst = P.parse((INSTANCES / "rect6x4_hole_3_2.txt").read_text())
    full, _ = build_model(inst, {})
    bare, _ = build_model(inst, {"ordering": 0, "redundant": 0})
    assert len(bare.proto.constraints) < len(full.proto.constraints)


# --- CLI -------------------------------------------------------------------------------------


def test_cli_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("2 2\n1 1\n1 7\n")
    assert cli.main(["solve", "pegsol", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{bad}:3:" in err[0] and "'7'" in err[0]


def test_cli_solve_check_and_impossible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sol.txt"
    assert cli.main(["solve", "pegsol", str(INSTANCES / "rect6x4_hole_3_2.txt"), "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 22
    assert cli.main(["check", "pegsol", str(INSTANCES / "rect6x4_hole_3_2.txt"), str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["solve", "pegsol", str(INSTANCES / "french37_center.txt")]) == 0
    assert capsys.readouterr().out == "Impossivel\n"


def test_cli_export_and_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pysat.solvers import Solver

    from puzzlesat.encoders import dimacs

    inst_path = INSTANCES / "rect6x4_hole_3_2.txt"
    cnf_path = tmp_path / "p.cnf"
    assert cli.main(["export", "pegsol", str(inst_path), "-s", "cnf-plan", "-o", str(cnf_path)]) == 0
    from pysat.formula import CNF

    formula = CNF(from_file=str(cnf_path))
    with Solver(name="cadical195", bootstrap_with=formula.clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    capsys.readouterr()
    assert cli.main(["decode", "pegsol", str(answer), "--map", str(cnf_path) + ".json"]) == 0
    text = capsys.readouterr().out
    inst = P.parse(inst_path.read_text())
    sol = P.parse_solution(inst, text)
    assert sol is not None and P.verify(inst, sol) == []
    assert dimacs.read_sidecar(Path(str(cnf_path) + ".json"))["puzzle"] == "pegsol"


def test_cli_export_cpsat(tmp_path: Path) -> None:
    out = tmp_path / "m.pb"
    assert (
        cli.main(
            [
                "export",
                "pegsol",
                str(INSTANCES / "rect3x3_center.txt"),
                "-s",
                "cpsat-plan",
                "--format",
                "cpsat",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert out.stat().st_size > 0


def test_benchmark_quick() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pegsol.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "native-dfs" in proc.stdout


# --- shared public boards (skipped when ../shared is absent) ---------------------------------


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared instances not present")
def test_shared_course_boards() -> None:
    for path in sorted(SHARED.glob("*.in")):
        inst = P.parse(path.read_text(), str(path))
        result = solve(inst, "native-dfs", timeout=60)
        want = Status.INFEASIBLE if "IMPOSSIBLE" in path.name else Status.SOLVED
        assert result.status is want, (path.name, result.message)


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared instances not present")
def test_shared_competition_boards_parse_and_small_ones_solve() -> None:
    boards = sorted((SHARED / "ipc_pegsol").glob("[0-9]*.txt"))
    assert len(boards) == 36
    for path in boards[:6]:
        inst = P.parse(path.read_text(), str(path))
        assert inst.goal is not None
        for name in STRATEGIES:
            result = solve(inst, name)
            assert result.status is Status.SOLVED, (path.name, name, result.message)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="shared instances not present")
def test_shared_competition_boards_all() -> None:
    for path in sorted((SHARED / "ipc_pegsol").glob("[0-9]*.txt")):
        inst = P.parse(path.read_text(), str(path))
        assert solve(inst, "native-dfs", timeout=60).status is Status.SOLVED, path.name


@pytest.mark.slow
def test_all_english_complements() -> None:
    english = P.generate({"board": "english"}, 0)
    for r, c in english.cells:
        inst = P.generate({"board": "english", "hole": f"{r},{c}"}, 0)
        assert solve(inst, "native-dfs", timeout=60).status is Status.SOLVED, (r, c)


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 3), st.integers(2, 4))
def test_property_round_trip_and_native_matches_brute_force(seed: int, rows: int, cols: int) -> None:
    inst = random_instance(random.Random(seed), rows, cols)
    assert P.parse(P.write_instance(inst)) == inst
    result = solve(inst, "native-dfs", no_proofs=seed % 2 == 0)
    assert result.status is (Status.SOLVED if brute_force(inst) else Status.INFEASIBLE)
    if result.solution is not None:
        assert P.parse_solution(inst, P.format_solution(inst, result.solution)) == result.solution


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(2, 4))
def test_property_native_endgame_matches_brute_force(seed: int, rows: int, cols: int) -> None:
    # the meet in the middle from the first node, symmetric keys, no proofs: still exact
    inst = random_instance(random.Random(seed), rows, cols)
    result = solve(inst, "native-dfs", no_proofs=True, endgame_size=50 + seed % 200, endgame_at=0)
    assert result.status is (Status.SOLVED if brute_force(inst) else Status.INFEASIBLE)
    if result.solution is not None:
        assert not P.verify(inst, result.solution)


def test_native_refuses_bounding_boxes_over_120_cells() -> None:
    # built directly: parse and generate stop at MAX_CELLS, below the native limit
    start = tuple(tuple(P.HOLE if (r, c) == (0, 0) else P.PEG for c in range(11)) for r in range(11))
    big = P.Instance(11, 11, start)
    result = solve(big, "native-dfs", timeout=5, no_proofs=True)
    assert result.status is Status.UNKNOWN and "at most 120 cells" in result.message


@pytest.mark.parametrize("variant", ["kissat404", "glucose4"])
def test_cnf_plan_other_solvers(variant: str) -> None:
    inst = P.generate({"rows": 3, "cols": 4, "hole": "0,1"}, 0)
    result = solve(inst, f"cnf-plan:{variant}", timeout=30)
    assert result.status is Status.SOLVED, result.message


def test_native_uses_the_high_word() -> None:
    # 70 cells in one row: the jumps all happen among cells 64..69
    start = [P.HOLE] * 70
    start[65] = start[66] = start[68] = P.PEG
    goal = [P.HOLE] * 70
    goal[69] = P.PEG
    inst = P.Instance(1, 70, (tuple(start),), (tuple(goal),))
    for name in STRATEGIES:
        result = solve(inst, name, no_proofs=True)
        assert result.status is Status.SOLVED, (name, result.message)
        assert [str(m) for m in result.solution.moves] == ["0:65-0:67", "0:67-0:69"]
    goal[69], goal[64] = P.HOLE, P.PEG
    blocked = P.Instance(1, 70, (tuple(start),), (tuple(goal),))
    assert solve(blocked, "native-dfs", no_proofs=True).status is Status.INFEASIBLE
