"""CP-SAT formulation of edge matching: a table constraint per cell.

Variables:
    ``tile[c]``: the tile on cell ``c``.
    ``h[r, c]``: colour of the edge right of cell (r, c); ``v[r, c]``: the edge below it.
        Edges on the board's rim are the constant 0 (grey), so cells need no bounds checks.

Constraints:
    cell: (tile[c], N, E, S, W) is one of the turned tiles whose grey sides are exactly the
        cell's rim sides (a table constraint; it also restricts frame cells to frame tiles);
    tiles: AllDifferent(tile);
    hints: a hinted cell's table holds the hinted tile alone (its tile and colours are fixed);
    symmetry (option ``symmetry``, on): without hints the first corner tile lies top-left on a
        square board, in the top row on a rectangle (:func:`~puzzlesat.domains.eternity.first_corner`).

Score (``--score``, :func:`build_score_model`): every cell side that faces another cell gets
its own colour variable, in the same tables, and a Boolean ``match[a, b]`` per adjacent pair
implies that the two sides between ``a`` and ``b`` agree; the model maximises the number of
matches.  OPTIMAL is CP-SAT's proof; at the time limit the best board found is FEASIBLE.

It cannot count solutions (``--count``): native-rowscan and cnf-heule can.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from puzzlesat.core import Limits, Result, Status, Strategy
from puzzlesat.core.incumbent import Entry
from puzzlesat.core.options import defaults
from puzzlesat.domains.eternity import (
    SYMMETRY,
    Instance,
    Solution,
    first_corner,
    max_score,
    placements,
    rotated,
)

TABLE_OPTIONS = (SYMMETRY,)
STRATEGY = Strategy(
    "cpsat-table",
    "puzzlesat.models.eternity:solve",
    "CP-SAT: a table constraint per cell over (tile, N, E, S, W), AllDifferent tiles",
    model="puzzlesat.models.eternity:build_model",
    options=TABLE_OPTIONS,
    modes=("score",),
    puzzle="eternity",
    engine="cpsat",
    parallel=True,
)
DEFAULTS = defaults(TABLE_OPTIONS)


class BoardVars:
    """The model's variables, addressed by cell and side."""

    def __init__(self, model: Any, instance: Instance) -> None:
        self.instance = instance
        n = instance.cells
        self.tile = [model.new_int_var(0, n - 1, f"tile[{divmod(c, instance.cols)}]") for c in range(n)]
        top = instance.colours - 1
        self.h = {
            (r, c): model.new_int_var(1, top, f"h[{r},{c}]")
            for r in range(instance.rows)
            for c in range(instance.cols - 1)
        }
        self.v = {
            (r, c): model.new_int_var(1, top, f"v[{r},{c}]")
            for r in range(instance.rows - 1)
            for c in range(instance.cols)
        }
        self.grey = model.new_constant(0)

    def side(self, cell: int, side: int) -> Any:
        """The colour variable on side N/E/S/W of a cell; the grey constant off the board."""
        r, c = divmod(cell, self.instance.cols)
        if side == 0:
            return self.v.get((r - 1, c), self.grey)
        if side == 1:
            return self.h.get((r, c), self.grey)
        if side == 2:
            return self.v.get((r, c), self.grey)
        return self.h.get((r, c - 1), self.grey)


