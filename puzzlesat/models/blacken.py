"""Time-indexed CP-SAT model for blacken: the board after each step, minimise the moves.

Steps t = 1..H (H = the greedy answer's length).  ``black[t, cell]`` is the board after step
t over the cells that matter (white stones and the empty cells next to them), ``place[t, p]``
the stone of step t, ``active[t]`` whether step t is a move (used from the first step on).
The Reversi rule is stated with two chains per white stone w, step t and direction d:
``to_move[t, w, d]`` (walking from w along d over white stones, the first other cell is the
one played at t) and ``to_black[t, w, d]`` (... that cell is black after t-1); w flips at t
when it is white after t-1 and ``to_move[t, w, d] and to_black[t, w, -d]`` for some d.
The objective is the number of active steps; its lower bound is the native search's.
"""

from __future__ import annotations

import time
from typing import Any

from puzzlesat.core import Limits, Result, Status, Strategy
from puzzlesat.core.incumbent import Entry
from puzzlesat.domains.blacken import DIRECTIONS, HORIZON, Cell, Instance, Solution, greedy

STRATEGY = Strategy(
    "cpsat-steps",
    "puzzlesat.models.blacken:solve",
    "CP-SAT time-indexed model (board per step, one placement per step), minimises moves",
    model="puzzlesat.models.blacken:build_model",
    options=(HORIZON,),
    puzzle="blacken",
    engine="cpsat",
    parallel=True,
)


class StepVars:
    """The model's variables, with accessors that hide the keys (a plain class: a dataclass
    would cost every listing of the strategies its set-up)."""

    def __init__(self, horizon: int = 0, frontier: list[Cell] | None = None) -> None:
        self.black: dict[tuple[int, Cell], Any] = {}
        self.place: dict[tuple[int, Cell], Any] = {}
        self.active: dict[int, Any] = {}
        self.horizon = horizon
        self.frontier = frontier if frontier is not None else []

    def moves(self, value: Any) -> tuple[Cell, ...]:
        """The placed stones in step order, given a function reading a variable's value."""
        out: list[Cell] = []
        for t in range(1, self.horizon + 1):
            out.extend(p for p in self.frontier if value(self.place[t, p]))
        return tuple(out)


