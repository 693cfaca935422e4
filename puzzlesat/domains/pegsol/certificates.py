"""Peg solitaire impossibility proofs as files anyone can re-check, without any solver.

:func:`~puzzlesat.domains.pegsol.prove_impossible` finds the proofs; this module writes one
down (``solve --certify DIR`` puts it in ``DIR/NAME.json``) and re-checks a written one in
exact arithmetic (``puzzlesat check pegsol INSTANCE NAME.json``):

- ``peg count``: the counts of pegs at the start and the goal, recounted;
- ``position-class parity``: the jump-invariant parities of both boards, recomputed;
- ``pagoda function``: a weight per cell as a fraction; re-checked: no jump gains weight
  (``p(to) <= p(from) + p(over)`` for every jump of the board), and the goal weighs more
  than the start, so no sequence of jumps reaches it.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from puzzlesat.core.text import is_int
from puzzlesat.domains.pegsol.impossible import _count_proof, pagoda_certificate, parity_signature
from puzzlesat.domains.pegsol.instance import PEG, Instance


def write_argument(instance: Instance) -> dict[str, Any] | None:
    """The first impossibility proof that applies, as JSON-ready data; None when none does."""
    if _count_proof(instance) is not None:
        return {"proof": "peg count", "start": instance.start_pegs, "goal": instance.goal_pegs}
    start, goal = parity_signature(instance, instance.start), parity_signature(instance, instance.target)
    if start != goal:
        return {"proof": "position-class parity", "start": list(start), "goal": list(goal)}
    found = pagoda_certificate(instance)
    if found is None:
        return None
    weights, on_start, on_goal = found
    return {
        "proof": "pagoda function",
        "weights": {f"{r},{c}": str(w) for (r, c), w in sorted(weights.items())},
        "start": str(on_start),
        "goal": str(on_goal),
    }


def check_argument(instance: Instance, data: Any) -> list[str]:
    """Re-check a written proof against the instance; an empty list means it holds."""
    if not isinstance(data, dict):
        return ["not a proof: expected a JSON object"]
    kind = data.get("proof")
    if kind == "peg count":
        reason = _count_proof(instance)
        return [] if reason is not None else ["peg count: the counts allow a solution"]
    if kind == "position-class parity":
        start, goal = parity_signature(instance, instance.start), parity_signature(instance, instance.target)
        if start == goal:
            return ["position-class parity: start and goal have the same parities"]
        if [list(start), list(goal)] != [data.get("start"), data.get("goal")]:
            return ["position-class parity: the parities written are not this instance's"]
        return []
    if kind == "pagoda function":
        return _check_pagoda(instance, data.get("weights"))
    return [f"unknown proof {kind!r}; expected peg count, position-class parity or pagoda function"]


_FRACTION = re.compile(r"\s*([+-]?[0-9]{1,18})\s*(?:/\s*([0-9]{1,18})\s*)?")


def _weight(value: Any) -> Fraction | None:
    """A pagoda weight: an int or ``"p/q"`` text of at most 18 digits each (``"1e999999999"``
    would take the machine's memory to build), q not 0; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**18:
        return Fraction(value)
    found = _FRACTION.fullmatch(value) if isinstance(value, str) else None
    below = int(found.group(2) or 1) if found else 0
    return Fraction(int(found.group(1)), below) if found and below else None


def _check_pagoda(instance: Instance, weights: Any) -> list[str]:
    """Every jump keeps or lowers the weight; the goal weighs more than the start."""
    if not isinstance(weights, dict):
        return ["pagoda function: no weights"]
    p: dict[tuple[int, int], Fraction] = {}
    for key, value in weights.items():
        cell = key.split(",") if isinstance(key, str) else []
        weight = _weight(value)
        if len(cell) != 2 or not all(is_int(x.strip()) for x in cell) or weight is None:
            return [f"pagoda function: weights must read 'r,c': 'p/q' (at most 18 digits each), not {key!r}: {value!r}"]
        p[(int(cell[0]), int(cell[1]))] = weight
    if set(p) != set(instance.cells):
        return ["pagoda function: the weights do not cover exactly the board's cells"]
    for src, over, to in instance.jumps():
        if p[to] > p[src] + p[over]:
            return [f"pagoda function: the jump {src}-{to} over {over} gains weight"]
    on = [
        sum((p[cell] for cell in instance.cells if board[cell[0]][cell[1]] == PEG), Fraction(0))
        for board in (instance.start, instance.target)
    ]
    if on[1] <= on[0]:
        return [f"pagoda function: the goal weighs {on[1]}, not more than the start's {on[0]}"]
    return []