def build_model(instance: Instance, options: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """The CP-SAT model and its variables (see the module docstring); with ``score``, the score model."""
    from ortools.sat.python import cp_model

    opts = {**DEFAULTS, **(options or {})}
    if opts.get("score"):
        return build_score_model(instance, opts)[:2]
    model = cp_model.CpModel()
    board = BoardVars(model, instance)
    by_cell = placements(instance)

    # cell: the tile and its four edge colours form one of the fitting turned tiles
    for cell, options_here in by_cell.items():
        rows = [(t, *rotated(instance.tiles[t], r)) for t, r in options_here]
        model.add_allowed_assignments([board.tile[cell], *(board.side(cell, s) for s in range(4))], rows)

    # tiles: each tile is used once
    model.add_all_different(board.tile)

    # hints: the hinted cells' tiles are fixed (their tables also fix the colours)
    for hint in instance.hints:
        model.add(board.tile[hint.cell] == hint.tile)

    # symmetry: turn the board so that the first corner tile is top-left (a rectangle: in the top row)
    fixed = first_corner(instance) if opts["symmetry"] else None
    if fixed is not None:
        corner, cells = fixed
        if cells == (0,):
            model.add(board.tile[0] == corner)
        else:
            for cell in (instance.cells - instance.cols, instance.cells - 1):
                model.add(board.tile[cell] != corner)
    return model, board


def build_score_model(
    instance: Instance, options: dict[str, Any] | None = None, at_least: int | None = None
) -> tuple[Any, Any, Any]:
    """The score model (module docstring): (model, tile variables, side colour variables by (cell,
    side)); ``at_least``: only boards scoring that much (a race's best board is a bound)."""
    from ortools.sat.python import cp_model

    opts = {**DEFAULTS, **(options or {})}
    model = cp_model.CpModel()
    n = instance.cells
    tile = [model.new_int_var(0, n - 1, f"tile[{divmod(c, instance.cols)}]") for c in range(n)]
    grey = model.new_constant(0)
    side: dict[tuple[int, int], Any] = {}
    for cell in range(n):
        rim = instance.frame_sides(cell)
        for s in range(4):
            side[cell, s] = grey if s in rim else model.new_int_var(1, instance.colours - 1, f"side[{cell},{s}]")
    for cell, options_here in placements(instance).items():
        rows = [(t, *rotated(instance.tiles[t], r)) for t, r in options_here]
        model.add_allowed_assignments([tile[cell], *(side[cell, s] for s in range(4))], rows)
    model.add_all_different(tile)
    fixed = first_corner(instance) if opts["symmetry"] else None  # a turned board keeps its score
    if fixed is not None:
        corner, cells = fixed
        if cells == (0,):
            model.add(tile[0] == corner)
        else:
            for cell in (n - instance.cols, n - 1):
                model.add(tile[cell] != corner)
    cols = instance.cols
    pairs = [(c, c + 1, 1, 3) for c in range(n) if c % cols + 1 < cols]
    pairs += [(c, c + cols, 2, 0) for c in range(n - cols)]
    matches = []
    for a, b, side_a, side_b in pairs:
        match = model.new_bool_var(f"match[{a},{b}]")
        model.add(side[a, side_a] == side[b, side_b]).only_enforce_if(match)
        matches.append(match)
    model.maximize(sum(matches))
    if at_least is not None:
        model.add(sum(matches) >= at_least)
    return model, tile, side


def solve_score(instance: Instance, limits: Limits) -> Result:
    """The best board of the score model within the time limit: OPTIMAL only with CP-SAT's proof.

    In a race the model must beat the race's best board (a hint, and its score + 1 as a bound),
    and is built again each time a member shares a better one (:func:`solve_beating`): CP-SAT
    finding no better board is then the proof that the race's best is optimal.
    """
    from puzzlesat.models.cpsat import model_size, solve_beating

    start = time.perf_counter()
    total = max_score(instance)
    race = limits.shared
    from ortools.sat.python import cp_model  # noqa: F401 - imported first: the race's best is read after it

    models: list[tuple[Any, Any]] = []

    def build(held: Entry | None) -> Any:
        at_least = None if held is None else total - held.objective + 1  # beat it: none found is a proof
        model, tile, side = build_score_model(instance, limits.options, at_least)
        if held is not None:
            for cell, (t, r) in enumerate(held.solution.placements):
                model.add_hint(tile[cell], t)
                for s, colour in enumerate(rotated(instance.tiles[t], r)):
                    if s not in instance.frame_sides(cell):
                        model.add_hint(side[cell, s], colour)
        models.append((tile, side))
        return model

    def board(value: Callable[[Any], int]) -> Solution:
        tile, side = models[-1]
        placed = []
        for cell in range(instance.cells):
            t = value(tile[cell])
            sides = tuple(value(side[cell, s]) for s in range(4))
            placed.append((t, next(r for r in range(4) if rotated(instance.tiles[t], r) == sides)))
        return Solution(tuple(placed))

    def share(found: Any) -> int:
        assert race is not None
        errors = total - int(found.objective_value)
        race.offer(errors, board(found.value))
        return errors

    raced = solve_beating(build, limits, start, race, None if race is None else share)
    run, held = raced.run, raced.held
    stats: dict[str, Any] = {**model_size(raced.model), **run.stats}
    if raced.restarts:
        stats["restarts"] = raced.restarts
    elapsed = time.perf_counter() - start
    if run.status in (Status.OPTIMAL, Status.SOLVED):
        score = int(run.solver.objective_value)
        stats["score"] = f"{score}/{total}"
        proven = run.status is Status.OPTIMAL
        return Result(
            Status.OPTIMAL if proven else Status.FEASIBLE,
            board(run.solver.value),
            objective=max_score(instance) - score,
            wall_time=elapsed,
            stats=stats,
            message="" if proven else "time limit: the best board found, not proven the best",
        )
    if run.status is Status.INFEASIBLE and held is not None:
        stats["score"] = f"{total - held.objective}/{total}"
        return Result(
            Status.OPTIMAL,
            held.solution,
            objective=held.objective,
            wall_time=elapsed,
            stats=stats,
            message=f"CP-SAT proved that no board beats {held.source or 'the race'}'s",
        )
    if run.status is Status.UNKNOWN:
        beat = "" if held is None else f": no board beats the race's best ({total - held.objective}/{total}) yet"
        return Result(Status.UNKNOWN, wall_time=elapsed, stats=stats, message="time limit" + beat)
    return Result(Status.ERROR, wall_time=elapsed, stats=stats, message=run.message)


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Build the model and solve it with ``limits.workers`` CP-SAT workers (or the score model)."""
    from puzzlesat.models.cpsat import model_size, solve_model

    if limits.options.get("score"):
        return solve_score(instance, limits)
    start = time.perf_counter()
    model, board = build_model(instance, limits.options)
    run = solve_model(model, limits, limits.remaining(start))
    stats = {**model_size(model), **run.stats}
    elapsed = time.perf_counter() - start
    if run.status is Status.SOLVED:
        placed = []
        for cell in range(instance.cells):
            tile = run.solver.value(board.tile[cell])
            sides = tuple(run.solver.value(board.side(cell, s)) for s in range(4))
            rot = next(r for r in range(4) if rotated(instance.tiles[tile], r) == sides)
            placed.append((tile, rot))
        return Result(Status.SOLVED, Solution(tuple(placed)), wall_time=elapsed, stats=stats)
    if run.status is Status.INFEASIBLE:
        return Result(Status.INFEASIBLE, wall_time=elapsed, stats=stats)
    if run.status is Status.UNKNOWN:
        return Result(Status.UNKNOWN, wall_time=elapsed, stats=stats, message="time limit")
    return Result(run.status, wall_time=elapsed, stats=stats, message=run.message)