def build_model(instance: Instance, options: dict[str, Any]) -> tuple[Any, StepVars]:
    """The CP-SAT model (and its variables) of "every stone black in fewest moves".

    Args:
        instance: the board.
        options: ``horizon`` (default: the greedy answer's length), ``lower`` (a proven lower
            bound on the moves, default 1 when there are white stones).
    """
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    whites = sorted(set(instance.whites))
    white_set = set(whites)
    frontier = instance.frontier()
    horizon = options.get("horizon")
    if horizon is None:
        answer = greedy(instance)
        horizon = len(answer) if answer is not None else len(frontier)
    v = StepVars(horizon=horizon, frontier=frontier)
    false = model.new_constant(0)

    def black(t: int, cell: Cell) -> Any:
        if t == 0:
            return false
        return v.black[t, cell]

    for t in range(1, horizon + 1):
        v.active[t] = model.new_bool_var(f"active[{t}]")
        for cell in whites + frontier:
            v.black[t, cell] = model.new_bool_var(f"black[{t},{cell[0]},{cell[1]}]")
        for p in frontier:
            v.place[t, p] = model.new_bool_var(f"place[{t},{p[0]},{p[1]}]")

    for t in range(1, horizon + 1):
        # one stone a step while the game goes on; steps are used from the first
        model.add(sum(v.place[t, p] for p in frontier) == v.active[t])
        if t > 1:
            model.add_implication(v.active[t], v.active[t - 1])
        # a stone goes on an empty cell next to a white stone; placed stones stay
        for p in frontier:
            x = v.place[t, p]
            model.add_implication(x, black(t - 1, p).Not())
            nbs = [(p[0] + dr, p[1] + dc) for dr, dc in DIRECTIONS if (p[0] + dr, p[1] + dc) in white_set]
            model.add_bool_or([black(t - 1, w).Not() for w in nbs]).only_enforce_if(x)
            model.add_max_equality(v.black[t, p], [black(t - 1, p), x])
        # the Reversi rule, chains along lines of white stones
        to_move: dict[tuple[Cell, int], Any] = {}
        to_black: dict[tuple[Cell, int], Any] = {}

        def moved(w: Cell, d: int, t: int = t, to_move: dict[tuple[Cell, int], Any] = to_move) -> Any:
            n = (w[0] + DIRECTIONS[d][0], w[1] + DIRECTIONS[d][1])
            if n not in white_set:
                return v.place[t, n]
            if (w, d) not in to_move:
                var = model.new_bool_var(f"to_move[{t},{w[0]},{w[1]},{d}]")
                model.add_min_equality(var, [black(t - 1, n).Not(), moved(n, d)])
                to_move[w, d] = var
            return to_move[w, d]

        def blacked(w: Cell, d: int, t: int = t, to_black: dict[tuple[Cell, int], Any] = to_black) -> Any:
            n = (w[0] + DIRECTIONS[d][0], w[1] + DIRECTIONS[d][1])
            if n not in white_set:
                return black(t - 1, n)
            if (w, d) not in to_black:
                var = model.new_bool_var(f"to_black[{t},{w[0]},{w[1]},{d}]")
                model.add_max_equality(var, [black(t - 1, n), blacked(n, d)])
                to_black[w, d] = var
            return to_black[w, d]

        for w in whites:
            caught = []
            for d in range(8):
                y = model.new_bool_var(f"caught[{t},{w[0]},{w[1]},{d}]")
                model.add_min_equality(y, [moved(w, d), blacked(w, 7 - d)])
                caught.append(y)
            model.add_max_equality(v.black[t, w], [black(t - 1, w), *caught])

    # the goal: every stone black after the last step
    for w in whites:
        model.add(black(horizon, w) == 1)
    moves = sum(v.active.values())
    lower = options.get("lower", 1 if whites else 0)
    model.add(moves >= lower)
    model.minimize(moves)
    return model, v


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """``cpsat-steps``: minimise the active steps; OPTIMAL when CP-SAT proves it.

    The horizon is the greedy answer's length; in a race, one less than the race's best answer
    (:func:`~puzzlesat.models.cpsat.solve_beating`: the model is built again each time a member
    shares a shorter one), so that no answer within it proves the race's best optimal.
    """
    from puzzlesat.models.cpsat import model_size, solve_beating

    del variant
    from puzzlesat.domains.blacken.bound import move_lower_bound

    start = time.perf_counter()
    if not instance.whites:
        return Result(Status.OPTIMAL, Solution(()), 0, 0.0, {})
    answer = greedy(instance, limits.seed)
    race = limits.shared
    lower = move_lower_bound(instance)
    steps: list[StepVars] = []

    def build(held: Entry | None) -> Any:
        if held is None:
            horizon = len(answer) if answer is not None else len(instance.frontier())
        else:
            horizon = held.objective - 1  # beat it: none found is a proof
        model, v = build_model(instance, {"horizon": horizon, "lower": lower})
        if answer is not None and len(answer) <= horizon:
            for t, p in enumerate(answer, start=1):
                model.add_hint(v.place[t, p], 1)
        steps.append(v)
        return model

    def share(found: Any) -> int:
        assert race is not None
        moves = steps[-1].moves(found.boolean_value)
        race.offer(len(moves), Solution(moves))
        return len(moves)

    raced = solve_beating(build, limits, start, race, None if race is None else share)
    run, held, v = raced.run, raced.held, steps[-1]
    stats = {**model_size(raced.model), "horizon": v.horizon, "lower_bound": lower, **run.stats}
    if raced.restarts:
        stats["restarts"] = raced.restarts
    wall = time.perf_counter() - start
    if run.status is Status.OPTIMAL or run.status is Status.SOLVED:
        moves = v.moves(run.solver.boolean_value)
        return Result(
            run.status,
            Solution(moves),
            len(moves),
            wall,
            stats,
            message="" if run.status is Status.OPTIMAL else "timeout: best found, not proven",
        )
    if run.status is Status.INFEASIBLE and held is not None:
        return Result(
            Status.OPTIMAL,
            held.solution,
            held.objective,
            wall,
            stats,
            message=f"CP-SAT proved that no answer is shorter than {held.source or 'the race'}'s",
        )
    if run.status is Status.UNKNOWN and held is None and answer is not None:
        return Result(
            Status.SOLVED, Solution(answer), len(answer), wall, stats, message="timeout: the greedy answer, not proven"
        )
    return Result(run.status, None, None, wall, stats, message=run.message)
