"""Peg solitaire's presolve: the Result for a board already at its goal or proved impossible."""

from __future__ import annotations

from puzzlesat.core import Limits, Result, Status
from puzzlesat.domains.pegsol.impossible import _count_proof, prove_impossible
from puzzlesat.domains.pegsol.instance import Instance, Solution


def presolve(instance: Instance, limits: Limits) -> Result | None:
    """What the engine does before any strategy: settle trivial boards and try the impossibility proofs.

    Returns:
        A final Result (SOLVED with no jumps, or INFEASIBLE naming the proof), or None when
        the strategy has to search.  The ``no_proofs`` solve option skips the parity and
        pagoda proofs (the peg count fixes every search's horizon, so it always runs).
    """
    if instance.start == instance.target:
        return Result(Status.SOLVED, Solution(()), message="the start is the goal")
    # the horizon of every search is the peg difference, so the count test always runs
    reason = _count_proof(instance)
    if reason is None and not limits.options.get("no_proofs"):
        reason = prove_impossible(instance)
    if reason is None:
        return None
    return Result(Status.INFEASIBLE, None, stats={"nodes": 0}, message=reason)
