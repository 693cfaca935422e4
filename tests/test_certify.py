"""Certified answers: DRAT proofs written, checked by a checker sharing no code with the solver,
and rejected when tampered with; every other claim labelled with what it rests on.

The checker cases run once per checker at hand (drat-trim on PATH, dratify from
``puzzlesat[certify]``) and skip when there is none.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from clirun import run_cli

import puzzlesat
from puzzlesat.core import Status, certify, proofcheck

ROOT = Path(__file__).resolve().parents[1]
CHECKERS = proofcheck.available_checkers()
needs_checker = pytest.mark.skipif(not CHECKERS, reason='no DRAT checker: pip install "puzzlesat[certify]"')
each_checker = pytest.mark.parametrize("checker", CHECKERS or [pytest.param("none", marks=needs_checker)])


def refutation(clauses: list[list[int]], solver: str = "cadical195") -> tuple[bool, list[str]]:
    """(satisfiable, the proof lines) from a pysat solver logging its proof."""
    from pysat.solvers import Solver

    with Solver(name=solver, bootstrap_with=clauses, with_proof=True) as sat:
        outcome = bool(sat.solve())
        return outcome, list(sat.get_proof() or [])


def write(tmp: Path, stem: str, clauses: list[list[int]], proof: list[str]) -> tuple[Path, Path]:
    cnf, drat = tmp / f"{stem}.cnf", tmp / f"{stem}.drat"
    proofcheck.write_cnf(cnf, clauses)
    proofcheck.write_proof(drat, proof)
    return cnf, drat


def pigeons(holes: int) -> list[list[int]]:
    """holes + 1 pigeons in ``holes`` holes: unsatisfiable, and every clause is needed."""
    from pysat.examples.genhard import PHP

    return [list(c) for c in PHP(holes).clauses]


def random_3sat(seed: int, variables: int = 20, clauses: int = 91) -> list[list[int]]:
    """Near the threshold (4.55 clauses a variable): about half satisfiable."""
    rng = random.Random(seed)
    return [[v * rng.choice((1, -1)) for v in rng.sample(range(1, variables + 1), 3)] for _ in range(clauses)]


@each_checker
def test_checker_agrees_with_the_solver_on_many_small_formulas(tmp_path: Path, checker: str) -> None:
    """UNSAT: the proof is accepted.  SAT: the same solver's proof, made to claim the empty
    clause, is rejected (a satisfiable formula has no refutation).  Both kinds occur."""
    seen = {True: 0, False: 0}
    for seed in range(24):
        clauses = random_3sat(seed)
        sat, proof = refutation(clauses, "cadical195" if seed % 2 else "glucose4")
        seen[sat] += 1
        if sat:
            proof = [*proof, "0"]
        cnf, drat = write(tmp_path, f"r{seed}", clauses, proof)
        verdict = proofcheck.check(cnf, drat, checker, timeout=30)
        assert verdict.ok is (not sat), (seed, sat, verdict)
    assert seen[True] >= 3 and seen[False] >= 3, seen


@each_checker
def test_tampering_is_caught(tmp_path: Path, checker: str) -> None:
    clauses = pigeons(4)
    sat, proof = refutation(clauses)
    assert not sat
    cnf, drat = write(tmp_path, "php", clauses, proof)
    assert proofcheck.check(cnf, drat, checker).ok
    # a clause missing from the CNF (pigeonhole formulas are minimally unsatisfiable)
    short, _ = write(tmp_path, "short", clauses[1:], [])
    assert not proofcheck.check(short, drat, checker).ok
    # the proof of another instance
    other = pigeons(3)
    assert not refutation(other)[0]
    foreign, _ = write(tmp_path, "other", other, [])
    assert not proofcheck.check(foreign, drat, checker).ok
    # the empty clause claimed before it follows
    _, early = write(tmp_path, "early", clauses, ["0"])
    assert not proofcheck.check(cnf, early, checker).ok
    # the first lemma negated: it no longer follows, and the refutation needs it
    changed = list(proof)
    changed[0] = negated(proof[0])
    _, flipped = write(tmp_path, "flipped", clauses, changed)
    assert not proofcheck.check(cnf, flipped, checker).ok


def negated(lemma: str) -> str:
    return " ".join(str(-int(x)) for x in lemma.split()[:-1]) + " 0"


@pytest.mark.skipif(len(CHECKERS) < 2, reason="needs two checkers (drat-trim, dratify's engines)")
def test_the_checkers_agree_on_every_changed_lemma(tmp_path: Path) -> None:
    """Each lemma of a pigeonhole refutation negated in turn: the checkers at hand (drat-trim:
    backward, only the lemmas its refutation uses; dratify: forward, every lemma, in Rust or
    Python) give the same verdicts, and most of the changed proofs are rejected (the rest
    negate a lemma that still follows)."""
    clauses = pigeons(4)
    _, proof = refutation(clauses)
    cnf, _ = write(tmp_path, "php", clauses, proof)
    verdicts = []
    for i, line in enumerate(proof):
        if line.startswith("d") or line.strip() == "0":
            continue
        changed = list(proof)
        changed[i] = negated(line)
        _, drat = write(tmp_path, "changed", clauses, changed)
        verdicts.append([proofcheck.check(cnf, drat, checker).ok for checker in CHECKERS])
    assert all(len(set(row)) == 1 for row in verdicts), verdicts
    assert sum(not row[0] for row in verdicts) > len(verdicts) // 2


def broken_board(tmp_path: Path) -> Path:
    """The seed 4x4 edge-matching board with one colour changed: no solution."""
    lines = (ROOT / "instances" / "eternity" / "seed_4x4.txt").read_text().splitlines()
    lines[1] = "0 2 2 0"
    path = tmp_path / "broken.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@needs_checker
def test_no_solution_certified_through_the_cli(tmp_path: Path) -> None:
    board = broken_board(tmp_path)
    out = tmp_path / "proofs"
    proc = run_cli("solve", "eternity", str(board), "-s", "cnf-heule", "--certify", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["certificate"]
    assert block["standing"] == "certified"
    [claim] = block["claims"]
    assert claim["kind"] == "no solution" and claim["lemmas"] > 0
    assert Path(claim["cnf"]).is_file() and Path(claim["proof"]).is_file()
    assert "c certified: no solution" in proc.stderr and "checked by" in proc.stderr
    # the files are what an outside checker needs: check them again, from scratch
    assert proofcheck.check(Path(claim["cnf"]), Path(claim["proof"])).ok


@needs_checker
def test_claims_without_a_proof_say_so(tmp_path: Path) -> None:
    board = puzzlesat.load("eternity", broken_board(tmp_path))
    labels = {
        "cnf-heule:kissat404": "writes no proof",
        "native-rowscan": "exhausted search",
        "cpsat-table": "claimed by CP-SAT",
    }
    for strategy, words in labels.items():
        result = puzzlesat.solve(board, strategy, certify=tmp_path / "p", timeout=60)
        assert result.status is Status.INFEASIBLE
        [cert] = result.certificates
        assert cert.status == "uncertified" and words in cert.line(), cert.line()


@needs_checker
def test_optimal_certified_one_step_below(tmp_path: Path) -> None:
    blacken = puzzlesat.load("blacken", ROOT / "instances" / "blacken" / "seed_7x7.txt")
    result = puzzlesat.solve(blacken, "cnf-steps", certify=tmp_path)
    assert result.status is Status.OPTIMAL and result.objective == 6
    [cert] = result.certificates
    assert (cert.kind, cert.claim, cert.status) == ("optimal", "no plan of 5 moves", "certified")
    # the assumption "at most 5 moves" is in the certified CNF as a unit clause
    assert cert.clauses > 0 and Path(cert.cnf).read_text().count("\n") > cert.clauses
    cube = puzzlesat.load("rubik", "R U")
    result = puzzlesat.solve(cube, "cnf-bmc", certify=tmp_path)
    assert result.objective == 2 and [c.claim for c in result.certificates] == [
        "no maneuver of 0 htm moves",
        "no maneuver of 1 htm moves",
    ]
    assert all(c.status == "certified" for c in result.certificates)


@needs_checker
def test_unique_certified_and_lazy_cuts_named(tmp_path: Path) -> None:
    loop = puzzlesat.load("masyu", "https://puzz.link/p?masyu/6/6/00016f769000")
    for strategy in ("cnf-rank", "cnf-lazy"):
        result = puzzlesat.solve(loop, strategy, unique=True, certify=tmp_path)
        assert result.stats["unique"] is True
        [cert] = result.certificates
        assert cert.kind == "unique" and cert.checked
    # a board whose lazy refutation needed loop cuts: certified, modulo the cuts
    board = puzzlesat.load("masyu", ROOT / "instances" / "masyu" / "gen_10x10_s1.txt").data
    from puzzlesat.domains import masyu

    blocked = masyu.Instance(board.rows, board.cols, board.black, tuple(sorted({*board.white, (0, 0)})))
    result = puzzlesat.solve(puzzlesat.api.Instance("masyu", blocked), "cnf-lazy", certify=tmp_path)
    if result.status is Status.INFEASIBLE:
        [cert] = result.certificates
        assert cert.checked
        assert (cert.status == "certified-modulo") == (result.stats["cuts"] > 0)


@needs_checker
def test_pegsol_argument_written_and_rechecked(tmp_path: Path) -> None:
    path = ROOT / "instances" / "pegsol" / "rect3x3_center.txt"
    board = puzzlesat.load("pegsol", path)
    result = puzzlesat.solve(board, "cnf-plan", certify=tmp_path)
    [cert] = result.certificates
    assert cert.status == "argument" and "pagoda" in cert.how
    proc = run_cli("check", "pegsol", str(path), cert.proof)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(Path(cert.proof).read_text())
    key = next(iter(data["weights"]))
    data["weights"][key] = "100"  # a weight that lets some jump gain
    assert puzzlesat.check(board, json.dumps(data))
    # with the arguments off, the SAT solver's refutation is certified instead
    result = puzzlesat.solve(board, "cnf-plan", certify=tmp_path, no_proofs=True)
    assert [c.status for c in result.certificates] == ["certified"]


def test_basis_without_certify() -> None:
    assert certify.basis("native", None, {"nodes": 3}) == "exhausted search, 3 nodes"
    assert certify.basis("cpsat", None, {}) == "claimed by CP-SAT"
    assert "no proof" in certify.basis("sat", "kissat404", {})
    assert certify.basis("other", None, {}) == "claimed by the strategy"


def test_basis_reads_the_declared_engine_not_the_name() -> None:
    """A CP-SAT strategy named otherwise is labelled by its declaration."""
    from puzzlesat.core import Strategy

    oddly_named = Strategy("mine", "x:y", "CP-SAT under another name", engine="cpsat")
    eternity = puzzlesat.core.get_puzzle("eternity")
    puzzle = dataclasses.replace(eternity, strategies=(*eternity.strategies, oddly_named))
    assert certify.engine_of(puzzle, "mine") == ("cpsat", None)
    assert certify.engine_of(puzzle, "cnf-heule:kissat404") == ("sat", "kissat404")
    assert certify.engine_of(puzzle, "no-such") == ("other", None)
    with pytest.raises(ValueError, match="engine 'z3'"):
        Strategy("bad", "x:y", "", engine="z3")
    assert certify.claims("OPTIMAL", {"unique": True}, True) == ["optimal", "unique"]


@needs_checker
def test_portfolio_certifies_with_its_members(tmp_path: Path) -> None:
    """A solution needs no certificate: the race says how it certifies and answers as usual
    (a claim certified after the race: tests/test_portfolio.py)."""
    seed = str(ROOT / "instances/eternity/seed_4x4.txt")
    proc = run_cli("solve", "eternity", seed, "--portfolio", "--certify", str(tmp_path / "proofs"))
    assert proc.returncode == 0, proc.stderr
    assert "c certify: every member certifies the claims it makes" in proc.stderr
    assert "c won by native-rowscan (head start): SOLVED (a verified solution)" in proc.stderr


@needs_checker
def test_decode_certifies_an_external_refutation(tmp_path: Path) -> None:
    """export, an outside solver's UNSAT with its text DRAT proof, decode --proof: certified
    (exit 0); a proof of nothing is rejected (exit 1); without a proof it stays a claim."""
    cnf = tmp_path / "p.cnf"
    puzzlesat.export(puzzlesat.load("eternity", broken_board(tmp_path)), "cnf-heule", cnf)
    from pysat.formula import CNF

    sat, proof = refutation([list(c) for c in CNF(from_file=str(cnf)).clauses], "glucose4")
    assert not sat
    (tmp_path / "p.drat").write_text("\n".join(proof) + "\n")
    (tmp_path / "bogus.drat").write_text("0\n")
    (tmp_path / "p.out").write_text("s UNSATISFIABLE\n")
    sidecar, out = str(tmp_path / "p.cnf.json"), str(tmp_path / "p.out")
    proc = run_cli("decode", "eternity", out, "--map", sidecar, "--proof", str(tmp_path / "p.drat"))
    assert proc.returncode == 0 and "UNSATISFIABLE certified" in proc.stdout, proc.stdout + proc.stderr
    proc = run_cli("decode", "eternity", out, "--map", sidecar, "--proof", str(tmp_path / "bogus.drat"))
    assert proc.returncode == 1 and "rejected" in proc.stdout, proc.stdout + proc.stderr
    proc = run_cli("decode", "eternity", out, "--map", sidecar)
    assert proc.returncode == 1 and "not verified" in proc.stdout


@needs_checker
def test_benchmark_quick_runs() -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "certify.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ") and "NOT CERTIFIED" not in line]
    assert len(rows) >= 6, proc.stdout  # the head and a certified row per puzzle


def test_no_checker_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proofcheck, "available_checkers", lambda: [])
    with pytest.raises(puzzlesat.core.BackendUnavailable, match=r"puzzlesat\[certify\]"):
        proofcheck.choose_checker()


@needs_checker
def test_certify_folder_that_is_a_file(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    proc = run_cli("solve", "eternity", str(ROOT / "instances/eternity/seed_4x4.txt"), "--certify", str(taken))
    assert proc.returncode == 2 and f"certify {taken}: cannot write: is a file, not a folder" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@needs_checker
def test_a_rejected_proof_makes_the_answer_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(cnf: Path, proof: Path, checker: str | None = None, timeout: float | None = None) -> proofcheck.Check:
        return proofcheck.Check(False, "drat-trim", 0.0, "s NOT VERIFIED")

    monkeypatch.setattr(proofcheck, "check", refuse)
    board = puzzlesat.load("eternity", broken_board(tmp_path))
    result = puzzlesat.solve(board, "cnf-heule", certify=tmp_path / "p")
    assert result.status is Status.ERROR and "certificate rejected" in result.message
    assert [c.status for c in result.certificates] == ["rejected"]


@needs_checker
def test_qtm_names_the_parity_it_rests_on(tmp_path: Path) -> None:
    result = puzzlesat.solve(puzzlesat.load("rubik", "R U F"), "cnf-bmc", certify=tmp_path, metric="qtm")
    assert result.objective == 3
    assert [(c.claim, c.status) for c in result.certificates] == [("no maneuver of 1 qtm moves", "certified-modulo")]
    assert "parity" in result.certificates[0].rests_on
