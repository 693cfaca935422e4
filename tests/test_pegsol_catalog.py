"""``puzzlesat catalog pegsol``: the problems up to symmetry, the verdicts and their evidence,
the tables, resuming from a results file, and the command line."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from puzzlesat import api
from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains import pegsol as P
from puzzlesat.domains.pegsol.catalog import (
    Problem,
    board_cells,
    problem_instance,
    problems,
    proof,
    reverse,
    reversed_solution,
    symmetries,
)
from puzzlesat.portfolio import catalog as cat

REPO = Path(__file__).resolve().parents[1]
CELL = r"[0-9]+:[0-9]+"


def brute_orbits(rows: int, cols: int, cells: list[P.Cell]) -> int:
    """Orbits of (start, finish) pairs, from the board matrix's own rotations and reflections."""
    on = set(cells)

    def rot(x: P.Cell, h: int) -> P.Cell:  # a quarter turn of an h-row matrix
        return (x[1], h - 1 - x[0])

    maps = []
    for turns in range(4):
        for flip in (False, True):

            def m(x: P.Cell, turns: int = turns, flip: bool = flip) -> P.Cell:
                h, w = rows, cols
                if flip:
                    x = (x[0], w - 1 - x[1])
                for _ in range(turns):
                    x, (h, w) = rot(x, h), (w, h)
                return x

            maps.append(m)
    maps = [m for m in maps if {m(x) for x in cells} == on]
    seen: set[tuple[P.Cell, P.Cell]] = set()
    orbits = 0
    for pair in ((s, f) for s in cells for f in cells):
        if pair not in seen:
            orbits += 1
            seen |= {(m(pair[0]), m(pair[1])) for m in maps}
    return orbits


@pytest.mark.parametrize(
    ("board", "rows", "cols", "group"),
    [("rect", 3, 3, 8), ("rect", 4, 4, 8), ("rect", 3, 4, 4), ("rect", 2, 5, 4), ("english", None, None, 8)],
)
def test_orbits_match_brute_force(board, rows, cols, group):
    height, width, cells = board_cells(board, rows, cols)
    assert len(symmetries(height, width, cells)) == group
    found = problems(height, width, cells)
    assert len(found) == brute_orbits(height, width, cells)
    assert sum(p.orbit for p in found) == len(cells) ** 2  # the orbits partition the pairs


def test_english_has_151_classes_and_diamond_is_symmetric():
    height, width, cells = board_cells("english")
    assert len(problems(height, width, cells)) == 151
    height, width, cells = board_cells("diamond")
    assert len(cells) == 41 and len(symmetries(height, width, cells)) == 8


def test_symmetric_problems_share_the_proofs():
    height, width, cells = board_cells("rect", 4, 4)
    maps = symmetries(height, width, cells)

    def reason(start: P.Cell, finish: P.Cell) -> str | None:
        found = proof(problem_instance(height, width, cells, start, finish))
        return None if found is None else found[0]

    for p in problems(height, width, cells):
        assert len({reason(m(p.start), m(p.finish)) for m in maps}) == 1


@pytest.mark.parametrize(
    ("board", "rows", "cols", "says"),
    [("english", 5, None, "own shape"), ("rect", 0, 3, "--rows must be at least 1"), ("hex", None, None, "unknown")],
)
def test_bad_boards(board, rows, cols, says):
    with pytest.raises(InvalidInstanceError, match=says):
        board_cells(board, rows, cols)


def test_pagoda_evidence_lists_weights():
    height, width, cells = board_cells("rect", 3, 3)
    reason, evidence = proof(problem_instance(height, width, cells, (1, 1), (1, 1)))  # type: ignore[misc]
    assert reason == "pagoda" and "weights 1:1=1" in evidence and "worth 0 on the start and 1 on the goal" in evidence


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[api.Catalog, Path, str]:
    results = tmp_path_factory.mktemp("catalog") / "runs.jsonl"
    log = io.StringIO()
    done = api.catalog("pegsol", "rect", rows=3, cols=3, jobs=2, timeout=30, results=results, stream=log)
    return done, results, log.getvalue()


