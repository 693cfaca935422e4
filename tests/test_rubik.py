"""Tests of the Rubik's cube: model, parsers, legality, metrics, and the three strategies."""

from __future__ import annotations

import csv
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlesat.core import InvalidInstanceError, Limits, ParseError, PuzzlesatError, Status, run_strategy
from puzzlesat.domains import rubik as rk

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "instances" / "rubik"
SEED_FILES = sorted((ROOT / "instances" / "rubik").glob("*.txt"))

HTM_COUNTS = (1, 18, 243, 3240, 43239, 574908)
QTM_COUNTS = (1, 12, 114, 1068, 10011)


@pytest.fixture(scope="module", autouse=True)
def private_cache(private_table_cache: None) -> None:
    """Tables built by the tests go to a private folder (small set only)."""


# ---------------------------------------------------------------- move simulator


def _fast_moves(metric: str) -> list[list[tuple[int, list[int]]]]:
    """Each move as (source position, value map) per position over (cubie, orientation) codes."""
    out = []
    for face, turns in rk.metric_moves(metric):
        cube = rk.move_cubes()[face * 3 + turns - 1]
        row = []
        for i in range(8):
            row.append((cube.cp[i], [(v // 3) * 3 + (v % 3 + cube.co[i]) % 3 for v in range(24)]))
        for i in range(12):
            row.append((8 + cube.ep[i], [(v // 2) * 2 + (v % 2 + cube.eo[i]) % 2 for v in range(24)]))
        out.append(row)
    return out


def _shell_counts(metric: str, depth: int) -> list[int]:
    moves = _fast_moves(metric)
    start = tuple([3 * i for i in range(8)] + [2 * i for i in range(12)])
    seen = {start}
    frontier = [start]
    counts = [1]
    for _ in range(depth):
        nxt = []
        for state in frontier:
            for row in moves:
                new = tuple([table[state[src]] for src, table in row])
                if new not in seen:
                    seen.add(new)
                    nxt.append(new)
        frontier = nxt
        counts.append(len(nxt))
    return counts


def test_fast_simulator_agrees_with_cube_model() -> None:
    rng = random.Random(3)
    moves = _fast_moves("htm")
    for _ in range(20):
        man = rk.random_maneuver(6, rng)
        state = tuple([3 * i for i in range(8)] + [2 * i for i in range(12)])
        for face, turns in man:
            row = moves[face * 3 + turns - 1]
            state = tuple([table[state[src]] for src, table in row])
        cube = rk.SOLVED.apply(man)
        assert state == tuple(
            [3 * c + o for c, o in zip(cube.cp, cube.co, strict=True)]
            + [2 * e + o for e, o in zip(cube.ep, cube.eo, strict=True)]
        )


def test_depth_counts_htm() -> None:
    assert tuple(_shell_counts("htm", 4)) == HTM_COUNTS[:5]


def test_depth_counts_qtm() -> None:
    assert tuple(_shell_counts("qtm", 4)) == QTM_COUNTS


@pytest.mark.slow
def test_depth_counts_htm_depth5() -> None:
    assert tuple(_shell_counts("htm", 5)) == HTM_COUNTS


def test_cube_model_group_laws() -> None:
    rng = random.Random(1)
    for _ in range(10):
        a, b = rk.random_cube(rng), rk.random_cube(rng)
        assert (a * a.inverse()).is_solved
        assert (a * b).inverse() == b.inverse() * a.inverse()
        assert not a.problems()
    for face in range(6):
        cube = rk.SOLVED
        for _ in range(4):
            cube = cube.move((face, 1))
        assert cube.is_solved, rk.FACES[face]
        assert rk.SOLVED.move((face, 1)).move((face, 3)).is_solved


# ---------------------------------------------------------------- parsers


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.name)
def test_shipped_instances_parse_and_round_trip(path: Path) -> None:
    inst = rk.parse(path.read_text(), str(path))
    again = rk.parse(rk.write_instance(inst), "rewritten")
    assert again.cube == inst.cube
    assert again.form == inst.form


def test_seed_position_form() -> None:
    inst = rk.parse((ROOT / "instances" / "rubik" / "seed_position.txt").read_text())
    assert inst.form == "position"
    facelets = inst.cube.to_facelets()
    # the seed's side faces; its colours O G R B W Y stand for faces L F R B U D
    colour = {"L": "O", "F": "G", "R": "R", "B": "B", "U": "W", "D": "Y"}
    for face, stickers in (("L", "OWGGORWGB"), ("F", "YROGGOWRR"), ("R", "BGRYRBBYG"), ("B", "WRGOBWOWR")):
        i = rk.FACES.index(face)
        seen = "".join(colour[ch] for ch in facelets[9 * i : 9 * i + 9])
        assert seen == stickers, face


def test_all_forms_describe_the_same_cube() -> None:
    man = rk.parse_maneuver("R U R' U' F2 D L' B2")
    cube = rk.SOLVED.apply(man)
    forms = {
        "maneuver": rk.format_maneuver(man),
        "facelets": cube.to_facelets(),
        "singmaster": cube.to_singmaster(),
        "position": rk.facelets_to_position(cube.to_facelets()),
    }
    for form, text in forms.items():
        inst = rk.parse(text, form)
        assert inst.form == form
        assert inst.cube == cube, form
        assert rk.parse(rk.write_instance(inst)).cube == cube


def test_position_form_with_any_colours() -> None:
    cube = rk.SOLVED.apply(rk.parse_maneuver("F R"))
    colours = dict(zip(rk.FACES, "WRGYOB", strict=True))
    text = " ".join(
        f"{f}:{''.join(colours[ch] for ch in cube.to_facelets()[9 * i : 9 * i + 9])}"
        for i, f in reversed(list(enumerate(rk.FACES)))
    )
    assert rk.parse(text).cube == cube


def test_superflip_forms() -> None:
    inst = rk.parse((ROOT / "instances" / "rubik" / "superflip.txt").read_text())
    assert inst.cube.cp == tuple(range(8)) and inst.cube.ep == tuple(range(12))
    assert inst.cube.eo == (1,) * 12 and inst.cube.co == (0,) * 8
    # a known 20-move superflip maneuver (cube20.org) gives the same cube
    man = rk.parse_maneuver("U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2")
    assert rk.SOLVED.apply(man) == inst.cube


def test_maneuver_notation() -> None:
    assert rk.parse_maneuver("U2' U'2 U3 U") == ((0, 2), (0, 2), (0, 3), (0, 1))
    assert rk.format_maneuver(rk.parse_maneuver("R U2 F' D")) == "R U2 F' D"
    assert rk.maneuver_length(rk.parse_maneuver("R U2 F'"), "htm") == 3
    assert rk.maneuver_length(rk.parse_maneuver("R U2 F'"), "qtm") == 4
    man = rk.random_maneuver(12, random.Random(5))
    assert rk.SOLVED.apply(man).apply(rk.invert_maneuver(man)).is_solved


def test_solution_round_trip() -> None:
    inst = rk.parse("R U2 F")
    for metric in rk.METRICS:
        sol = rk.Solution((rk.parse_maneuver("F' U2 R'"), rk.parse_maneuver("F' U U R'")), metric)
        text = rk.format_solution(inst, sol)
        back = rk.parse_solution(inst, text)
        assert back is not None
        assert back.metric == metric
        assert back.maneuvers[0] == sol.maneuvers[0]
    assert "(4q)" in rk.format_solution(inst, rk.Solution((rk.parse_maneuver("F' U2 R'"),), "qtm"))
    assert rk.format_solution(rk.parse(rk.SOLVED_SINGMASTER), rk.Solution(((),))) == "(0f)\n"


@pytest.mark.parametrize(
    "text, match",
    [
        ("R U X2", "expected a move"),
        ("R u", "expected a move"),
        ("", "empty input"),
        ("U:UUUUUUUUU R:RRRRRRRRR", "missing"),
        ("U:UUUUUUUU R:RRRRRRRRR F:FFFFFFFFF D:DDDDDDDDD L:LLLLLLLLL B:BBBBBBBBB", "9 stickers"),
        ("UF UR UB UL DF DR DB DL FR FL BR BL UFR URB UBL ULF DRF DFL DLB", "20 cubies"),
        ("UF UR UB UL DF DR DB DL FR FL BR BL UFR URB UBL ULF DRF DFL DLB DB", "must be 3 letters"),
    ],
)
def test_parse_errors(text: str, match: str) -> None:
    with pytest.raises(ParseError, match=match):
        rk.parse(text, "case")


def _singmaster_with(index: int, token: str) -> str:
    tokens = rk.SOLVED_SINGMASTER.split()
    tokens[index] = token
    return " ".join(tokens)


@pytest.mark.parametrize(
    "text, match",
    [
        (_singmaster_with(12, "FRU"), "a corner is twisted"),
        (_singmaster_with(0, "FU"), "an edge is flipped"),
        (" ".join(["UR", "UF"] + rk.SOLVED_SINGMASTER.split()[2:]), "two pieces are swapped"),
        (_singmaster_with(1, "UF"), "UF appear"),
        (_singmaster_with(1, "UF"), "UR missing"),
        (_singmaster_with(12, "UFF"), "corner URF .UFF. form no corner cubie"),
        ("U" * 9 + "R" * 9 + "F" * 9 + "D" * 9 + "L" * 9 + "B" * 9, None),
    ],
)
def test_illegal_cubes(text: str, match: str | None) -> None:
    if match is None:
        assert rk.parse(text).cube.is_solved
        return
    with pytest.raises(InvalidInstanceError, match=match):
        rk.parse(text, "case")


def test_illegal_facelet_corner() -> None:
    facelets = list(rk.SOLVED_FACELETS)
    # swap two stickers of corner URF: its mirror image is no cubie
    facelets[8], facelets[9] = facelets[9], facelets[8]
    with pytest.raises(PuzzlesatError, match="corner URF"):
        rk.parse("".join(facelets), "case")


def test_verify_rejects() -> None:
    inst = rk.parse("R U")
    assert rk.verify(inst, rk.Solution((rk.parse_maneuver("U' R'"),))) == []
    assert rk.verify(inst, rk.Solution((rk.parse_maneuver("R' U'"),)))
    assert rk.verify(inst, rk.Solution((rk.parse_maneuver("U' R'"), rk.parse_maneuver("U' R'"))))


def test_generate() -> None:
    a = rk.generate({"moves": 7}, 4)
    assert a == rk.generate({"moves": 7}, 4)
    assert a.form == "maneuver" and a.maneuver is not None and len(a.maneuver) == 7
    b = rk.generate({}, 4)
    assert not b.cube.problems() and b.form == "singmaster"
    assert rk.parse(rk.write_instance(b)).cube == b.cube


@pytest.mark.skipif(not (SHARED / "benchmarks.tsv").exists(), reason="shared instances absent")
def test_shared_benchmarks_parse_and_reference_solutions_verify() -> None:
    with (SHARED / "benchmarks.tsv").open() as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert len(rows) > 100
    for row in rows:
        a = rk.parse(row["input"], row["label"])
        assert a.cube == rk.parse(row["facelet_URFDLB"]).cube == rk.parse(row["singmaster"]).cube
        assert a.cube.to_facelets() == row["facelet_URFDLB"]
        assert a.cube.to_singmaster() == row["singmaster"]
        man = rk.parse_maneuver(row["reference_solution"])
        assert rk.verify(a, rk.Solution((man,))) == [], row["label"]
        assert rk.maneuver_length(man, "htm") == int(row["ref_solution_htm"])


# ---------------------------------------------------------------- strategies


def _solve(text: str, strategy: str, **options: object) -> tuple[Status, int | None, rk.Solution | None]:
    opts = {"metric": "htm", "tables": "small", "progress": False}
    opts.update(options)
    res = run_strategy(rk.PUZZLE, rk.parse(text), strategy, Limits(timeout=120, options=opts))
    assert res.status is not Status.ERROR, res.message
    if res.status is not Status.OPTIMAL:
        print(strategy, text, res.message, res.stats)
    return res.status, res.objective, res.solution


SHALLOW = ["R U R'", "U R2 F' B D2", "R L U2"]
# native-ida's two paths: the plain breadth-first search (default on short scrambles), the IDA* alone
PATHS = [None, 0]


@pytest.mark.parametrize("plain_depth", PATHS)
@pytest.mark.parametrize("metric", rk.METRICS)
@pytest.mark.parametrize("scramble", SHALLOW)
def test_native_ida_optimal_on_shallow(scramble: str, metric: str, plain_depth: int | None) -> None:
    status, length, sol = _solve(scramble, "native-ida", metric=metric, plain_depth=plain_depth)
    assert status is Status.OPTIMAL, (scramble, metric)
    # the optimum is never longer than the scramble, and a BFS bound says it is that long
    man = rk.parse_maneuver(scramble)
    assert length is not None and length <= rk.maneuver_length(man, metric)
    assert sol is not None and rk.maneuver_length(sol.maneuvers[0], metric) == length


def _brute_force_solutions(cube: rk.Cube, lengths: set[int], metric: str) -> set[rk.Maneuver]:
    """Canonical move sequences with a length in ``lengths`` that solve ``cube`` (plain DFS)."""
    moves = rk.metric_moves(metric)
    bad_pairs = set(rk.forbidden_pairs(metric))
    bad_triples = set(rk.forbidden_triples(metric))
    out: set[rk.Maneuver] = set()

    def walk(state: rk.Cube, seq: tuple[int, ...]) -> None:
        if len(seq) in lengths and state.is_solved:
            out.add(rk.simplify(tuple(moves[j] for j in seq)))
        if len(seq) == max(lengths):
            return
        for j in range(len(moves)):
            if seq and (seq[-1], j) in bad_pairs:
                continue
            if len(seq) >= 2 and (seq[-2], seq[-1], j) in bad_triples:
                continue
            walk(state.move(moves[j]), seq + (j,))

    walk(cube, ())
    return out


@pytest.mark.parametrize("plain_depth", PATHS)
@pytest.mark.parametrize("metric", rk.METRICS)
def test_native_all_and_extra_match_brute_force(metric: str, plain_depth: int | None) -> None:
    # HTM: R L U' (3f) and everything up to 4f; QTM: R U' (2q) and everything up to 4q
    text, extra, lengths = ("R L U'", 1, {3, 4}) if metric == "htm" else ("R U'", 2, {2, 4})
    cube = rk.parse(text).cube
    status, length, sol = _solve(text, "native-ida", metric=metric, all=True, extra=extra, plain_depth=plain_depth)
    assert status is Status.OPTIMAL and sol is not None and length == min(lengths)
    expected = _brute_force_solutions(cube, lengths, metric)
    assert set(sol.maneuvers) == expected
    assert [rk.maneuver_length(m, metric) for m in sol.maneuvers] == sorted(
        rk.maneuver_length(m, metric) for m in sol.maneuvers
    )


@pytest.mark.parametrize("plain_depth", PATHS)
def test_native_all_shortest_of_the_checkerboard(plain_depth: int | None) -> None:
    # the three double-slice half turns commute: at least 3! optimal orders
    status, length, sol = _solve("R2 L2 U2 D2 F2 B2", "native-ida", all=True, plain_depth=plain_depth)
    assert status is Status.OPTIMAL and length == 6 and sol is not None
    assert len(sol.maneuvers) >= 6
    assert all(len(m) == 6 for m in sol.maneuvers)


@pytest.mark.parametrize("metric", rk.METRICS)
def test_three_strategies_agree(metric: str) -> None:
    text = "F R' U2" if metric == "htm" else "L2 D B'"
    names = ["native-ida", "cpsat-bmc", "cnf-bmc:cadical195"] + (["cnf-bmc:kissat404"] if metric == "htm" else [])
    results = {name: _solve(text, name, metric=metric)[:2] for name in names}
    assert len(set(results.values())) == 1, (text, metric, results)
    assert next(iter(results.values()))[0] is Status.OPTIMAL


def test_known_optima_from_shared_set() -> None:
    if not (SHARED / "benchmarks.tsv").exists():
        pytest.skip("shared instances absent")
    with (SHARED / "benchmarks.tsv").open() as fh:
        rows = [
            r
            for r in csv.DictReader(fh, delimiter="\t")
            if r["set"] == "shallow-exact-computed" and r["opt_htm"].isdigit() and int(r["opt_htm"]) <= 5
        ]
    assert rows
    for row in rows[:4]:
        status, length, _ = _solve(row["input"], "native-ida")
        assert (status, length) == (Status.OPTIMAL, int(row["opt_htm"])), row["label"]
        if row["opt_qtm"].isdigit() and int(row["opt_qtm"]) <= 6:
            status, length, _ = _solve(row["input"], "native-ida", metric="qtm")
            assert (status, length) == (Status.OPTIMAL, int(row["opt_qtm"])), row["label"]


@pytest.mark.parametrize("plain_depth", PATHS)
def test_max_depth_gives_unknown(plain_depth: int | None) -> None:
    status, length, sol = _solve("R U F D", "native-ida", max_depth=3, plain_depth=plain_depth)
    assert status is Status.UNKNOWN and sol is None
    status, length, sol = _solve("R U F D", "cnf-bmc:cadical195", max_depth=3)
    assert status is Status.UNKNOWN and sol is None


@pytest.mark.parametrize("strategy", ["native-ida", "cpsat-bmc", "cnf-bmc:cadical195"])
def test_max_depth_default_is_the_declared_one(strategy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the help of --max-depth and every strategy read the one table, per strategy and metric
    name = strategy.split(":")[0]
    assert f"{name} {rk.MAX_DEPTH[name][0]} htm / {rk.MAX_DEPTH[name][1]} qtm" in rk.MAX_DEPTH_OPTION.help
    monkeypatch.setitem(rk.MAX_DEPTH, name, (3, 3))
    res = run_strategy(rk.PUZZLE, rk.parse("R U F D"), strategy, Limits(timeout=120, options={"tables": "small"}))
    assert res.status is Status.UNKNOWN and "within 3 moves" in res.message, res.message


def test_solved_cube() -> None:
    for name in ("native-ida", "cpsat-bmc", "cnf-bmc:cadical195"):
        status, length, sol = _solve(rk.SOLVED_SINGMASTER, name)
        assert (status, length) == (Status.OPTIMAL, 0), name
        assert sol is not None and sol.maneuvers == ((),)


def test_parallel_split_matches_serial() -> None:
    from puzzlesat.native.rubik import ida as native

    text = "R U F' L2 D"
    inst = rk.parse(text)
    opts = {"metric": "htm", "tables": "small", "progress": False, "all": True, "plain_depth": 0}
    par = native.solve(inst, Limits(timeout=120, workers=2, options={**opts, "parallel_from": 0}))
    ser = native.solve(inst, Limits(timeout=120, workers=1, options=opts))
    assert par.status is ser.status is Status.OPTIMAL
    assert par.objective == ser.objective == 5
    assert par.solution is not None and ser.solution is not None
    assert set(par.solution.maneuvers) == set(ser.solution.maneuvers)
    assert rk.verify(inst, par.solution) == []


ESCALATIONS: dict[str, tuple[dict[str, float], dict[str, object]]] = {  # (options, patches)
    "before the first bound": ({"escalate_seconds": 0.0}, {}),
    "after two bounds": ({}, {"_predicted_nodes": lambda done, metric: 0.0 if len(done) < 2 else 1e18}),
    "inside a bound (its node budget)": ({}, {"_small_budget": lambda spent, rate, escalate: 1000}),
}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("when", ESCALATIONS)
def test_auto_goes_on_with_the_deeper_set_at_the_same_bound(
    when: str, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.rubik import ida as native

    made = []
    real = native.make_searcher

    def searcher(cube: rk.Cube, metric: str, name: str, quiet: bool = False, stop_at: float | None = None) -> object:
        made.append(name)
        return real(cube, metric, "small", quiet, stop_at)  # the deeper set played by the small one: no build

    monkeypatch.setattr(native, "make_searcher", searcher)
    monkeypatch.setattr(native, "tables_for", lambda cap: "phase1")
    monkeypatch.setattr(rubik_cache, "is_built", lambda name, metric: False)
    knobs, patches = ESCALATIONS[when]
    for name, value in patches.items():
        monkeypatch.setattr(native, name, value)
    for text, extra in (("F2 U' R D2 B L' U2 R' F D", 0), ("R U F' L2 D B' R2 U'", 1)):  # small bounds 7, 6
        inst = rk.parse(text)
        opts = {"metric": "htm", "progress": False, "all": bool(extra), "extra": extra, "plain_depth": 0, **knobs}
        made.clear()
        grown = native.solve(inst, Limits(timeout=120, workers=workers, options={**opts, "parallel_from": 0}))
        assert made == ["small", "phase1"] and grown.stats["tables"] == "phase1", (when, made)
        direct = native.solve(inst, Limits(timeout=120, workers=1, options={**opts, "tables": "small"}))
        assert grown.status is direct.status is Status.OPTIMAL
        assert grown.objective == direct.objective
        assert grown.solution is not None and direct.solution is not None
        assert set(grown.solution.maneuvers) == set(direct.solution.maneuvers)
        assert rk.verify(inst, grown.solution) == []


def test_a_time_limit_while_building_the_deeper_set_keeps_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.rubik import ida as native
    from puzzlesat.native.table_build import BuildStopped

    real = native.make_searcher

    def searcher(cube: rk.Cube, metric: str, name: str, quiet: bool = False, stop_at: float | None = None) -> object:
        if name != "small":
            raise BuildStopped(f"the rubik {name} tables", 0.25)
        return real(cube, metric, name, quiet, stop_at)

    monkeypatch.setattr(native, "make_searcher", searcher)
    monkeypatch.setattr(native, "tables_for", lambda cap: "phase1")
    monkeypatch.setattr(rubik_cache, "is_built", lambda name, metric: False)
    monkeypatch.setattr(native, "_predicted_nodes", lambda done, metric: 0.0 if len(done) < 1 else 1e18)
    opts = {"progress": False, "plain_depth": 0}
    res = native.solve(rk.parse("R U F' L2 D B' R2 U'"), Limits(timeout=60, options=opts))
    assert res.status is Status.UNKNOWN and res.solution is None
    assert "time limit while building the rubik phase1 tables (25% built; the next build resumes it)" in res.message
    assert "a deeper search needs" not in res.message
    assert f"no solution shorter than {res.stats['lower_bound']}" in res.message
    assert res.stats["deeper_from"] == res.stats["lower_bound"]


def test_tables_list_and_build_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clirun import run_cli

    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    before = run_cli("tables", "list")
    assert before.returncode == 0 and str(tmp_path) in before.stdout
    assert "small      htm     absent" in before.stdout and "docs/rubik.md" in before.stdout
    built = run_cli("tables", "build", "rubik", "small")
    assert built.returncode == 0 and "small htm tables built" in built.stderr
    after = run_cli("tables", "list").stdout
    assert "small      htm     built" in after and "phase1     htm     absent" in after
    for args, message in (
        (("tables", "build", "rubik", "phase7"), "unknown rubik table set 'phase7'"),
        (("tables", "build", "masyu"), "invalid choice: 'masyu'"),
    ):
        bad = run_cli(*args)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr


def test_the_first_solve_needs_no_large_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clirun import run_cli

    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    done = run_cli("solve", "rubik", "instances/rubik/scramble_8_seed1.txt")
    assert done.returncode == 0 and "(8f)" in done.stdout
    assert "path=plain" in done.stderr and not list(tmp_path.iterdir())  # no tables at all
    done = run_cli("solve", "rubik", "instances/rubik/scramble_8_seed1.txt", "-O", "plain_depth=0")
    assert done.returncode == 0 and "(8f)" in done.stdout
    assert "tables=small" in done.stderr
    kept = ["rubik-htm-small-v2-table.npy", "rubik-htm-small-v2.json", "rubik-htm-small-v2.partial.lock"]
    assert sorted(p.name for p in tmp_path.iterdir()) == kept  # the table, its note, the builds' lock


def test_plan_chunks_covers_every_subtree_once_in_shrinking_chunks() -> None:
    import numpy as np

    from puzzlesat.native.rubik.ida import MAX_CHUNKS, MAX_SHARE, plan_chunks

    weights = np.random.default_rng(6).pareto(1.5, 43254) + 1.0
    chunks = plan_chunks(weights, 2)
    assert np.array_equal(np.concatenate(chunks), np.arange(len(weights)))
    sizes = [float(weights[c].sum()) for c in chunks]
    assert len(chunks) <= MAX_CHUNKS
    assert sizes[0] > 10 * sizes[-2]  # the last chunks are small: the workers finish together
    assert max(sizes[len(sizes) // 2 :]) < 0.1 * sum(sizes)
    assert all(s <= sum(sizes) / MAX_SHARE + max(weights) for s in sizes)  # no big first chunk
    assert [list(c) for c in plan_chunks(np.ones(3), 4)] == [[0], [1], [2]]


def test_ask_reads_the_options_once() -> None:
    from puzzlesat.native.rubik.ida import Ask

    ask = Ask.of({"metric": "qtm", "extra": 1, "progress": False}, "qtm")
    assert (ask.find_all, ask.extra, ask.step, ask.quiet) == (True, 1, 2, True)
    plain = Ask.of({}, "htm")
    assert (plain.find_all, plain.extra, plain.step, plain.quiet) == (False, 0, 1, False)
    assert Ask.of({"max_depth": 9}, "htm").max_depth == 9


def test_auto_starts_on_the_small_set_until_the_deeper_one_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.rubik import ida as native

    built: set[str] = set()
    monkeypatch.setattr(rubik_cache, "is_built", lambda name, metric: name in built)
    monkeypatch.setattr(native, "tables_for", lambda cap: "phase1")
    assert native.choose_tables("full", "htm") == ("full", None)  # as asked, built or not
    assert native.choose_tables(None, "htm") == native.choose_tables("auto", "htm") == ("small", "phase1")
    built.add("phase1")
    assert native.choose_tables("auto", "qtm") == ("phase1", None)
    monkeypatch.setattr(native, "tables_for", lambda cap: "small")
    assert native.choose_tables("auto", "htm") == ("small", None)


def test_an_iteration_is_planned_busiest_first_and_searches_what_the_kernel_does() -> None:
    import time

    import numpy as np

    from puzzlesat.core.kernel_status import EXHAUSTED, FOUND
    from puzzlesat.native.rubik import ida as native

    inst = rk.parse("R U F' L2 D B' R2 U'")  # optimum 8
    cube = inst.cube
    searcher = native.make_searcher(cube, "htm", "small", quiet=True)
    every = native.prefixes(searcher.moves.next_state, native.PREFIX_DEPTH)
    plan = native.plan_iteration(searcher, 7, native.PREFIX_DEPTH, None, 1)
    assert (plan.rows == every).all()  # equal weights: the prefixes' own order
    assert sorted(np.concatenate(plan.chunks).tolist()) == list(range(len(every)))
    last = np.random.default_rng(3).integers(0, 1000, len(every))
    plan = native.plan_iteration(searcher, 7, native.PREFIX_DEPTH, last, 1)
    assert (plan.rows == every[plan.busiest]).all()
    assert (plan.rows[0] == every[int(np.argmax(last))]).all()
    assert (np.diff(plan.weights) <= 0).all()
    # one iteration, stage by stage: the nodes below each prefix are the kernel's on the same prefixes
    limits = Limits(timeout=120, options={"tables": "small", "progress": False, "plain_depth": 0})
    ask = native.Ask.of(limits.options, "htm")
    iterations = native.Iterations(cube, ask, limits, time.perf_counter(), _no_plain(), "small", None)
    assert iterations.bound <= 7
    iterations.bound = 7
    it = iterations.iterate(False, None)
    _, _, count, nodes = searcher.run(every, 7, False, 10**12)
    assert it.status == EXHAUSTED and not it.solutions and count == 0
    assert (it.nodes == nodes).all() and iterations.stats["nodes"] == int(nodes.sum())
    assert iterations.settle(it, False) and iterations.bound == 8 and iterations.stats["lower_bound"] == 7
    found = iterations.iterate(False, None)
    assert found.status == FOUND and len(found.solutions) == 1
    assert not iterations.settle(found, False)  # an answer: no next bound
    res = iterations.result()
    assert res.status is Status.OPTIMAL and res.objective == 8 and res.solution is not None
    assert rk.verify(inst, res.solution) == []


def _no_plain() -> object:
    """What the plain search hands on when it found nothing (it searched no length)."""
    from puzzlesat.native.rubik import plain as rubik_plain
    from puzzlesat.native.rubik import tables as rubik_tables

    moves = rubik_tables.move_set("htm").moves
    return rubik_plain.Outcome(found=[], best=None, searched=-1, step=1, moves=moves, rows=0, seconds=0.0)


def test_pattern_databases_are_lower_bounds() -> None:
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.rubik import kernels as rubik_kernels
    from puzzlesat.native.rubik import tables as rubik_tables
    from puzzlesat.native.rubik.arrays import Codes, Pdbs
    from puzzlesat.native.rubik.ida import cube_arrays

    rng = random.Random(7)
    for metric in rk.METRICS:
        tables = rubik_cache.load("small", metric, quiet=True)
        sym = rubik_tables.symmetric_lookups("small", 4)
        pdbs = Pdbs(tables.specs, tables.tracked, tables.table, True, *sym)
        for length in range(0, 9):
            man = rk.random_maneuver(length, rng)
            if metric == "qtm":
                man = tuple((f, t) for f, t in man if t != 2)
            h = rubik_kernels.full_heuristic(Codes(*cube_arrays(rk.SOLVED.apply(man))), pdbs)
            assert h <= rk.maneuver_length(man, metric), (metric, man, h)
        assert rubik_kernels.full_heuristic(Codes(*cube_arrays(rk.SOLVED)), pdbs) == 0


def test_damaged_tables_are_rebuilt() -> None:
    from puzzlesat.native.rubik import cache as rubik_cache

    first = rubik_cache.load("small", "htm", quiet=True)
    files, note = rubik_cache.paths("small", "htm")
    npy = files["table"]
    assert npy.exists() and note.exists() and rubik_cache.is_built("small", "htm")
    assert rubik_cache.verify("small", "htm") == []
    data = bytearray(npy.read_bytes())
    data[-10] ^= 0xFF
    npy.write_bytes(bytes(data))
    assert rubik_cache.verify("small", "htm") == [f"{npy}: its digest differs from the note's"]
    again = rubik_cache.load("small", "htm", quiet=True)
    assert again.loaded_from == "built"
    assert bytes(again.table) == bytes(first.table)
    assert rubik_cache.load("small", "htm", quiet=True).loaded_from.startswith("cache (stamps")


def test_a_stopped_korf_build_resumes_to_the_same_table(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from puzzlesat.native import table_build as tb
    from puzzlesat.native.rubik import cache as rubik_cache

    whole = rubik_cache.load("small", "qtm", quiet=True)
    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    shares = []
    for _ in range(40):
        try:
            rubik_cache.load("small", "qtm", quiet=True, stop_at=0.0)  # one level a run
            break
        except tb.BuildStopped as exc:
            shares.append(exc.done)
    assert len(shares) > 3 and shares == sorted(shares)
    again = rubik_cache.load("small", "qtm", quiet=True)
    assert bytes(again.table) == bytes(whole.table)
    assert not rubik_cache.work_folder("small", "qtm").exists()


def test_file_digest_sees_a_flipped_bit_and_swapped_blocks(tmp_path) -> None:  # noqa: ANN001
    import numpy as np

    from puzzlesat.native.table_build import file_digest

    data = np.random.default_rng(3).integers(0, 255, (3 << 20) + 5, dtype=np.uint8)
    path = tmp_path / "t.bin"
    data.tofile(path)
    base = file_digest(path)
    assert file_digest(path) == base
    flipped = data.copy()
    flipped[(1 << 20) + 3] ^= 4
    flipped.tofile(path)
    assert file_digest(path) != base
    swapped = np.concatenate([data[1 << 20 : 2 << 20], data[: 1 << 20], data[2 << 20 :]])
    swapped.tofile(path)
    assert file_digest(path) != base
    data[:-1].tofile(path)
    assert file_digest(path) != base


# ---------------------------------------------------------------- export / decode


def test_cnf_export_decode_round_trip() -> None:
    from pysat.solvers import Solver

    from puzzlesat.encoders.rubik import encode

    inst = rk.parse("R2 F U'")
    for horizon, expect in ((2, False), (3, True)):
        enc = encode(inst, {"horizon": horizon, "metric": "htm"})
        with Solver(name="cadical195", bootstrap_with=enc.cnf.clauses) as solver:
            assert solver.solve() is expect
            if expect:
                sol = enc.decode(enc.true_keys(solver.get_model()))
                assert rk.verify(inst, sol) == []
                assert sol.length == 3


def test_cli_export_and_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    from puzzlesat.cli import main

    src = tmp_path / "pos.txt"
    src.write_text("R U2 F'\n")
    cnf_path = tmp_path / "q.cnf"
    assert main(["export", "rubik", str(src), "-s", "cnf-bmc", "-O", "horizon=3", "-o", str(cnf_path)]) == 0
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    capsys.readouterr()
    assert main(["decode", "rubik", str(answer), "--map", str(cnf_path) + ".json"]) == 0
    sol = rk.parse_solution(rk.parse("R U2 F'"), capsys.readouterr().out)
    assert sol is not None and sol.length == 3


def test_cpsat_model_export(tmp_path: Path) -> None:
    from puzzlesat.models.rubik import build_model

    model, bv = build_model(rk.parse("R U"), {"horizon": 2})
    assert len(bv.mv) == 2
    assert model.export_to_file(str(tmp_path / "m.pb.txt"))


@pytest.mark.slow
def test_benchmark_quick_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "rubik.py"), "--quick"],
        timeout=300,
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "native-ida" in out.stdout


@pytest.mark.slow
def test_node_benchmark_counts_the_same_nodes_twice() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "rubik_nodes.py"), "--tables", "small", "small"]
        + ["--generated", "9:1", "--bound", "7"],
        timeout=300,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    totals = [line.split("|") for line in lines if line.startswith("| small | ") and "generated" not in line]
    assert len(totals) == 2 and int(totals[0][2].replace(",", "")) > 0
    assert totals[0][2] == totals[1][2]  # node counts are deterministic


def _sequence_counts(metric: str, depth: int) -> list[int]:
    from puzzlesat.native.rubik.tables import move_set

    table = move_set(metric).next_state
    states = {0: 1}
    counts = []
    for _ in range(depth):
        nxt: dict[int, int] = {}
        for s, n in states.items():
            for m in range(table.shape[1]):
                if table[s, m] >= 0:
                    nxt[int(table[s, m])] = nxt.get(int(table[s, m]), 0) + n
        states = nxt
        counts.append(sum(nxt.values()))
    return counts


def test_canonical_sequences() -> None:
    # Korf 1997: canonical HTM sequences by depth (not positions: 43254 > 43239 at depth 4)
    assert _sequence_counts("htm", 6) == [18, 243, 3240, 43254, 577368, 7706988]
    # in QTM they equal the positions up to depth 5
    assert _sequence_counts("qtm", 5) == list(QTM_COUNTS[1:]) + [93840]


@pytest.mark.parametrize("metric", rk.METRICS)
def test_search_automaton_matches_bmc_constraints(metric: str) -> None:
    from puzzlesat.native.rubik.tables import move_set

    table = move_set(metric).next_state
    nm = table.shape[1]
    pairs = set(rk.forbidden_pairs(metric))
    triples = set(rk.forbidden_triples(metric))
    for a in range(nm):
        for b in range(nm):
            after_b = table[table[0, a], b]
            assert (after_b < 0) == ((a, b) in pairs), (a, b)
            if after_b >= 0:
                for c in range(nm):
                    allowed = table[after_b, c] >= 0
                    assert allowed == ((b, c) not in pairs and (a, b, c) not in triples), (a, b, c)


def test_rotations_and_conjugated_edge_lookups() -> None:
    from puzzlesat.native.rubik import symmetry as rubik_symmetry
    from puzzlesat.native.rubik import tables as rubik_tables
    from puzzlesat.native.rubik.ida import cube_arrays

    rots = rubik_symmetry.rotations()
    moves = set(rk.move_cubes())
    assert len(set(rots)) == 24
    assert all(s.inverse() * m * s in moves for s in rots for m in rk.move_cubes())
    sym_pdb, sym_pre, sym_code = rubik_tables.symmetric_lookups("full", 8)
    assert len(sym_pdb) == 8
    rng = random.Random(2)
    for lk in range(len(sym_pdb)):
        rot = next(r for r in rots if all(r.ep[e] == sym_pre[lk, e] for e in range(12)))
        for _ in range(5):
            cube = rk.random_cube(rng)
            _, ec = cube_arrays(cube)
            _, conj = cube_arrays(rot.inverse() * cube * rot)
            assert all(conj[e2] == sym_code[lk, sym_pre[lk, e2], ec[sym_pre[lk, e2]]] for e2 in range(12))


def test_auto_tables_take_the_largest_set_under_the_memory_cap() -> None:
    from puzzlesat.native.rubik.cache import TABLE_MEMORY_MB
    from puzzlesat.native.rubik.ida import tables_for

    assert tables_for(None) == "phase1"
    assert tables_for(TABLE_MEMORY_MB["phase1"]) == "phase1"
    assert tables_for(TABLE_MEMORY_MB["phase1"] - 1) == "phase1x12"
    assert tables_for(1000) == "phase1x12"
    assert tables_for(TABLE_MEMORY_MB["phase1x12"] - 1) == "phase1x6"
    assert tables_for(500) == "full"
    assert tables_for(100) == "small"


def test_memory_cap_is_read_from_rlimit_data() -> None:
    # --memory-limit sets RLIMIT_DATA on the solving process; the solver reads it back
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_DATA, (1500 << 20, 1500 << 20)); "
        "from puzzlesat.native.rubik.ida import memory_cap_mb, tables_for; "
        "print(memory_cap_mb(), tables_for(memory_cap_mb()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["1500", "phase1x12"]
