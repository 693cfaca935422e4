"""The cheap impossibility proofs run before any search: peg counts, class parity, a pagoda function (LP)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

from puzzlesat.domains.pegsol.instance import PEG, Cell, Instance, Matrix


def class_counts(instance: Instance, matrix: Matrix) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Pegs in each (r+c) mod 3 class and in each (r-c) mod 3 class."""
    plus = [0, 0, 0]
    minus = [0, 0, 0]
    for r, c in instance.cells:
        if matrix[r][c] == PEG:
            plus[(r + c) % 3] += 1
            minus[(r - c) % 3] += 1
    return (plus[0], plus[1], plus[2]), (minus[0], minus[1], minus[2])


def parity_signature(instance: Instance, matrix: Matrix) -> tuple[int, ...]:
    """The jump-invariant parities: (n0+n1, n1+n2) mod 2 for both diagonal classings.

    A jump takes one peg from each of two classes and adds one to the third, so it flips the
    parity of all three counts and leaves the parity of every pairwise sum unchanged.
    """
    plus, minus = class_counts(instance, matrix)
    return ((plus[0] + plus[1]) % 2, (plus[1] + plus[2]) % 2, (minus[0] + minus[1]) % 2, (minus[1] + minus[2]) % 2)


def pagoda_certificate(instance: Instance, low: float = 0.0) -> tuple[dict[Cell, Fraction], Fraction, Fraction] | None:
    """A pagoda function worth more on the goal than on the start, if linear programming finds one.

    A pagoda function p has ``p(to) <= p(from) + p(over)`` for every jump, so the sum of p
    over the pegs never grows; a goal worth more than the start is out of reach.  The
    classical definition has p >= 0 (``low`` = 0); the argument holds for negative weights
    too, which can also charge for pegs that must still leave (``low`` < 0).  This is the
    dual of the LP relaxation of "how often is each jump used".  The LP answer is rounded to
    small fractions and re-checked exactly, so a returned certificate is a proof.

    Returns:
        (p, value on start, value on goal), or None (no certificate found).
    """
    from fractions import Fraction  # exact weights, only when a proof is sought

    try:
        from ortools.linear_solver import pywraplp
    except ImportError:  # pragma: no cover - ortools is a dependency
        return None
    cells = instance.cells
    jumps = instance.jumps()
    diff = {(r, c): int(instance.target[r][c] == PEG) - int(instance.start[r][c] == PEG) for r, c in cells}
    if not any(diff.values()):
        return None
    lp = pywraplp.Solver.CreateSolver("GLOP")
    if lp is None:  # pragma: no cover
        return None
    # p >= 0 is the classical definition; the box keeps the LP bounded (pagodas scale freely)
    var = {cell: lp.NumVar(low, 1.0, f"p{cell}") for cell in cells}
    for a, b, c in jumps:  # p(to) - p(from) - p(over) <= 0, through the low-level API (faster)
        row = lp.Constraint(-lp.infinity(), 0.0)
        row.SetCoefficient(var[c], 1.0)
        row.SetCoefficient(var[a], -1.0)
        row.SetCoefficient(var[b], -1.0)
    objective = lp.Objective()
    for cell in cells:
        objective.SetCoefficient(var[cell], float(diff[cell]))
    objective.SetMaximization()
    if lp.Solve() != pywraplp.Solver.OPTIMAL or lp.Objective().Value() < 1e-7:
        return None
    values = {cell: var[cell].solution_value() for cell in cells}
    for limit in (12, 60, 1000):
        p = {cell: Fraction(values[cell]).limit_denominator(limit) for cell in cells}
        if all(p[c] <= p[a] + p[b] for a, b, c in jumps):
            on_start = sum((p[cell] for cell in cells if instance.start[cell[0]][cell[1]] == PEG), Fraction(0))
            on_goal = sum((p[cell] for cell in cells if instance.target[cell[0]][cell[1]] == PEG), Fraction(0))
            if on_goal > on_start:
                return p, on_start, on_goal
    return None


def _count_proof(instance: Instance) -> str | None:
    start, goal = instance.start_pegs, instance.goal_pegs
    if goal > start:
        return f"peg count: the goal has {goal} pegs but the start only {start}, and jumps only remove pegs"
    if goal == 0 and start > 0:
        return f"peg count: the goal is an empty board, but a jump always leaves a peg (start has {start})"
    if start == goal and instance.start != instance.target:
        return f"peg count: start and goal both have {start} pegs, so no jump may be made, yet they differ"
    return None


def prove_impossible(instance: Instance, pagoda: bool = True) -> str | None:
    """A short proof that the goal cannot be reached, or None when none of the tests applies.

    Tests, cheapest first: peg counts; position-class parity; a pagoda function (LP).

    >>> from puzzlesat.domains.pegsol.generate import generate
    >>> five = generate({"board": "rect", "rows": 5, "cols": 5}, 0)
    >>> prove_impossible(five)[:22]
    'position-class parity:'
    """
    reason = _count_proof(instance)
    if reason is not None:
        return reason
    if parity_signature(instance, instance.start) != parity_signature(instance, instance.target):
        (sp, sm), (gp, gm) = class_counts(instance, instance.start), class_counts(instance, instance.target)
        return (
            "position-class parity: a jump flips the parity of all three (r+c) mod 3 and all three "
            f"(r-c) mod 3 peg counts; start has {sp} / {sm}, goal {gp} / {gm}, "
            "which no number of jumps can match"
        )
    if pagoda:
        cert = pagoda_certificate(instance)
        if cert is not None:
            _, on_start, on_goal = cert
            return (
                f"pagoda function: a weighting of the cells that no jump increases is worth {on_start} "
                f"on the start and {on_goal} on the goal"
            )
    return None
