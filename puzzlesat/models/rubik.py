"""``cpsat-bmc``: "is the cube solvable in N moves?" as a CP-SAT model, N = 0, 1, 2, ...

Integer state per step: ``cp[t][i]`` (the corner in position i after t moves), ``co[t][i]``
(its twist), ``ep[t][i]`` and ``eo[t][i]`` for edges, and ``mv[t]`` the move index of step t
(:func:`~puzzlesat.domains.rubik.metric_moves`).  A move replaces position i by the cubie
of a source position that depends on the move: ``src = SRC[mv][i]`` (an element over a
constant table), ``cp[t+1][i] = cp[t][src]`` (an element over variables), and the new
orientation is a table constraint over ``(mv, old orientation, new orientation)``.
"""

from __future__ import annotations

import time
from typing import Any

from puzzlesat.core import Limits, Option, Result, Status, Strategy
from puzzlesat.core.options import defaults
from puzzlesat.domains.rubik import (
    HORIZON,
    METRIC,
    METRICS,
    Instance,
    Solution,
    bounded_answer,
    forbidden_pairs,
    forbidden_triples,
    max_depth_of,
    metric_moves,
    metric_of,
    move_cubes,
    parity,
    simplify,
)

BMC_OPTIONS = (HORIZON, Option("canonical", bool, True, "only canonical move sequences (redundant)"))
STRATEGY = Strategy(
    "cpsat-bmc",
    "puzzlesat.models.rubik:solve",
    "CP-SAT bounded model 'solvable in N moves?', N = 0, 1, 2, ... (shallow positions)",
    model="puzzlesat.models.rubik:build_model",
    options=BMC_OPTIONS,
    puzzle="rubik",
    engine="cpsat",
    parallel=True,
)
DEFAULTS = defaults((*BMC_OPTIONS, METRIC))


class BmcVars:
    """The model's variables: ``mv[t]`` and the state lists ``cp[t]``, ``co[t]``, ``ep[t]``, ``eo[t]``
    (a plain class: a dataclass would cost every listing of the strategies its set-up)."""

    def __init__(
        self,
        mv: list[Any],
        cp: list[list[Any]],
        co: list[list[Any]],
        ep: list[list[Any]],
        eo: list[list[Any]],
        metric: str,
    ) -> None:
        self.mv, self.cp, self.co, self.ep, self.eo, self.metric = mv, cp, co, ep, eo, metric

    def maneuver(self, solver: Any) -> tuple[tuple[int, int], ...]:
        """The moves of a solved model."""
        moves = metric_moves(self.metric)
        return simplify(tuple(moves[solver.value(v)] for v in self.mv))


def _move_cubies(
    model: Any,
    m: Any,
    t: int,
    kind: str,
    moves: list[tuple[tuple[int, ...], tuple[int, ...]]],
    before: tuple[list[Any], list[Any]],
    after: tuple[list[Any], list[Any]],
    twists: int,
) -> None:
    """Step ``t`` for the corners (``kind`` "c", ``twists`` 3) or the edges ("e", 2): move ``m``
    brings the cubie of a source position to each position, turned by the move's orientation
    change there.  ``moves`` holds each move's (permutation, orientation) of that kind;
    ``before`` and ``after`` the state's (positions, orientations) variables."""
    (perm, orient), (new_perm, new_orient) = before, after
    for i in range(len(perm)):
        src = model.new_int_var(0, len(perm) - 1, f"{kind}src[{t},{i}]")
        model.add_element(m, [p[i] for p, _ in moves], src)
        model.add_element(src, perm, new_perm[i])
        old = model.new_int_var(0, twists - 1, f"{kind}old[{t},{i}]")
        model.add_element(src, orient, old)
        model.add_allowed_assignments(
            [m, old, new_orient[i]],
            [(j, o, (o + turn[i]) % twists) for j, (_, turn) in enumerate(moves) for o in range(twists)],
        )


