"""Certified answers: what every "no solution", "optimal" and "unique" rests on.

A verified solution checks itself; a claim that none exists (or none shorter, or no other)
does not.  A solve run under :func:`session` (``solve --certify DIR``) collects one
:class:`Certificate` per such claim:

- ``certified``: a CNF refutation; DIR holds ``NAME.cnf`` (exactly the clauses the solver was
  given, assumptions as unit clauses) and ``NAME.drat`` (its proof), and a checker sharing no
  code with the solver accepted them (:mod:`puzzlesat.core.proofcheck`);
- ``certified-modulo``: the same, but some clauses of the CNF rest on an argument outside it
  (masyu's loop cuts: implied by the single-loop rule, which the local CNF does not state);
  ``rests_on`` names it;
- ``argument``: a proof that is not a CNF refutation, written to DIR and re-checked without
  the solver (pegsol's peg count, parity and pagoda proofs: ``puzzlesat check``);
- ``rejected``: the checker refused the proof; the answer is then an ERROR;
- ``uncertified``: no proof could be had, and ``reason`` says why (Kissat writes none in
  pysat, the proof run ran out of time, a native search, CP-SAT's word).

The formulations report through :func:`active`; a run without a session pays nothing.
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from puzzlesat.core import proofcheck
from puzzlesat.core.arguments import writable_folder
from puzzlesat.core.errors import PuzzlesatError
from puzzlesat.core.files import special
from puzzlesat.core.text import load_json, read_text

# pysat solvers whose proofs checkers accept (measured: python-sat 1.9; maplesat's fail checking)
PROOF_SOLVERS = ("cadical195", "cadical153", "cadical300", "glucose4", "glucose3", "lingeling", "maplechrono")

KINDS = ("no solution", "optimal", "unique")


@dataclass
class Certificate:
    """How one claim of an answer stands.

    Attributes:
        kind: ``no solution``, ``optimal`` or ``unique``: the claim of the answer it backs.
        claim: what exactly was refuted, in words ("no plan of 4 moves").
        status: ``certified``, ``certified-modulo``, ``argument``, ``rejected`` or ``uncertified``.
        how: the basis in a few words ("DRAT checked by drat-trim", "exhausted search, 812 nodes").
        name: the files' stem in the certify folder, or "".
        cnf, proof: the files written, or "".
        solver: the pysat solver that wrote the proof.
        checker: the checker that judged it.
        variables, clauses: of the CNF.
        lemmas, deletions: of the proof.
        proof_bytes: the proof file's size.
        solve_seconds: the proof-logging solve; check_seconds: the check.
        reason: why not certified, or the checker's words.
        rests_on: arguments outside the CNF that some of its clauses rely on.
    """

    kind: str
    claim: str
    status: str
    how: str = ""
    name: str = ""
    cnf: str = ""
    proof: str = ""
    solver: str = ""
    checker: str = ""
    variables: int = 0
    clauses: int = 0
    lemmas: int = 0
    deletions: int = 0
    proof_bytes: int = 0
    solve_seconds: float = 0.0
    check_seconds: float = 0.0
    reason: str = ""
    rests_on: str = ""

    @property
    def checked(self) -> bool:
        """True when a checker (or exact re-checking) accepted the claim's proof."""
        return self.status in ("certified", "certified-modulo", "argument")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (seconds rounded)."""
        data = asdict(self)
        data["solve_seconds"] = round(self.solve_seconds, 6)
        data["check_seconds"] = round(self.check_seconds, 6)
        return data

    def line(self) -> str:
        """One stderr line: ``c certified: no solution (...) by drat-trim, 812 lemmas, 0.02 s``."""
        if self.status in ("certified", "certified-modulo"):
            text = (
                f"c {self.status}: {self.kind} ({self.claim}): DRAT proof from {self.solver} checked by "
                f"{self.checker}, {self.lemmas} lemmas, {self.proof_bytes} bytes, "
                f"checked in {self.check_seconds:.3f} s ({self.cnf}, {self.proof})"
            )
            return text + (f"; rests on {self.rests_on}" if self.rests_on else "")
        what = self.kind if self.claim == self.kind else f"{self.kind} ({self.claim})"
        where = f" ({self.proof})" if self.proof else ""
        why = f" ({self.reason})" if self.reason else ""
        return f"c {self.status}: {what}: {self.how}{where}{why}"


class Session:
    """The certificates of one solve run and the folder their files go to.

    Args:
        folder: where ``NAME.cnf``, ``NAME.drat`` and argument files are written (created).
        checker: ``drat-trim``, ``dratify`` or None for the first available.
        prefix: the files' common stem (the instance's name).
    """

    def __init__(self, folder: Path, checker: str | None = None, prefix: str = "claim") -> None:
        self.folder = folder
        self.checker = proofcheck.choose_checker(checker)
        self.prefix = re.sub(r"[^A-Za-z0-9_.-]+", "_", prefix) or "claim"
        self.certificates: list[Certificate] = []
        self.pending: list[Certificate] = []
        self._names: set[str] = set()
        # (clauses, proof lines, seconds) of the last refutation a solver logged, for reuse
        self.scratch: Any = None

    def stem(self, claim: str) -> str:
        """A file stem for a claim, unique in this session: ``PREFIX-no-plan-of-4``."""
        base = f"{self.prefix}-" + re.sub(r"[^A-Za-z0-9]+", "-", claim).strip("-").lower()
        name, n = base, 1
        while name in self._names:
            n += 1
            name = f"{base}-{n}"
        self._names.add(name)
        return name

    def refutation(
        self,
        kind: str,
        claim: str,
        clauses: Sequence[Sequence[int]],
        proof: Sequence[str],
        solver: str,
        solve_seconds: float,
        rests_on: str = "",
    ) -> Certificate:
        """Write a refutation's CNF and proof; it is checked by :meth:`check_pending`."""
        name = self.stem(claim)
        cnf, drat = self.folder / f"{name}.cnf", self.folder / f"{name}.drat"
        comments = [f"puzzlesat certificate: {kind}: {claim}", f"solver {solver}"]
        if rests_on:
            comments.append(f"some clauses rest on: {rests_on}")
        try:
            variables, count = proofcheck.write_cnf(regular(cnf), clauses, comments)
            lemmas, deletions = proofcheck.write_proof(regular(drat), proof)
        except OSError as exc:
            reason = f"{exc.filename or self.folder}: cannot write: {exc.strerror or exc}"
            return self.note(kind, claim, "uncertified", f"solved by {solver}; no proof written", reason)
        cert = Certificate(
            kind,
            claim,
            "pending",
            name=name,
            cnf=str(cnf),
            proof=str(drat),
            solver=solver,
            variables=variables,
            clauses=count,
            lemmas=lemmas,
            deletions=deletions,
            proof_bytes=drat.stat().st_size,
            solve_seconds=solve_seconds,
            rests_on=rests_on,
        )
        self.pending.append(cert)
        return cert

    def note(self, kind: str, claim: str, status: str, how: str, reason: str = "", proof: str = "") -> Certificate:
        """Record a claim that is not a checked CNF refutation (``uncertified``, ``argument``)."""
        cert = Certificate(kind, claim, status, how, proof=proof, reason=reason)
        self.certificates.append(cert)
        return cert

    def check_pending(self, timeout: float | None = None) -> list[Certificate]:
        """Check every refutation written so far; returns all certificates of the session."""
        for cert in self.pending:
            verdict = proofcheck.check(Path(cert.cnf), Path(cert.proof), self.checker, timeout)
            cert.checker = verdict.checker
            cert.check_seconds = verdict.seconds
            cert.reason = verdict.detail
            if verdict.ok:
                cert.status = "certified-modulo" if cert.rests_on else "certified"
                cert.how = f"DRAT checked by {verdict.checker}"
            else:
                cert.status = "rejected"
                cert.how = f"DRAT proof rejected by {verdict.checker}"
            self.certificates.append(cert)
        self.pending = []
        return self.certificates


