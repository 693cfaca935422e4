"""DIMACS files for external SAT solvers, and reading their answers back.

An export writes ``NAME.cnf`` (with the meaning of every named variable as a ``c var ID KEY``
comment line) and ``NAME.cnf.json``, the sidecar: puzzle, strategy, encoder options, the
instance text and the variable map.  ``decode`` reads a solver's competition output (``s``
and ``v`` lines) with the sidecar and turns the true variables back into a puzzle solution.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlesat.core import ParseError, is_int
from puzzlesat.core.text import load_json, read_text

Key = tuple[Any, ...]


@dataclass
class Encoding:
    """A CNF formulation of one instance.

    Attributes:
        cnf: the pysat ``CNF`` (clauses over positive integer variables).
        pool: the pysat ``IDPool`` that named the primary variables with tuple keys.
        decode: maps the set of keys whose variables are true to a puzzle Solution.
        stats: counts worth showing (variables, clauses, and encoding-specific ones).
    """

    cnf: Any
    pool: Any
    decode: Callable[[set[Key]], Any]
    stats: dict[str, int] = field(default_factory=dict)

    def named_vars(self) -> dict[int, Key]:
        """Variable id -> key for every variable the encoder named (auxiliaries excluded)."""
        return {vid: key for vid, key in self.pool.id2obj.items() if isinstance(key, tuple)}

    def true_keys(self, model: Iterable[int]) -> set[Key]:
        """Keys of the named variables that are true in a model (list of signed literals)."""
        named = self.named_vars()
        return {named[lit] for lit in model if lit > 0 and lit in named}


def clause_count(cnf: Any) -> int:
    """Clauses of a pysat CNF, or hard and soft ones of a WCNF."""
    return len(cnf.hard) + len(cnf.soft) if hasattr(cnf, "soft") else len(cnf.clauses)


def cnf_stats(cnf: Any) -> dict[str, int]:
    """Variables and clauses of a CNF, for Result.stats."""
    return {"variables": int(cnf.nv), "clauses": len(cnf.clauses)}


def write(encoding: Encoding, path: Path, header: dict[str, Any], instance_text: str) -> Path:
    """Write the DIMACS file (a WCNF for a weighted encoding) and its JSON sidecar; returns the sidecar's path.

    Args:
        encoding: the CNF and its variable pool.
        path: where the ``.cnf`` goes; the sidecar is ``path`` + ``.json``.
        header: puzzle, strategy, options: recorded in ``c`` lines and in the sidecar.
        instance_text: the instance in its input format, stored in the sidecar so that
            ``decode`` needs nothing else.
    """
    digest = _digest(instance_text)
    named = encoding.named_vars()
    comments = [f"c puzzlesat {k}={json.dumps(v)}" for k, v in header.items()]
    comments.append(f"c puzzlesat instance_sha256={digest}")
    comments.extend(f"c var {vid} {' '.join(map(str, key))}" for vid, key in sorted(named.items()))
    encoding.cnf.to_file(str(path), comments=comments)
    sidecar = Path(str(path) + ".json")
    sidecar.write_text(
        json.dumps(
            {
                **header,
                "instance_sha256": digest,
                "instance": instance_text,
                "variables": int(encoding.cnf.nv),
                "clauses": clause_count(encoding.cnf),
                "vars": {str(vid): list(key) for vid, key in sorted(named.items())},
            },
            indent=1,
        )
    )
    return sidecar


# the sidecar's entries and their JSON types, checked before any is used
SIDECAR_FIELDS: dict[str, type] = {
    "puzzle": str,
    "strategy": str,
    "instance": str,
    "vars": dict,
    "variables": int,
    "options": dict,
}


def read_sidecar(path: Path) -> dict[str, Any]:
    """Load a sidecar written by :func:`write`.

    Raises:
        ParseError: unreadable, not UTF-8, not a JSON object, or an entry missing or of the
            wrong type (the variable map included).
    """
    try:
        data = load_json(read_text(path, str(path)), str(path))
    except OSError as exc:
        raise ParseError(f"{path}: cannot read the sidecar: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise ParseError(f"{path}: the sidecar is not a JSON object")
    data.setdefault("options", {})
    for key, kind in SIDECAR_FIELDS.items():
        if key not in data:
            raise ParseError(f"{path}: sidecar has no {key!r} entry")
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            raise ParseError(f"{path}: sidecar entry {key!r} is not a JSON {kind.__name__}")
    for vid, key in data["vars"].items():
        if not vid.isascii() or not vid.isdigit() or not isinstance(key, list):
            raise ParseError(f"{path}: sidecar variable {vid!r} is not an id mapped to a key list")
    if data["variables"] < 0:
        raise ParseError(f"{path}: sidecar entry 'variables' is negative")
    digest = data.get("instance_sha256")
    if digest is not None and digest != _digest(data["instance"]):
        raise ParseError(f"{path}: sidecar entry 'instance' does not match its 'instance_sha256'")
    return data


def _digest(instance_text: str) -> str:
    """The short hash of an instance's text that the DIMACS file and the sidecar record."""
    import hashlib  # loads OpenSSL: only for an export or a decode

    return hashlib.sha256(instance_text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def sidecar_keys(data: dict[str, Any]) -> dict[int, Key]:
    """The sidecar's variable map with keys back as tuples."""
    return {int(vid): tuple(key) for vid, key in data["vars"].items()}


def read_solver_output(text: str, source: str) -> tuple[bool | None, set[int]]:
    """Read a SAT competition answer: the ``s`` line and the ``v`` lines.

    Returns:
        (True, true variables) for SATISFIABLE, (False, empty) for UNSATISFIABLE,
        (None, empty) for UNKNOWN.

    Raises:
        ParseError: no ``s`` line or more than one, or a ``v`` token that is not an integer.
    """
    status: bool | None = None
    seen_status = False
    true_vars: set[int] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.startswith("s "):
            if seen_status:
                raise ParseError(f"{source}:{lineno}: a second 's' line: the answer is ambiguous")
            word = line[2:].strip()
            seen_status = True
            status = {"SATISFIABLE": True, "UNSATISFIABLE": False}.get(word)
        elif line.startswith("v "):
            for token in line[2:].split():
                if not (token.isascii() and is_int(token)):
                    raise ParseError(f"{source}:{lineno}: expected literals on a 'v' line, got {token!r}")
                lit = int(token)
                if lit > 0:
                    true_vars.add(lit)
    if not seen_status:
        raise ParseError(f"{source}: no 's SATISFIABLE' / 's UNSATISFIABLE' line in the solver output")
    return status, true_vars