def test_small_catalog_verdicts(small):
    done, _, log = small
    assert len(done) == 15
    assert "15 classes of 81 problems, 13 ruled out by proofs, 0 answered by their reverses, " in log
    assert "0 settled in the results file, 2 to search" in log
    assert "c catalog 1/" in log and "c compare" not in log  # its runs are the catalog's (issue 51)
    reasons = {(e.start, e.finish): e.reason for e in done}
    assert reasons[("1:1", "1:1")] == "pagoda" and reasons[("0:0", "0:0")] == "search"
    assert all(e.verdict == "impossible" for e in done)
    searched = [e for e in done if e.reason == "search"]
    assert all(e.strategy == "native-dfs" and "nodes" in e.evidence for e in searched)
    assert done.summary()["impossible (parity) problems"] == 72


def test_csv_header_and_cells(small):
    done, _, _ = small
    text = done.table("csv")
    assert text.splitlines()[0] == "start,finish,verdict,evidence,seconds"
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 15
    for row in rows:
        assert row["verdict"] in ("solvable", "impossible")
        for key in ("start", "finish"):
            assert re.fullmatch(CELL, row[key])
        float(row["seconds"])
    assert json.loads(done.table("json"))[0]["start"] == "0:0"
    assert "| all | 15 | 81 |" in done.table("markdown")


def test_resume_reruns_nothing(small):
    done, results, _ = small
    before = results.read_bytes()
    for timeout in (30, 5):  # a settled problem holds under any time limit
        log = io.StringIO()
        again = api.catalog("pegsol", "rect", rows=3, cols=3, jobs=2, timeout=timeout, results=results, stream=log)
        assert results.read_bytes() == before  # nothing appended: nothing ran
        assert "2 settled in the results file, 0 to search" in log.getvalue()
        assert [(e.verdict, e.evidence) for e in again] == [(e.verdict, e.evidence) for e in done]
        searched = [(e.seconds, e.strategy) for e in again if e.strategy != "proofs"]
        assert searched == [(e.seconds, e.strategy) for e in done if e.strategy != "proofs"]


def test_resume_retries_the_undecided(tmp_path):
    results = tmp_path / "runs.jsonl"
    late = cat.Record("pegsol", "rect1x4 0:1>0:2", "native-dfs", "UNKNOWN", None, 1.0, message="timeout", timeout=1.0)
    results.write_text(json.dumps(asdict(late)) + "\n")
    log = io.StringIO()
    done = api.catalog("pegsol", "rect", rows=1, cols=4, timeout=30, results=results, stream=log)
    assert "0 settled in the results file, 1 to search" in log.getvalue()
    assert [e.verdict for e in done if e.start == "0:1" and e.finish == "0:2"] == ["solvable"]
    assert len(results.read_text().splitlines()) == 2  # the new run appended


def test_solvable_entries_replay():
    done = api.catalog("pegsol", "rect", rows=4, cols=4, jobs=2, timeout=30)
    solvable = [e for e in done if e.verdict == "solvable"]
    assert [(e.start, e.finish, e.orbit) for e in solvable] == [("0:1", "0:2", 8), ("0:1", "3:2", 8)]
    height, width, cells = board_cells("rect", 4, 4)
    for e in solvable:
        start, finish = (tuple(map(int, x.split(":"))) for x in (e.start, e.finish))
        inst = problem_instance(height, width, cells, start, finish)  # type: ignore[arg-type]
        moves = P.parse_solution(inst, "\n".join(e.evidence.split()))
        assert moves is not None and P.verify(inst, moves) == []
        # each is its own reverse up to symmetry: the solution played backwards solves it too
        rs, rf, back = reverse(height, width, cells, Problem(start, finish, e.orbit))  # type: ignore[arg-type]
        assert (rs, rf) == (start, finish)
        assert P.verify(inst, reversed_solution(moves, back)) == []