def build_model(instance: Instance, options: dict[str, Any]) -> tuple[Any, BmcVars]:
    """The N-move model.

    Args:
        instance: the position.
        options: ``horizon`` (N), ``metric`` (htm/qtm), ``canonical`` (0 turns off the
            redundant canonical-sequence constraints); a missing key takes its declared
            default (:data:`DEFAULTS`).
    """
    from ortools.sat.python import cp_model

    opts = {**DEFAULTS, **options}
    horizon = int(opts["horizon"])
    metric = str(opts["metric"]).lower()
    canonical = bool(int(opts["canonical"]))
    moves = metric_moves(metric)
    cubes = [move_cubes()[f * 3 + t - 1] for f, t in moves]
    model = cp_model.CpModel()
    cube = instance.cube
    cp = [[model.new_constant(v) for v in cube.cp]]
    co = [[model.new_constant(v) for v in cube.co]]
    ep = [[model.new_constant(v) for v in cube.ep]]
    eo = [[model.new_constant(v) for v in cube.eo]]
    mv = []
    for t in range(horizon):
        m = model.new_int_var(0, len(moves) - 1, f"mv[{t}]")
        mv.append(m)
        last = t == horizon - 1
        # the last state is the solved cube
        ncp = [model.new_constant(i) if last else model.new_int_var(0, 7, f"cp[{t + 1},{i}]") for i in range(8)]
        nco = [model.new_constant(0) if last else model.new_int_var(0, 2, f"co[{t + 1},{i}]") for i in range(8)]
        nep = [model.new_constant(i) if last else model.new_int_var(0, 11, f"ep[{t + 1},{i}]") for i in range(12)]
        neo = [model.new_constant(0) if last else model.new_int_var(0, 1, f"eo[{t + 1},{i}]") for i in range(12)]
        # a move moves the cubie of a source position here, turning it
        _move_cubies(model, m, t, "c", [(c.cp, c.co) for c in cubes], (cp[t], co[t]), (ncp, nco), 3)
        _move_cubies(model, m, t, "e", [(c.ep, c.eo) for c in cubes], (ep[t], eo[t]), (nep, neo), 2)
        # redundant: each state is a permutation
        if not last:
            model.add_all_different(ncp)
            model.add_all_different(nep)
        cp.append(ncp)
        co.append(nco)
        ep.append(nep)
        eo.append(neo)
    if horizon == 0 and not cube.is_solved:
        model.add_bool_or([])  # no move at all: feasible only for the solved cube
    # canonical sequences only (redundant: every solution has a canonical form)
    if canonical:
        for t in range(horizon - 1):
            model.add_forbidden_assignments([mv[t], mv[t + 1]], forbidden_pairs(metric))
        for t in range(horizon - 2):
            triples = forbidden_triples(metric)
            if triples:
                model.add_forbidden_assignments([mv[t], mv[t + 1], mv[t + 2]], triples)
    return model, BmcVars(mv, cp, co, ep, eo, metric)


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Ask N = 0, 1, 2, ... (QTM: by 2, keeping the parity) until feasible; OPTIMAL since every
    shorter N was proved infeasible.  Options: ``metric``, ``max_depth`` (default:
    :data:`~puzzlesat.domains.rubik.MAX_DEPTH`)."""
    from puzzlesat.core.horizon import raise_horizon
    from puzzlesat.models.cpsat import solve_model

    start = time.perf_counter()
    metric = metric_of(limits.options)
    if metric not in METRICS:
        return Result(Status.ERROR, message=f"unknown metric {metric!r}; expected htm or qtm")
    max_depth = max_depth_of("cpsat-bmc", limits.options, metric)
    first, step = (parity(instance.cube.cp), 2) if metric == "qtm" else (0, 1)
    stats: dict[str, Any] = {"conflicts": 0, "workers": limits.workers}

    def try_horizon(n: int) -> Result:
        model, bv = build_model(instance, {**limits.options, "horizon": n, "metric": metric})
        run = solve_model(model, limits, limits.remaining(start))
        stats["conflicts"] += run.stats["conflicts"]
        stats["horizon"] = n
        if run.status is Status.SOLVED:
            return Result(Status.SOLVED, Solution((bv.maneuver(run.solver),), metric))
        return Result(run.status, message=run.message)

    outcome = raise_horizon(try_horizon, range(first, max_depth + 1, step), lambda: limits.remaining(start))
    return bounded_answer(outcome, max_depth, stats, time.perf_counter() - start)