_SESSION: ContextVar[Session | None] = ContextVar("puzzlesat_certify", default=None)


def active() -> Session | None:
    """The session of the run in progress, or None (nothing to certify)."""
    return _SESSION.get()


@contextmanager
def session(folder: str | os.PathLike[str], checker: str | None = None, prefix: str = "claim") -> Iterator[Session]:
    """Collect certificates while the block runs.

    Raises:
        ArgumentError: the folder cannot be created or written (:func:`~puzzlesat.core.arguments.writable_folder`).
        BackendUnavailable: no proof checker.
    """
    current = Session(writable_folder("certify", folder), checker, prefix)
    token = _SESSION.set(current)
    try:
        yield current
    finally:
        _SESSION.reset(token)


def regular(path: Path) -> Path:
    """A certificate's file, which may be written: no device, FIFO or folder stands at its name.

    Raises:
        OSError: naming the file and what it is.
    """
    what = special(path)
    if what is not None:
        raise OSError(errno.EINVAL, f"is {what}, not a regular file", str(path))
    return path


def claims(status: str, stats: dict[str, Any], optimisation: bool, objective: int | None = None) -> list[str]:
    """The claims an answer makes that a solution does not check: kinds from :data:`KINDS`
    (an optimum of 0 needs no proof)."""
    found = []
    if status == "INFEASIBLE":
        found.append("no solution")
    if status == "OPTIMAL" and optimisation and objective != 0:
        found.append("optimal")
    if stats.get("unique") is True:
        found.append("unique")
    return found