def test_a_problem_takes_its_reverses_answer():
    done = api.catalog("pegsol", "rect", rows=1, cols=5, jobs=2, timeout=30)
    derived = [e for e in done if e.strategy.endswith("reversed")]
    assert [(e.start, e.finish, e.verdict) for e in derived] == [("0:1", "0:0", "impossible")]
    assert derived[0].evidence.startswith("as its reverse 0:0>0:1 (the same game played backwards): exhausted search")


def test_the_settled_direction_is_kept(tmp_path):
    # only the second of the pair is settled in the results file: the first takes its answer
    results = tmp_path / "runs.jsonl"
    refuted = cat.Record(
        "pegsol", "rect1x5 0:1>0:0", "native-dfs", "INFEASIBLE", 0.1, 1.0, stats={"nodes": 2}, timeout=9.0
    )
    results.write_text(json.dumps(asdict(refuted)) + "\n")
    log = io.StringIO()
    done = api.catalog("pegsol", "rect", rows=1, cols=5, timeout=30, results=results, stream=log)
    assert "1 answered by their reverses, 1 settled in the results file, 2 to search" in log.getvalue()
    derived = [(e.start, e.finish) for e in done if e.strategy.endswith("reversed")]
    assert derived == [("0:0", "0:1")]


def test_a_forged_answer_is_not_solvable():
    height, width, cells = board_cells("rect", 1, 3)
    problem = problems(height, width, cells)[1]
    inst = problem_instance(height, width, cells, problem.start, problem.finish)
    forged = cat.Record("pegsol", "x", "native-dfs", "SOLVED", 0.1, 0.2, answer="0:0-0:2\n")
    got = cat.entry(problem, inst, [forged])
    assert got.verdict == "unknown" and "verifier rejects" in got.evidence


def test_timeouts_are_unknown():
    height, width, cells = board_cells("rect", 3, 3)
    problem = problems(height, width, cells)[0]
    inst = problem_instance(height, width, cells, problem.start, problem.finish)
    late = cat.Record("pegsol", "x", "native-dfs", "UNKNOWN", None, 5.0, message="timeout")
    got = cat.entry(problem, inst, [late])
    assert (got.verdict, got.reason) == ("unknown", "timeout")


def test_cli_end_to_end(tmp_path):
    results = tmp_path / "runs.jsonl"
    args = [sys.executable, "-m", "puzzlesat.cli", "catalog", "pegsol", "--board", "rect", "--rows", "1"]
    args += ["--cols", "4", "--format", "csv", "--jobs", "2", "--results", str(results)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [r["start"] + ">" + r["finish"] for r in rows if r["verdict"] == "solvable"] == ["0:1>0:2"]
    assert len(rows) == 8 and "c catalog: 8 classes of 16 problems, 7 ruled out by proofs" in done.stderr
    bad = subprocess.run(
        [*args[:5], "--board", "rect", "--rows", "10", "--cols", "10"], capture_output=True, text=True, cwd=REPO
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "limit of 81" in bad.stderr


@pytest.mark.slow
def test_english_catalog(tmp_path):
    """Beasley: on the English board every problem that passes the position-class test is solvable."""
    done = api.catalog("pegsol", "english", jobs=2, timeout=120, results=tmp_path / "runs.jsonl")
    counts = done.summary()
    assert counts["orbits"] == 151 and counts["problems"] == 1089
    assert counts.get("unknown orbits", 0) == 0
    assert counts["impossible (parity) problems"] + counts["solvable problems"] == 1089
    height, width, cells = board_cells("english")
    for e in done:
        if e.verdict == "solvable":
            start, finish = (tuple(map(int, x.split(":"))) for x in (e.start, e.finish))
            inst = problem_instance(height, width, cells, start, finish)  # type: ignore[arg-type]
            moves = P.parse_solution(inst, "\n".join(e.evidence.split()))
            assert moves is not None and P.verify(inst, moves) == []
