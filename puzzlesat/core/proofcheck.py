"""DRAT proof files and the checkers that read them, sharing no code with any solver.

A refutation is two files: ``NAME.cnf``, exactly the clauses the solver was given (DIMACS),
and ``NAME.drat``, the clauses it derived and deleted (text DRAT; DRUP is a special case).
A checker replays the proof against the CNF and accepts only when the empty clause follows.

Two checkers, the first one found is used (or the one asked for):

- ``drat-trim`` (Heule, Hunt and Wetzler 2014, the SAT competitions' reference), when an
  executable of that name is on PATH; run as a child process under a time limit;
- ``dratify`` (PyPI), in this process: ``pip install "puzzlesat[certify]"``.  It checks
  forward, every lemma, so it rejects a corrupted lemma that drat-trim's backward pass would
  skip as unused.  Its engine is pure Python (about 20x slower than drat-trim on large
  proofs) unless ``cdclkit[native]`` (part of the extra where wheels exist) registers its
  Rust engine, as fast as drat-trim; ``dratify-python`` asks for the Python engine.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzlesat.core.deadline import DeadlineExceeded, hard_deadline
from puzzlesat.core.errors import BackendUnavailable

CHECKERS = ("drat-trim", "dratify", "dratify-python")


@dataclass(frozen=True)
class Check:
    """A checker's verdict on one proof.

    Attributes:
        ok: True when the checker accepted the refutation.
        checker: ``drat-trim`` or ``dratify``.
        seconds: the check's wall time.
        detail: the checker's own words (why it rejected, or its lemma count in core).
    """

    ok: bool
    checker: str
    seconds: float
    detail: str = ""


def available_checkers() -> list[str]:
    """The checkers this machine has, in order of preference."""
    found = []
    if shutil.which("drat-trim"):
        found.append("drat-trim")
    try:
        import dratify
    except ImportError:
        return found
    found.append("dratify")
    if _rust_engine(dratify):
        found.append("dratify-python")
    return found


def _rust_engine(dratify: Any) -> bool:
    """True when dratify has its Rust engine (registered by ``cdclkit.native`` when installed)."""
    try:
        import cdclkit.native  # noqa: F401  (the import registers the engine with dratify)
    except ImportError:
        pass
    return bool(dratify.native_available())


def choose_checker(name: str | None = None) -> str:
    """The checker to use: ``name`` if given and present, else the first available.

    Raises:
        BackendUnavailable: no checker at all (naming how to get one), or ``name`` is missing.
    """
    found = available_checkers()
    if name is not None:
        if name not in CHECKERS:
            raise BackendUnavailable(f"unknown proof checker {name!r}; expected one of: {', '.join(CHECKERS)}")
        if name not in found:
            raise BackendUnavailable(f"proof checker {name!r} is not available here")
        return name
    if not found:
        raise BackendUnavailable(
            'no DRAT proof checker: pip install "puzzlesat[certify]" (dratify), or put drat-trim on PATH'
        )
    return found[0]


def write_cnf(path: Path, clauses: Iterable[Sequence[int]], comments: Sequence[str] = ()) -> tuple[int, int]:
    """Write clauses as DIMACS with a correct header; returns (variables, clauses)."""
    clauses = list(clauses)
    top = max((abs(lit) for clause in clauses for lit in clause), default=0)
    lines = [" ".join(map(str, clause)) + " 0" for clause in clauses]
    head = [f"c {comment}" for comment in comments] + [f"p cnf {top} {len(lines)}"]
    path.write_text("\n".join(head + lines) + "\n")
    return top, len(lines)


def write_proof(path: Path, lines: Iterable[str]) -> tuple[int, int]:
    """Write a text DRAT proof (pysat's ``get_proof()`` lines); returns (lemmas, deletions)."""
    lemmas = deletions = 0
    with path.open("w") as out:
        for line in lines:
            if line.startswith("d"):
                deletions += 1
            elif line and not line.startswith("c"):
                lemmas += 1
            out.write(line + "\n")
    return lemmas, deletions


def count_steps(path: Path) -> tuple[int, int]:
    """(lemmas, deletions) of a text DRAT proof file."""
    lemmas = deletions = 0
    with path.open() as proof:
        for line in proof:
            if line.startswith("d"):
                deletions += 1
            elif line.strip() and not line.startswith("c"):
                lemmas += 1
    return lemmas, deletions


def check(cnf: Path, proof: Path, checker: str | None = None, timeout: float | None = None) -> Check:
    """Check a DRAT proof of the CNF's unsatisfiability.

    Args:
        cnf, proof: the files.
        checker: ``drat-trim`` or ``dratify``; None for the first available.
        timeout: seconds for the check; None for no limit.  A check that runs out of time
            is a rejection that says so.

    Raises:
        BackendUnavailable: no checker (see :func:`choose_checker`).
    """
    name = choose_checker(checker)
    started = time.perf_counter()
    if name == "drat-trim":
        ok, detail = _drat_trim(cnf, proof, timeout)
    else:
        name, ok, detail = _dratify(cnf, proof, timeout, python=name == "dratify-python")
    return Check(ok, name, time.perf_counter() - started, detail)


def _drat_trim(cnf: Path, proof: Path, timeout: float | None) -> tuple[bool, str]:
    """Run drat-trim; its ``s VERIFIED`` line is the verdict."""
    exe = shutil.which("drat-trim")
    assert exe is not None
    command = [exe, str(cnf), str(proof)]
    if timeout is not None:
        command += ["-t", str(max(1, int(timeout + 0.999)))]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=None if timeout is None else timeout + 5)
    except subprocess.TimeoutExpired:
        return False, f"drat-trim ran out of time ({timeout:g} s)"
    verdicts = [line for line in done.stdout.splitlines() if line.startswith("s ")]
    core = re.search(r"c verified (\d+) of (\d+) lemmas", done.stdout)
    if verdicts == ["s VERIFIED"]:
        return True, f"{core.group(1)} of {core.group(2)} lemmas in core" if core else ""
    said = [line for line in done.stdout.splitlines() if line.startswith(("s ", "c ERROR", "c WARNING"))]
    return False, "; ".join(said[-3:]) or f"drat-trim exit {done.returncode}"


def _dratify(cnf: Path, proof: Path, timeout: float | None, python: bool) -> tuple[str, bool, str]:
    """Check in this process with dratify's forward checker; (its name with the engine, ok, detail).

    The Rust engine runs inside one C call, which the deadline cannot interrupt: a check
    that overruns is reported when it returns.
    """
    import dratify

    engine = "python" if python or not _rust_engine(dratify) else "native"
    name = f"dratify ({'rust' if engine == 'native' else 'python'})"
    started = time.perf_counter()
    try:
        with hard_deadline(timeout, "checking the proof"):
            formula = dratify.parse_dimacs(cnf.read_text())
            result = dratify.check_proof(formula, proof.read_text(), engine=engine)
    except DeadlineExceeded:
        return name, False, f"dratify ran out of time ({timeout:g} s)"
    except ValueError as exc:  # a proof it cannot read
        return name, False, f"unreadable proof: {exc}"
    if timeout is not None and time.perf_counter() - started > timeout:
        return name, False, f"dratify ran out of time ({timeout:g} s)"
    if result.ok and result.reached_empty:
        return name, True, ""
    return name, False, str(result.reason)
