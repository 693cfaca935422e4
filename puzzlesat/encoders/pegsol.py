"""``cnf-plan``: peg solitaire as SAT planning with a fixed horizon.

Every jump removes one peg, so a solution has exactly ``T = start pegs - goal pegs`` jumps and
the horizon is known: no search over plan lengths, and UNSAT is a proof of impossibility.

Variables (keys of the IDPool):

- ``("peg", t, r, c)``: cell (r, c) holds a peg after t jumps, t = 0..T;
- ``("jump", t, r1, c1, r2, c2)``: jump number t (0-based) takes the peg on (r1, c1) to (r2, c2).

Clauses, one group per rule:

- start and goal: units on the pegs of step 0 and step T;
- one jump a step: at least one, and at most one through a sequential counter (``CardEnc``);
- precondition and effect: a jump needs pegs on from and over and a hole on to, and
  leaves the opposite;
- explanatory frame axioms: a cell that loses its peg was the from or over cell of the jump
  of that step, a cell that gains a peg was its landing cell;
- ordering of independent jumps (option ``ordering``, on by default): two consecutive jumps
  on six distinct cells commute, so only the order with the lower jump index first is kept
  (any plan can be bubble-sorted into this form, so no solution is lost).  This is the
  symmetry-breaking idea of Kautz & Selman's linear plan encodings.  On this machine it
  does not make the 31-jump English complements easy: CaDiCaL needs minutes for them, while
  boards of up to ~25 jumps solve in seconds.

Step-indexed reachability (a planning graph, run forward from the start and backward from the
goal) removes the jump variables that cannot occur at a step and fixes the cells that cannot
change; option ``reach=0`` switches it off.
"""

from __future__ import annotations

import time
from typing import Any

from puzzlesat.core import Limits, Result, Status
from puzzlesat.domains.pegsol import PEG, Cell, Instance, Jump, Move, Solution, presolve, step_jumps
from puzzlesat.encoders.dimacs import Encoding, Key, cnf_stats


def _disjoint(j1: Jump, j2: Jump) -> bool:
    return not set(j1) & set(j2)


def encode(instance: Instance, options: dict[str, Any]) -> Encoding:
    """The CNF of the fixed-horizon plan.

    Args:
        instance: the board, start and goal.
        options: ``ordering`` (1/0, default 1): the independent-jump ordering clauses;
            ``reach`` (1/0, default 1): planning-graph pruning of jump variables.

    Returns:
        The Encoding; ``decode`` turns the true ``jump`` keys into a Solution.
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import CNF, IDPool

    ordering = bool(int(options.get("ordering", 1)))
    reach = bool(int(options.get("reach", 1)))
    pool = IDPool()
    cnf = CNF()
    jumps = instance.jumps()
    horizon = instance.moves_needed
    cells = instance.cells
    allowed = step_jumps(instance, reach)

    def peg(t: int, cell: Cell) -> int:
        return int(pool.id(("peg", t, *cell)))

    def jump(t: int, k: int) -> int:
        (r1, c1), _, (r2, c2) = jumps[k]
        return int(pool.id(("jump", t, r1, c1, r2, c2)))

    # name every primary variable first, so that their ids do not depend on the options
    for t in range(horizon + 1):
        for cell in cells:
            peg(t, cell)
    for t in range(horizon):
        for k in allowed[t]:
            jump(t, k)

    # start and goal
    for r, c in cells:
        cnf.append([peg(0, (r, c)) if instance.start[r][c] == PEG else -peg(0, (r, c))])
        cnf.append([peg(horizon, (r, c)) if instance.target[r][c] == PEG else -peg(horizon, (r, c))])

    for t in range(horizon):
        step = [jump(t, k) for k in allowed[t]]
        # one jump a step
        cnf.append(step)
        if len(step) > 1:
            cnf.extend(CardEnc.atmost(step, 1, vpool=pool, encoding=EncType.seqcounter).clauses)
        # precondition and effect
        losers: dict[Cell, list[int]] = {x: [] for x in cells}
        gainers: dict[Cell, list[int]] = {x: [] for x in cells}
        for k in allowed[t]:
            a, b, to = jumps[k]
            j = jump(t, k)
            cnf.extend(
                [
                    [-j, peg(t, a)],
                    [-j, peg(t, b)],
                    [-j, -peg(t, to)],
                    [-j, -peg(t + 1, a)],
                    [-j, -peg(t + 1, b)],
                    [-j, peg(t + 1, to)],
                ]
            )
            losers[a].append(j)
            losers[b].append(j)
            gainers[to].append(j)
        # frame axioms: a cell changes only when the step's jump touches it
        for x in cells:
            cnf.append([-peg(t, x), peg(t + 1, x), *losers[x]])
            cnf.append([peg(t, x), -peg(t + 1, x), *gainers[x]])

    # ordering: of two consecutive independent jumps, the lower index goes first
    if ordering:
        for t in range(horizon - 1):
            later = allowed[t + 1]
            for k1 in allowed[t]:
                for k2 in later:
                    if k2 < k1 and _disjoint(jumps[k1], jumps[k2]):
                        cnf.append([-jump(t, k1), -jump(t + 1, k2)])

    def decode(true_keys: set[Key]) -> Solution:
        steps = sorted((key for key in true_keys if key[0] == "jump"), key=lambda key: int(key[1]))  # type: ignore[call-overload]
        return Solution(tuple(Move(int(k[2]), int(k[3]), int(k[4]), int(k[5])) for k in steps))  # type: ignore[call-overload]

    stats = cnf_stats(cnf)
    stats["horizon"] = horizon
    stats["jump_vars"] = sum(len(a) for a in allowed)
    return Encoding(cnf, pool, decode, stats)


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Encode, run the pysat solver ``variant``, decode; UNSAT proves impossibility.

    Encoder options come from ``limits.options`` (``ordering``, ``reach``).
    """
    from puzzlesat.encoders.sat import solve_once

    start = time.perf_counter()
    early = presolve(instance, limits)
    if early is not None:
        early.wall_time = time.perf_counter() - start
        return early
    encoding = encode(instance, {k: v for k, v in limits.options.items() if k in ("ordering", "reach")})
    stats: dict[str, Any] = dict(encoding.stats)
    # solve_once runs Kissat (which pysat cannot interrupt) in a child killed at the deadline
    outcome, model, solver_stats = solve_once(variant or "cadical195", encoding.cnf.clauses, limits.remaining(start))
    stats.update(solver_stats)
    elapsed = time.perf_counter() - start
    if outcome is None:
        return Result(Status.UNKNOWN, None, wall_time=elapsed, stats=stats, message="timeout")
    if not outcome:
        return Result(
            Status.INFEASIBLE,
            None,
            wall_time=elapsed,
            stats=stats,
            message=f"no plan of {instance.moves_needed} jumps (SAT solver: UNSAT)",
        )
    return Result(Status.SOLVED, encoding.decode(encoding.true_keys(model)), wall_time=elapsed, stats=stats)
