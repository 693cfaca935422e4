"""``cnf-bmc``: "is the cube solvable in N moves?" as CNF, N = 0, 1, 2, ... (bounded model checking).

The state after each step is a set of one-hot blocks per position (Kautz-Selman style
planning encodings; for the cube see Chen, "Solving Rubik's Cube using SAT solvers", 2011):

- ``("c", t, p, c)``: corner cubie ``c`` sits in corner position ``p`` after ``t`` moves;
- ``("co", t, p, o)``: the corner in position ``p`` has twist ``o``;
- ``("e", t, p, e)`` and ``("eo", t, p)``: the same for edges (flip as a single variable);
- ``("m", t, j)``: move ``j`` of the metric (:func:`~puzzlesat.domains.rubik.metric_moves`)
  is step ``t``; exactly one per step.

A chosen move makes each position's block at ``t + 1`` equal to its source position's block
at ``t`` (both directions, so no at-most-one clauses are needed past ``t = 0``); the state
at 0 is the position and the state at N the solved cube.  Canonical sequences only (no face
twice in a row, U before D...): these clauses are redundant but cut the search a lot.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from puzzlesat.core import SAT_SOLVERS, Limits, PuzzlesatError, Result, Status, Strategy
from puzzlesat.domains.rubik import (
    HORIZON,
    METRICS,
    Cube,
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

if TYPE_CHECKING:
    from puzzlesat.encoders.dimacs import Encoding, Key

STRATEGY = Strategy(
    "cnf-bmc",
    "puzzlesat.encoders.rubik:solve",
    "CNF bounded model 'solvable in N moves?', N = 0, 1, 2, ...; any pysat solver",
    variants=SAT_SOLVERS,
    default_variant="cadical195",
    encoder="puzzlesat.encoders.rubik:encode",
    options=(HORIZON,),
    puzzle="rubik",
    engine="sat",
)


def encode(instance: Instance, options: dict[str, Any]) -> Encoding:
    """The N-move question for one position.

    Args:
        instance: the position.
        options: ``horizon`` (N, default 6), ``metric`` (``htm`` or ``qtm``).

    Returns:
        The Encoding; its decode turns the true ``("m", t, j)`` keys into a maneuver.
    """
    from pysat.formula import CNF, IDPool

    from puzzlesat.encoders.dimacs import Encoding, cnf_stats

    horizon = int(options.get("horizon", 6))
    metric = metric_of(options)
    if metric not in METRICS:
        raise PuzzlesatError(f"unknown metric {metric!r}; expected htm or qtm")
    moves = metric_moves(metric)
    pool = IDPool()
    cnf = CNF()
    c = lambda t, p, x: pool.id(("c", t, p, x))  # noqa: E731
    co = lambda t, p, o: pool.id(("co", t, p, o))  # noqa: E731
    e = lambda t, p, x: pool.id(("e", t, p, x))  # noqa: E731
    eo = lambda t, p: pool.id(("eo", t, p))  # noqa: E731
    mv = lambda t, j: pool.id(("m", t, j))  # noqa: E731
    # name every state variable in a fixed order, so that ids do not depend on the position
    for t in range(horizon + 1):
        for p in range(8):
            for x in range(8):
                c(t, p, x)
            for o in range(3):
                co(t, p, o)
        for p in range(12):
            for x in range(12):
                e(t, p, x)
            eo(t, p)
        if t < horizon:
            for j in range(len(moves)):
                mv(t, j)
    # the position at step 0, the solved cube at step N
    for t, cube in ((0, instance.cube), (horizon, Cube.solved())):
        for p in range(8):
            for x in range(8):
                cnf.append([c(t, p, x) if cube.cp[p] == x else -c(t, p, x)])
            for o in range(3):
                cnf.append([co(t, p, o) if cube.co[p] == o else -co(t, p, o)])
        for p in range(12):
            for x in range(12):
                cnf.append([e(t, p, x) if cube.ep[p] == x else -e(t, p, x)])
            cnf.append([eo(t, p) if cube.eo[p] else -eo(t, p)])
    for t in range(horizon):
        # exactly one move per step
        cnf.append([mv(t, j) for j in range(len(moves))])
        for a in range(len(moves)):
            for b in range(a + 1, len(moves)):
                cnf.append([-mv(t, a), -mv(t, b)])
        # a move copies each source position's cubie and orientation to its new position
        for j, (face, turns) in enumerate(moves):
            cube = move_cubes()[face * 3 + turns - 1]
            m = mv(t, j)
            for p in range(8):
                s = cube.cp[p]
                for x in range(8):
                    cnf.append([-m, -c(t, s, x), c(t + 1, p, x)])
                    cnf.append([-m, c(t, s, x), -c(t + 1, p, x)])
                for o in range(3):
                    o2 = (o + cube.co[p]) % 3
                    cnf.append([-m, -co(t, s, o), co(t + 1, p, o2)])
                    cnf.append([-m, co(t, s, o), -co(t + 1, p, o2)])
            for p in range(12):
                s = cube.ep[p]
                for x in range(12):
                    cnf.append([-m, -e(t, s, x), e(t + 1, p, x)])
                    cnf.append([-m, e(t, s, x), -e(t + 1, p, x)])
                sign = -1 if cube.eo[p] else 1
                cnf.append([-m, -eo(t, s), sign * eo(t + 1, p)])
                cnf.append([-m, eo(t, s), -sign * eo(t + 1, p)])
    # canonical sequences (redundant)
    for t in range(horizon - 1):
        for a, b in forbidden_pairs(metric):
            cnf.append([-mv(t, a), -mv(t + 1, b)])
    for t in range(horizon - 2):
        for a, b, d in forbidden_triples(metric):
            cnf.append([-mv(t, a), -mv(t + 1, b), -mv(t + 2, d)])

    def decode(true_keys: set[Key]) -> Solution:
        chosen = sorted((int(k[1]), int(k[2])) for k in true_keys if k[0] == "m")
        return Solution((simplify(tuple(moves[j] for _, j in chosen)),), metric)

    stats = cnf_stats(cnf)
    stats["horizon"] = horizon
    return Encoding(cnf, pool, decode, stats)


def start_depth(instance: Instance, metric: str) -> tuple[int, int]:
    """First horizon worth asking and the step: QTM lengths keep the corner parity."""
    if metric == "qtm":
        return parity(instance.cube.cp), 2
    return 0, 1


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Ask N = 0, 1, 2, ... until SAT; OPTIMAL because every shorter N was UNSAT.

    Options: ``metric``, ``max_depth`` (default: :data:`~puzzlesat.domains.rubik.MAX_DEPTH`).
    """
    from puzzlesat.core.horizon import raise_horizon
    from puzzlesat.encoders.sat import refute, sat_result, solve_once

    start = time.perf_counter()
    metric = metric_of(limits.options)
    if metric not in METRICS:
        return Result(Status.ERROR, message=f"unknown metric {metric!r}; expected htm or qtm")
    max_depth = max_depth_of("cnf-bmc", limits.options, metric)
    first, step = start_depth(instance, metric)
    stats: dict[str, Any] = {"conflicts": 0, "variables": 0, "clauses": 0}
    name = variant or "cadical195"
    # QTM asks every other length only; the ones between rest on the parity argument, not on a CNF
    skipped = "lengths of the other parity skipped: a quarter turn flips the corner permutation's parity"
    skipped = skipped if step == 2 else ""

    def try_horizon(n: int) -> Result:
        enc = encode(instance, {"horizon": n, "metric": metric})
        stats.update(variables=enc.stats["variables"], clauses=enc.stats["clauses"], horizon=n)
        sat, model, counts = solve_once(name, enc.cnf.clauses, limits.remaining(start))
        stats["conflicts"] += counts.get("conflicts", 0)
        if sat is False:
            claim = f"no maneuver of {n} {metric} moves"
            refute("optimal", claim, enc.cnf.clauses, name, limits.remaining(start), rests_on=skipped)
        return sat_result(sat, lambda: enc.decode(enc.true_keys(model)))

    outcome = raise_horizon(try_horizon, range(first, max_depth + 1, step), lambda: limits.remaining(start))
    return bounded_answer(outcome, max_depth, stats, time.perf_counter() - start)
