"""``cpsat-plan``: the fixed-horizon jump plan of :mod:`puzzlesat.encoders.pegsol` in CP-SAT.

Booleans ``peg[t, r, c]`` (cell holds a peg after t jumps) and ``jump[t, k]`` (jump k of
``instance.jumps()`` is the t-th jump), with the same rules as the CNF: start and goal,
exactly one jump a step, precondition and effect, explanatory frame axioms, and ordering of
consecutive independent jumps.  A redundant linear group states the peg count of every step.
"""

from __future__ import annotations

import time
from typing import Any

from puzzlesat.core import Limits, Option, Result, Status, Strategy
from puzzlesat.core.options import defaults
from puzzlesat.domains.pegsol import (
    PEG,
    REACH,
    Cell,
    Instance,
    Jump,
    Move,
    Solution,
    step_jumps,
)

# cpsat-plan's rule groups
CPSAT_PLAN_OPTIONS = (
    Option("ordering", bool, True, "order independent consecutive jumps (symmetry breaking)"),
    REACH,
    Option("redundant", bool, True, "peg-count constraint per step (redundant)"),
)
STRATEGY = Strategy(
    "cpsat-plan",
    "puzzlesat.models.pegsol:solve",
    "CP-SAT: the same fixed-horizon plan (one jump a step, frame axioms, ordering)",
    model="puzzlesat.models.pegsol:build_model",
    options=CPSAT_PLAN_OPTIONS,
    puzzle="pegsol",
    engine="cpsat",
    parallel=True,
)
DEFAULTS = defaults(CPSAT_PLAN_OPTIONS)


class PlanVars:
    """The model's variables, keyed by step and cell or step and jump index (a plain class: a
    dataclass would cost every listing of the strategies its set-up)."""

    def __init__(
        self, peg: dict[tuple[int, int, int], Any], jump: dict[tuple[int, int], Any], jumps: list[Jump], horizon: int
    ) -> None:
        self.peg, self.jump, self.jumps, self.horizon = peg, jump, jumps, horizon

    def peg_at(self, t: int, cell: Cell) -> Any:
        """The literal "cell holds a peg after t jumps"."""
        return self.peg[t, cell[0], cell[1]]

    def decode(self, value: Any) -> Solution:
        """The plan in a solved model; ``value`` is ``solver.boolean_value``."""
        moves = []
        for t in range(self.horizon):
            for (step, k), var in self.jump.items():
                if step == t and value(var):
                    (r1, c1), _, (r2, c2) = self.jumps[k]
                    moves.append(Move(r1, c1, r2, c2))
        return Solution(tuple(moves))


def build_model(instance: Instance, options: dict[str, Any]) -> tuple[Any, PlanVars]:
    """The CP-SAT model of the plan.

    Args:
        instance: the board, start and goal.
        options: ``ordering`` (1/0, default 1), ``redundant`` (peg count per step, default 1),
            ``reach`` (planning-graph pruning of jump variables, default 1).

    Returns:
        (model, variables).
    """
    from ortools.sat.python import cp_model

    opts = {**DEFAULTS, **options}
    model = cp_model.CpModel()
    jumps = instance.jumps()
    horizon = instance.moves_needed
    cells = instance.cells
    allowed = step_jumps(instance, bool(int(opts["reach"])))
    peg = {(t, r, c): model.new_bool_var(f"peg[{t},{r},{c}]") for t in range(horizon + 1) for r, c in cells}
    jump = {
        (t, k): model.new_bool_var(f"jump[{t}]={jumps[k][0]}->{jumps[k][2]}")
        for t in range(horizon)
        for k in allowed[t]
    }
    pv = PlanVars(peg, jump, jumps, horizon)

    # start and goal
    for r, c in cells:
        model.add(peg[0, r, c] == int(instance.start[r][c] == PEG))
        model.add(peg[horizon, r, c] == int(instance.target[r][c] == PEG))

    for t in range(horizon):
        # one jump a step
        model.add_exactly_one(jump[t, k] for k in allowed[t])
        losers: dict[Cell, list[Any]] = {x: [] for x in cells}
        gainers: dict[Cell, list[Any]] = {x: [] for x in cells}
        # a jump needs pegs on from and over and a hole on to, and leaves the opposite
        for k in allowed[t]:
            a, b, to = jumps[k]
            j = jump[t, k]
            model.add_bool_and(
                pv.peg_at(t, a),
                pv.peg_at(t, b),
                ~pv.peg_at(t, to),
                ~pv.peg_at(t + 1, a),
                ~pv.peg_at(t + 1, b),
                pv.peg_at(t + 1, to),
            ).only_enforce_if(j)
            losers[a].append(j)
            losers[b].append(j)
            gainers[to].append(j)
        # frame axioms: a cell changes only when the step's jump touches it
        for x in cells:
            model.add_bool_or(~pv.peg_at(t, x), pv.peg_at(t + 1, x), *losers[x])
            model.add_bool_or(pv.peg_at(t, x), ~pv.peg_at(t + 1, x), *gainers[x])

    # ordering: of two consecutive independent jumps, the lower index goes first
    if int(opts["ordering"]):
        for t in range(horizon - 1):
            for k1 in allowed[t]:
                for k2 in allowed[t + 1]:
                    if k2 < k1 and not set(jumps[k1]) & set(jumps[k2]):
                        model.add_bool_or(~jump[t, k1], ~jump[t + 1, k2])

    # redundant: each jump removes exactly one peg
    if int(opts["redundant"]):
        for t in range(horizon + 1):
            model.add(sum(peg[t, r, c] for r, c in cells) == instance.start_pegs - t)
    return model, pv


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Build and solve the plan model; INFEASIBLE is CP-SAT's proof that no plan exists."""
    from puzzlesat.models.cpsat import model_size, solve_model

    start = time.perf_counter()
    model, pv = build_model(
        instance, {k: v for k, v in limits.options.items() if k in ("ordering", "redundant", "reach")}
    )
    run = solve_model(model, limits, limits.remaining(start))
    stats = {**model_size(model), **run.stats}
    elapsed = time.perf_counter() - start
    if run.status is Status.SOLVED:
        return Result(Status.SOLVED, pv.decode(run.solver.boolean_value), wall_time=elapsed, stats=stats)
    if run.status is Status.INFEASIBLE:
        return Result(
            Status.INFEASIBLE,
            None,
            wall_time=elapsed,
            stats=stats,
            message=f"no plan of {instance.moves_needed} jumps (CP-SAT: infeasible)",
        )
    return Result(run.status, None, wall_time=elapsed, stats=stats, message=run.message)
