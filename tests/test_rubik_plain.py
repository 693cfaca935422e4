"""The cube's plain path (native/rubik/plain.py): bidirectional breadth-first search in numpy,
checked against brute force and against the numba IDA*."""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlesat.core import Limits, Status, run_strategy
from puzzlesat.domains import rubik as rk
from puzzlesat.native.rubik import plain as rp
from puzzlesat.native.rubik.tables import move_set

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def private_cache(private_table_cache: None) -> None:
    """The IDA*'s tables go to a private folder (small set only)."""


def _scramble(length: int, metric: str, rng: random.Random) -> rk.Maneuver:
    """A random maneuver of ``length`` moves; quarter turns only in QTM (so at most ``length`` long there)."""
    moves = rk.metric_moves(metric)
    out: list[rk.Move] = []
    while len(out) < length:
        move = rng.choice(moves)
        if not out or out[-1][0] != move[0]:
            out.append(move)
    return tuple(out)


def _ball(cube: rk.Cube, radius: int, metric: str) -> dict[rk.Cube, int]:
    """Every position at most ``radius`` moves from ``cube``, with its distance (plain breadth-first search)."""
    moves = rk.metric_moves(metric)
    seen = {cube: 0}
    frontier = [cube]
    for depth in range(1, radius + 1):
        frontier = [n for c in frontier for n in (c.move(m) for m in moves) if n not in seen]
        for n in frontier:
            seen.setdefault(n, depth)
    return seen


@functools.cache
def _solved_ball(radius: int, metric: str) -> dict[rk.Cube, int]:
    return _ball(rk.SOLVED, radius, metric)


def _brute_optimum(cube: rk.Cube, metric: str, radius: int) -> int | None:
    """The optimum if at most ``2 * radius``: the least sum of distances over the positions both balls hold."""
    mine, solved = _ball(cube, radius, metric), _solved_ball(radius, metric)
    sums = [d + solved[c] for c, d in mine.items() if c in solved]
    return min(sums) if sums else None


def _brute_solutions(cube: rk.Cube, lengths: set[int], metric: str) -> set[rk.Maneuver]:
    """Every canonical sequence with a length in ``lengths`` that solves ``cube`` (depth-first, with Cube)."""
    moves = rk.metric_moves(metric)
    pairs, triples = set(rk.forbidden_pairs(metric)), set(rk.forbidden_triples(metric))
    out: set[rk.Maneuver] = set()
    stack: list[tuple[rk.Cube, tuple[int, ...]]] = [(cube, ())]
    while stack:
        state, seq = stack.pop()
        if len(seq) in lengths and state.is_solved:
            out.add(rk.simplify(tuple(moves[m] for m in seq)))
        if len(seq) < max(lengths):
            for m in range(len(moves)):
                if (seq[-1:] and (seq[-1], m) in pairs) or (len(seq) >= 2 and (seq[-2], seq[-1], m) in triples):
                    continue
                stack.append((state.move(moves[m]), seq + (m,)))
    return out


def _solve(text: str, **options: object) -> tuple[Status, int | None, rk.Solution | None, dict[str, object]]:
    opts = {"metric": "htm", "tables": "small", "progress": False, **options}
    inst = rk.parse(text or rk.SOLVED_SINGMASTER)
    res = run_strategy(rk.PUZZLE, inst, "native-ida", Limits(timeout=120, options=opts))
    assert res.status is not Status.ERROR, res.message
    if res.solution is not None:
        assert rk.verify(inst, res.solution) == []
    return res.status, res.objective, res.solution, res.stats


def test_a_move_on_a_row_is_the_move_on_the_cube() -> None:
    rng = random.Random(5)
    for metric in rk.METRICS:
        ms = move_set(metric)
        table = rp.move_tables(ms)
        for _ in range(40):
            cube, m = rk.random_cube(rng), rng.randrange(len(ms.moves))
            assert (table[m][rp.row_of(cube)] == rp.row_of(cube.move(ms.moves[m]))).all()


@pytest.mark.parametrize(
    ("metric", "text", "expected"),
    [
        ("htm", "D U R", "U D R"),
        ("htm", "U D U", None),  # U2 D: shorter
        ("htm", "R L' R'", None),
        ("qtm", "U' U' R", "U U R"),  # a half turn is written U U in QTM
        ("qtm", "U D U", "U U D"),
        ("qtm", "U' D U'", "U U D"),
        ("qtm", "U U U", None),
        ("qtm", "U U'", None),
    ],
)
def test_canonical_form(metric: str, text: str, expected: str | None) -> None:
    ms = move_set(metric)
    index = {mv: k for k, mv in enumerate(ms.moves)}
    got = rp.canonical([index[mv] for mv in rk.parse_maneuver(text)], ms)
    assert (None if got is None else rk.format_maneuver(tuple(ms.moves[m] for m in got))) == expected


