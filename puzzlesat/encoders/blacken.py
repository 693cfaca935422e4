"""Time-indexed CNF for blacken: the board after each step, one placement a step.

Variables (IDPool keys):

- ``("b", t, r, c)``: cell (r, c) is black after step t (0 = the start, nothing black); only
  for the cells that matter: white stones and the empty cells next to them (the frontier);
- ``("x", t, r, c)``: step t places its stone on frontier cell (r, c);
- ``("a", t)``: step t is a move; steps are used from the first: ``a[t] -> a[t-1]``;
- auxiliaries (not keyed by tuples) for the Reversi rule along lines of white stones.

The Reversi rule as chains along a line through a white stone w (direction d):
``P[t, w, d]`` "walking from w along d over white stones, the first other cell is the one
step t plays on", and ``K[t, w, d]`` "... the first other cell is black after step t-1".
Stone w flips at step t iff it is white after t-1 and ``P[t, w, d] and K[t, w, -d]`` for some
d.  Both chains are full equivalences, so every model is a legal play.

"Can it be done in N moves?" is the assumption ``not a[N+1]`` on a formula built with a
horizon H >= N: the solver keeps what it learnt between horizons (incremental CaDiCaL).
``encode(instance, {"horizon": N})`` exports exactly that question (horizon N).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from puzzlesat.core import InvalidInstanceError, Limits, Result, Status, Strategy
from puzzlesat.domains.blacken import DIRECTIONS, HORIZON, Cell, Instance, Solution, greedy

if TYPE_CHECKING:
    from puzzlesat.encoders.dimacs import Encoding, Key

# incremental solvers only: the horizon is raised under assumptions (no Kissat)
SOLVERS = ("cadical195", "cadical153", "cadical300", "glucose4", "glucose3", "maplechrono", "minisat22", "lingeling")
STRATEGY = Strategy(
    "cnf-steps",
    "puzzlesat.encoders.blacken:solve",
    "time-indexed CNF; the horizon raised from the lower bound under assumptions "
    "(incremental CaDiCaL); export with -O horizon=N asks 'in N moves?'",
    variants=SOLVERS,
    default_variant="cadical195",
    encoder="puzzlesat.encoders.blacken:encode",
    options=(HORIZON,),
    puzzle="blacken",
    engine="sat",
)


class StepFormula:
    """The clauses of the time-indexed formulation, built step by step.

    Args:
        instance: the board.
        horizon: the number of steps.
        pool: a pysat IDPool.
    """

    def __init__(self, instance: Instance, horizon: int, pool: Any) -> None:
        from pysat.card import CardEnc, EncType

        self.instance = instance
        self.horizon = horizon
        self.pool = pool
        self.clauses: list[list[int]] = []
        self.whites = sorted(set(instance.whites))
        self.white_set = set(self.whites)
        self.frontier = instance.frontier()
        self.cells = self.whites + self.frontier
        self._done: set[int] = set()
        add = self.clauses.append
        # the start: nothing is black
        for cell in self.cells:
            add([-self.b(0, cell)])
        for t in range(1, horizon + 1):
            xs = [self.x(t, p) for p in self.frontier]
            # steps are used from the first; an active step places exactly one stone
            if t > 1:
                add([-self.a(t), self.a(t - 1)])
            add([-self.a(t), *xs])
            for lit in xs:
                add([-lit, self.a(t)])
            amo = CardEnc.atmost(lits=xs, bound=1, vpool=pool, encoding=EncType.seqcounter)
            self.clauses.extend(amo.clauses)
            # a placement goes on an empty cell next to a white stone; placed stones stay
            for p in self.frontier:
                x, before, after = self.x(t, p), self.b(t - 1, p), self.b(t, p)
                add([-x, -before])
                add([-x, *[-self.b(t - 1, w) for w in self.neighbours(p)]])
                add([-after, before, x])
                add([after, -before])
                add([after, -x])
            # the Reversi rule
            for w in self.whites:
                self.flip_rule(t, w)
        # the goal: every stone black after the last step
        for w in self.whites:
            add([self.b(horizon, w)])

    def b(self, t: int, cell: Cell) -> int:
        """Variable: cell black after step t."""
        return int(self.pool.id(("b", t, cell[0], cell[1])))

    def x(self, t: int, cell: Cell) -> int:
        """Variable: step t places on cell."""
        return int(self.pool.id(("x", t, cell[0], cell[1])))

    def a(self, t: int) -> int:
        """Variable: step t is a move."""
        return int(self.pool.id(("a", t)))

    def neighbours(self, p: Cell) -> list[Cell]:
        """White stones next to a cell."""
        return [(p[0] + dr, p[1] + dc) for dr, dc in DIRECTIONS if (p[0] + dr, p[1] + dc) in self.white_set]

    def _aux(self, name: str, t: int, w: Cell, d: int) -> int:
        return int(self.pool.id(f"{name}{t},{w[0]},{w[1]},{d}"))

    def placed_along(self, t: int, w: Cell, d: int) -> int:
        """P[t, w, d]: over white stones from w along d, the first other cell is played at t."""
        dr, dc = DIRECTIONS[d]
        n = (w[0] + dr, w[1] + dc)
        if n not in self.white_set:
            return self.x(t, n)
        var = self._aux("P", t, w, d)
        if var not in self._done:
            self._done.add(var)
            rest, white = self.placed_along(t, n, d), -self.b(t - 1, n)
            self.clauses.extend([[-var, white], [-var, rest], [var, -white, -rest]])
        return var

    def black_along(self, t: int, w: Cell, d: int) -> int:
        """K[t, w, d]: over white stones from w along d, the first other cell is black after t-1."""
        dr, dc = DIRECTIONS[d]
        n = (w[0] + dr, w[1] + dc)
        if n not in self.white_set:
            return self.b(t - 1, n)
        var = self._aux("K", t, w, d)
        if var not in self._done:
            self._done.add(var)
            rest, black = self.black_along(t, n, d), self.b(t - 1, n)
            # n black -> true; n white -> the rest of the line decides
            self.clauses.extend([[var, -black], [-var, black, rest], [var, black, -rest]])
        return var

    def flip_rule(self, t: int, w: Cell) -> None:
        """w black after t iff black after t-1, or white then and caught between P and K."""
        add = self.clauses.append
        before, after = self.b(t - 1, w), self.b(t, w)
        pairs = []
        for d in range(8):
            opposite = 7 - d  # DIRECTIONS is symmetric: index 7 - d is the reverse of d
            p, k = self.placed_along(t, w, d), self.black_along(t, w, opposite)
            y = self._aux("Y", t, w, d)
            self.clauses.extend([[-y, p], [-y, k], [y, -p, -k]])
            pairs.append(y)
        add([after, -before])
        add([-after, before, *pairs])
        for y in pairs:
            add([after, -y])


def encode(instance: Instance, options: dict[str, Any]) -> Encoding:
    """The question "every stone black within ``horizon`` moves?" as one CNF.

    Args:
        instance: the board.
        options: ``horizon`` (default: the greedy answer's length, which is satisfiable).

    Returns:
        The Encoding; decode maps true ``x`` keys to the moves in step order.
    """
    from pysat.formula import CNF, IDPool

    from puzzlesat.encoders.dimacs import Encoding, cnf_stats

    horizon = options.get("horizon")
    if horizon is None:
        seed_answer = greedy(instance)
        horizon = len(seed_answer) if seed_answer is not None else len(instance.frontier())
    if not isinstance(horizon, int) or horizon < 0:
        raise InvalidInstanceError(f"option horizon must be a non-negative integer, got {horizon!r}")
    pool = IDPool()
    formula = StepFormula(instance, horizon, pool)
    cnf = CNF(from_clauses=formula.clauses)
    cnf.nv = max(cnf.nv, pool.top)

    def decode(true_keys: set[Key]) -> Solution:
        steps = sorted((int(k[1]), (int(k[2]), int(k[3]))) for k in true_keys if k[0] == "x")
        return Solution(tuple(cell for _, cell in steps))

    stats = {**cnf_stats(cnf), "horizon": horizon}
    return Encoding(cnf, pool, decode, stats)


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """``cnf-steps:<solver>``: raise the horizon from the lower bound until satisfiable.

    The formula is built once with the greedy answer's length as horizon H; the question
    "N moves?" is the assumption ``not a[N+1]``, asked for N = lower bound, lower bound + 1,
    ... on one incremental solver (:func:`~puzzlesat.core.horizon.raise_horizon`).  The first
    satisfiable N is optimal (the one below was refuted), and H itself needs no call: the
    greedy answer already has H moves.
    """
    from pysat.formula import IDPool
    from pysat.solvers import Solver  # incremental: Kissat is not among the variants

    from puzzlesat.core.horizon import raise_horizon
    from puzzlesat.domains.blacken.bound import move_lower_bound
    from puzzlesat.encoders.sat import refute, sat_result, solve_limited, solver_stats

    start = time.perf_counter()
    if not instance.whites:
        return Result(Status.OPTIMAL, Solution(()), 0, 0.0, {})
    best = greedy(instance, limits.seed)
    assert best is not None or len(instance.frontier()) > 0
    horizon = len(best) if best is not None else len(instance.frontier())
    lower = move_lower_bound(instance)
    pool = IDPool()
    formula = StepFormula(instance, horizon, pool)
    stats: dict[str, Any] = {
        "variables": pool.top,
        "clauses": len(formula.clauses),
        "horizon": horizon,
        "lower_bound": lower,
        "calls": 0,
    }
    conflicts = 0
    name = variant or "cadical195"
    with Solver(name=name, bootstrap_with=formula.clauses) as solver:

        def try_horizon(n: int) -> Result:
            nonlocal conflicts
            stats["calls"] += 1
            sat = solve_limited(solver, limits.remaining(start), [-formula.a(n + 1)])
            conflicts = solver_stats(solver).get("conflicts", 0)
            if sat is False:
                stats["refuted"] = n

            def plan() -> Solution:
                true = {lit for lit in solver.get_model() if lit > 0}
                return Solution(tuple(p for t in range(1, n + 1) for p in formula.frontier if formula.x(t, p) in true))

            return sat_result(sat, plan)

        known = Solution(best) if best is not None else None
        outcome = raise_horizon(try_horizon, range(lower, horizon), lambda: limits.remaining(start), known)
    stats["conflicts"] = conflicts
    wall = time.perf_counter() - start
    if outcome.status is Status.INFEASIBLE:  # every horizon below H refuted, and greedy found no answer
        return Result(Status.ERROR, None, None, wall, stats, message="no answer")
    objective = len(outcome.solution.moves) if outcome.solution is not None else None
    if outcome.status is Status.OPTIMAL and objective:  # "at most k - 1 moves" is one step below, afresh
        below = f"no plan of {objective - 1} moves"
        refute("optimal", below, formula.clauses, name, limits.remaining(start), assumptions=[-formula.a(objective)])
    return Result(outcome.status, outcome.solution, objective, wall, stats, message=outcome.message)