def basis(engine: str, variant: str | None, stats: dict[str, Any], message: str = "") -> str:
    """What a claim rests on when no certificate was asked for (``compare``'s column), by the
    strategy's declared engine (:attr:`~puzzlesat.core.types.Strategy.engine`).

    >>> basis("native", None, {"nodes": 812})
    'exhausted search, 812 nodes'
    >>> basis("sat", "cadical195", {})
    'claimed by cadical195 (certifiable: --certify)'
    """
    if message.startswith(("position-class parity", "pagoda function", "peg count")):
        return f"argument: {message.split(':')[0]} (checked in exact arithmetic)"
    if engine in ("native", "plain"):
        nodes = stats.get("nodes")
        return f"exhausted search, {nodes} nodes" if nodes is not None else "exhausted search"
    if engine == "cpsat":
        return "claimed by CP-SAT"
    if engine == "maxsat":
        return "claimed by RC2 (MaxSAT)"
    if engine == "sat":
        solver = variant or "cadical195"
        if solver in PROOF_SOLVERS:
            return f"claimed by {solver} (certifiable: --certify)"
        return f"claimed by {solver} (no proof in pysat)"
    return "claimed by the strategy"


def engine_of(puzzle: Any, strategy: str) -> tuple[str, str | None]:
    """``(engine, variant)`` of a strategy named in a result; ``("other", None)`` for a name the
    puzzle no longer knows (a results file written with a plugin that is not loaded now)."""
    from puzzlesat.core.errors import PuzzlesatError

    try:
        strat, variant = puzzle.strategy(strategy)
    except PuzzlesatError:
        return "other", None
    return strat.engine, variant


def block(certificates: list[Certificate]) -> dict[str, Any]:
    """The ``certificate`` block of ``solve --json``: the standing and one entry per claim."""
    return {"standing": standing(certificates), "claims": [cert.to_json() for cert in certificates]}


def standing(certificates: list[Certificate]) -> str:
    """One word for a run's claims: ``certified``, ``rejected``, ``uncertified`` or ``partly``."""
    if not certificates:
        return ""
    if any(c.status == "rejected" for c in certificates):
        return "rejected"
    if all(c.checked for c in certificates):
        return "certified"
    if any(c.checked for c in certificates):
        return "partly"
    return "uncertified"


def run(
    puzzle: Any,
    instance: Any,
    solve: Callable[[], Any],
    folder: str | os.PathLike[str],
    *,
    prefix: str = "claim",
    timeout: float | None = None,
    checker: str | None = None,
) -> Any:
    """Run ``solve`` (returning a verified Result) under a session; check and account for its claims.

    Every refutation the strategy reported is checked (each check under ``timeout``); every
    claim left without one gets a certificate saying what it rests on: a proof the puzzle
    writes itself (``Puzzle.write_argument``, re-checked at once by ``check_argument``), or
    the strategy's word (:func:`basis`).  A rejected proof makes the result an ERROR.

    Returns:
        The Result, its ``certificates`` filled in.
    """
    from puzzlesat.core import Result, Status

    with session(folder, checker, prefix) as current:
        result = solve()
        current.check_pending(timeout)
        covered = {cert.kind for cert in current.certificates}
        for kind in claims(result.status.value, result.stats, puzzle.optimisation, result.objective):
            if kind in covered:
                continue
            if kind == "no solution" and _argument(puzzle, instance, current):
                continue
            how = basis(*engine_of(puzzle, result.strategy), result.stats, result.message)
            how = how.replace(" (certifiable: --certify)", "")
            current.note(kind, kind, "uncertified", how, _why_not(how))
    result.certificates = current.certificates
    rejected = [cert for cert in current.certificates if cert.status == "rejected"]
    if rejected:
        message = f"certificate rejected: {rejected[0].claim}: {rejected[0].how} ({rejected[0].reason})"
        return Result(
            Status.ERROR,
            wall_time=result.wall_time,
            stats=result.stats,
            strategy=result.strategy,
            message=message,
            certificates=current.certificates,
        )
    return result