def _check_optima(metric: str, lengths: range, radius: int, seed: int) -> None:
    rng = random.Random(seed)
    for length in lengths:
        for _ in range(2):
            man = _scramble(length, metric, rng)
            cube = rk.SOLVED.apply(man)
            out = rp.search(cube, metric, rp.DEPTH[metric])
            assert out.best == _brute_optimum(cube, metric, radius), (metric, rk.format_maneuver(man))
            assert out.searched == out.best and len(out.found) == 1
            found = tuple(out.moves[m] for m in out.found[0])
            assert rk.maneuver_length(found, metric) == out.best and cube.apply(found).is_solved


@pytest.mark.parametrize("metric", rk.METRICS)
def test_optimal_lengths_match_brute_force(metric: str) -> None:
    _check_optima(metric, range(0, 7), 3, 21)


@pytest.mark.slow
@pytest.mark.parametrize("metric", rk.METRICS)
def test_optimal_lengths_match_brute_force_deeper(metric: str) -> None:
    _check_optima(metric, range(7, 9), 4, 22)


@pytest.mark.parametrize("metric", rk.METRICS)
def test_every_solution_matches_brute_force(metric: str) -> None:
    rng = random.Random(4)
    for length in (0, 1, 2, 3):
        man = _scramble(length, metric, rng)
        cube = rk.SOLVED.apply(man)
        extra = 2 if metric == "qtm" else 1  # the next length of the position's parity, in QTM
        out = rp.search(cube, metric, rp.DEPTH[metric], extra=extra)
        assert out.best is not None
        lengths = set(range(out.best, out.best + extra + 1, 2 if metric == "qtm" else 1))
        found = {rk.simplify(tuple(out.moves[m] for m in s)) for s in out.found}
        assert found == _brute_solutions(cube, lengths, metric), (metric, rk.format_maneuver(man))


@pytest.mark.parametrize("metric", rk.METRICS)
def test_plain_and_ida_agree(metric: str) -> None:
    rng = random.Random(7)
    for length in range(0, 8):
        text = rk.format_maneuver(_scramble(length, metric, rng))
        plain = _solve(text, metric=metric)
        ida = _solve(text, metric=metric, plain_depth=0)
        assert plain[0] is ida[0] is Status.OPTIMAL and plain[1] == ida[1], (metric, text)
        assert plain[3]["path"] == "plain" and "path" not in ida[3]


@pytest.mark.parametrize(("metric", "text"), [("htm", "R2 L2 U2 D2"), ("qtm", "R U' F L")])
def test_every_solution_agrees_with_the_ida_and_across_the_handover(metric: str, text: str) -> None:
    # all solutions up to two moves longer than the optimum: the plain search alone, the IDA*
    # alone, and the plain search up to a length between the two (the IDA* does the rest)
    plain = _solve(text, metric=metric, all=True, extra=2)
    ida = _solve(text, metric=metric, all=True, extra=2, plain_depth=0)
    both = _solve(text, metric=metric, all=True, extra=2, plain_depth=plain[1])
    assert plain[3]["path"] == "plain" and "path" not in both[3]
    assert plain[2] is not None and ida[2] is not None and both[2] is not None
    assert set(plain[2].maneuvers) == set(ida[2].maneuvers) == set(both[2].maneuvers)
    assert plain[1] == ida[1] == both[1]


def test_longer_solutions_go_on_in_the_ida_from_the_next_length() -> None:
    status, length, _, stats = _solve("R U F' L2 D B' R2", plain_depth=3)
    assert (status, length) == (Status.OPTIMAL, 7)
    assert stats["lower_bound"] >= 4 and "plain_s" in stats


def test_a_max_depth_within_the_plain_search_needs_no_ida() -> None:
    status, length, sol, stats = _solve("R U F D", max_depth=3)
    assert status is Status.UNKNOWN and sol is None and stats["path"] == "plain"
    assert stats["lower_bound"] == 4


def test_a_spent_deadline_searches_nothing() -> None:
    cube = rk.parse("R U F D").cube
    out = rp.search(cube, "htm", 10, deadline=0.0)
    assert out.best is None and out.next_length == 0 and not out.settles(0, 20)
    assert out.message(0, 20) == "time limit during depth 0; no solution shorter than 0"


def test_the_option_and_the_description_state_the_default_depths() -> None:
    strategy = next(s for s in rk.PUZZLE.strategies if s.name == "native-ida")
    option = next(o for o in strategy.options if o.name == "plain_depth")
    assert f"default {rp.DEPTH['htm']} htm / {rp.DEPTH['qtm']} qtm" in option.help
    assert f"up to {rp.DEPTH['htm']} moves ({rp.DEPTH['qtm']} in QTM)" in strategy.summary


def test_a_short_scramble_loads_neither_numba_nor_tables(tmp_path: Path) -> None:
    code = (
        "import sys; from puzzlesat import api; "
        "r = api.solve(api.load('rubik', 'instances/rubik/scramble_8_seed1.txt'), 'native-ida'); "
        "print(r.status.name, r.objective, r.stats['path'], 'numba' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PUZZLESAT_CACHE": str(tmp_path)},
        timeout=120,
    )
    assert done.stdout.split() == ["OPTIMAL", "8", "plain", "False"], done.stderr
    assert not list(tmp_path.iterdir())