def _argument(puzzle: Any, instance: Any, current: Session) -> bool:
    """Write and re-check the puzzle's own impossibility proof, when it has one; True if done."""
    from puzzlesat.core import load_target

    if puzzle.write_argument is None or puzzle.check_argument is None:
        return False
    write, check = load_target(puzzle.write_argument), load_target(puzzle.check_argument)
    data = write(instance)
    if data is None:
        return False
    path = current.folder / f"{current.stem('no solution')}.json"
    try:
        regular(path).write_text(json.dumps(data, indent=1) + "\n")
        problems = check(instance, read_argument(read_text(path, str(path)), str(path)))
    except OSError as exc:
        reason = f"{path}: cannot write: {exc.strerror or exc}"
        current.note("no solution", "no solution", "uncertified", f"{data.get('proof', 'argument')} proof", reason)
        return True
    if problems:
        current.note("no solution", data.get("proof", "argument"), "rejected", "argument re-check failed", problems[0])
    else:
        how = f"{data.get('proof', 'argument')} proof, re-checked in exact arithmetic"
        current.note("no solution", "no solution", "argument", how, proof=str(path))
    return True


def _why_not(how: str) -> str:
    """Why a claim with this basis has no checkable proof."""
    if how.startswith("exhausted search"):
        return "a native search keeps no proof trace"
    if how == "claimed by CP-SAT":
        return "CP-SAT logs proofs only for pure SAT problems with presolve off"
    if how.startswith("claimed by RC2"):
        return "a MaxSAT optimum is a sequence of cores, not one refutation; RC2 logs none"
    if "no proof in pysat" in how:
        return "this solver writes no proof through pysat; use cadical195"
    return "this mode of the strategy records no refutation for it, as when counting"


def read_argument(text: str, source: str) -> Any:
    """A written proof (JSON) as data, read bounded (:func:`~puzzlesat.core.text.load_json`).

    Raises:
        ParseError: not JSON, or past the bounds of depth and number size.
    """
    return load_json(text, source)


def check_external(clauses: Sequence[Sequence[int]], proof: Path, solver: str = "the external solver") -> Certificate:
    """Check an outside solver's DRAT proof against the clauses (re-encoded, not read back).

    A binary DRAT proof needs drat-trim; dratify reads text proofs only (``kissat
    --no-binary``, ``cadical --no-binary``).

    Raises:
        PuzzlesatError: the proof file cannot be read, or is binary and only dratify is here.
    """
    import tempfile

    try:
        head = proof.open("rb").read(4096)
    except OSError as exc:
        raise PuzzlesatError(f"{proof}: cannot read the proof: {exc.strerror or exc}") from None
    checkers = proofcheck.available_checkers()
    binary = any(byte < 9 or 13 < byte < 32 or byte >= 127 for byte in head)  # text DRAT is plain ASCII
    if binary and "drat-trim" not in checkers:
        raise PuzzlesatError(f"{proof}: a binary DRAT proof; write it as text (--no-binary) or put drat-trim on PATH")
    checker = "drat-trim" if binary else None
    with tempfile.TemporaryDirectory(prefix="puzzlesat-") as folder:
        cnf = Path(folder) / "formula.cnf"
        variables, count = proofcheck.write_cnf(cnf, clauses)
        verdict = proofcheck.check(cnf, proof, checker)
    lemmas, deletions = proofcheck.count_steps(proof) if not binary else (0, 0)
    status = "certified" if verdict.ok else "rejected"
    how = f"DRAT {'checked' if verdict.ok else 'proof rejected'} by {verdict.checker}"
    return Certificate(
        "no solution",
        "UNSATISFIABLE",
        status,
        how,
        proof=str(proof),
        solver=solver,
        checker=verdict.checker,
        variables=variables,
        clauses=count,
        lemmas=lemmas,
        deletions=deletions,
        proof_bytes=proof.stat().st_size,
        check_seconds=verdict.seconds,
        reason=verdict.detail,
    )
