"""CP-SAT models of Masyu: the local rules with lazy loop cuts, and an add_circuit model.

Both read the local rules (degree 0 or 2, circle rules) from
:func:`puzzlesat.domains.masyu.rules.rule_clauses`, as the CNF formulations do, so they
cannot drift apart.  ``cpsat-lazy`` solves, splits the answer into loops, adds a cut per loop and
solves again (CP-SAT is not incremental: each round starts afresh, with the last answer as
a hint).  ``cpsat-circuit`` states connectivity directly with ``add_circuit`` over both
directions of every edge and a self-loop on each cell the loop skips.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from puzzlesat.core import Limits, Result, Status, Strategy
from puzzlesat.core.uniqueness import record_uniqueness
from puzzlesat.domains.masyu import Instance, Solution, edge_cells, loops_of, solution_from_cycle
from puzzlesat.domains.masyu.rules import Grid, Key, Lit, cut_clause, rule_clauses

if TYPE_CHECKING:
    from puzzlesat.models.cpsat import CpSatRun

STRATEGIES = (
    Strategy(
        "cpsat-lazy",
        "puzzlesat.models.masyu:solve_lazy",
        "CP-SAT: degree 0/2 and circle rules, cuts for separate loops added between solves",
        model="puzzlesat.models.masyu:build_model",
        modes=("unique",),
        puzzle="masyu",
        engine="cpsat",
        parallel=True,
    ),
    Strategy(
        "cpsat-circuit",
        "puzzlesat.models.masyu:solve_circuit",
        "CP-SAT add_circuit over both arc directions, a self-loop for each skipped cell",
        model="puzzlesat.models.masyu:build_circuit_model",
        modes=("unique",),
        puzzle="masyu",
        engine="cpsat",
        parallel=True,
    ),
)


class MasyuVars:
    """The model's Boolean variables by key: edges ``("h"|"v", r, c)``, used cells ``("u", r, c)``
    (a plain class: a dataclass would cost every listing of the strategies its set-up)."""

    def __init__(self) -> None:
        self.lits: dict[Key, Any] = {}
        self.arcs: dict[tuple[int, int], Any] = {}

    def edge(self, key: Key) -> Any:
        """The literal of an edge or cell variable."""
        return self.lits[key]

    def literal(self, lit: Lit) -> Any:
        """A CP-SAT literal for a named literal."""
        var = self.lits[lit[0]]
        return var if lit[1] else ~var


def _base(instance: Instance) -> tuple[Any, MasyuVars]:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    grid = Grid(instance.rows, instance.cols)
    mv = MasyuVars()
    for kind, r, c in grid.edges():
        mv.lits[(kind, r, c)] = model.new_bool_var(f"{kind}[{r},{c}]")
    for r in range(instance.rows):
        for c in range(instance.cols):
            mv.lits[("u", r, c)] = model.new_bool_var(f"u[{r},{c}]")
    # degree 0 or 2 per cell, every circle used, white and black circle rules
    for clause in rule_clauses(instance):
        model.add_bool_or([mv.literal(lit) for lit in clause])
    return model, mv


def build_model(instance: Instance, options: dict[str, Any] | None = None) -> tuple[Any, MasyuVars]:
    """The local rules only (``cpsat-lazy`` adds loop cuts to it as it goes)."""
    return _base(instance)


def build_circuit_model(instance: Instance, options: dict[str, Any] | None = None) -> tuple[Any, MasyuVars]:
    """The local rules plus ``add_circuit``: one circuit through the used cells, self-loops elsewhere."""
    model, mv = _base(instance)
    grid = Grid(instance.rows, instance.cols)
    cols = instance.cols
    arcs = []
    # connectivity: the used cells form a single circuit; a skipped cell takes its self-loop
    for key in grid.edges():
        (r1, c1), (r2, c2) = edge_cells(key)
        a, b = r1 * cols + c1, r2 * cols + c2
        fwd = model.new_bool_var(f"x[{a}->{b}]")
        bwd = model.new_bool_var(f"x[{b}->{a}]")
        model.add(fwd + bwd == mv.edge(key))
        mv.arcs[(a, b)], mv.arcs[(b, a)] = fwd, bwd
        arcs += [(a, b, fwd), (b, a, bwd)]
    for r in range(instance.rows):
        for c in range(instance.cols):
            arcs.append((r * cols + c, r * cols + c, ~mv.edge(("u", r, c))))
    model.add_circuit(arcs)
    return model, mv


def _run(model: Any, mv: MasyuVars, grid: Grid, limits: Limits, deadline: float | None) -> tuple[CpSatRun, list[Any]]:
    """One solve and the edges its answer uses (none unless SOLVED)."""
    from puzzlesat.models.cpsat import solve_model

    run = solve_model(model, limits, None if deadline is None else deadline - time.perf_counter())
    on: list[Any] = []
    if run.status is Status.SOLVED:
        on = [k for k in grid.edges() if run.solver.boolean_value(mv.edge(k))]
    return run, on


def _failure(run: CpSatRun) -> str:
    """The message of a solve that found no loop."""
    if run.status is Status.UNKNOWN:
        return "timeout"
    return "" if run.status is Status.INFEASIBLE else run.message


def _lazy_loop(
    model: Any, mv: MasyuVars, instance: Instance, limits: Limits, deadline: float | None, counters: dict[str, int]
) -> tuple[Status, Solution | None, str]:
    grid = Grid(instance.rows, instance.cols)
    circles = frozenset(instance.circles)
    while True:
        counters["iterations"] += 1
        run, on = _run(model, mv, grid, limits, deadline)
        counters["conflicts"] += run.stats["conflicts"]
        if run.status is not Status.SOLVED:
            return run.status, None, _failure(run)
        loops = loops_of(on)
        if len(loops) == 1:
            return Status.SOLVED, solution_from_cycle(loops[0]), ""
        for i, loop in enumerate(loops):
            outside = [cell for j, other in enumerate(loops) if j != i for cell in other]
            model.add_bool_or([mv.literal(lit) for lit in cut_clause(circles, loop, outside, grid)])
            counters["cuts"] += 1
        model.clear_hints()
        on_edges = set(on)
        for key in grid.edges():
            model.add_hint(mv.edge(key), key in on_edges)


def solve_lazy(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Strategy ``cpsat-lazy``: local rules, re-solved with loop cuts until one loop remains."""
    return _solve(instance, limits, lazy=True)


def solve_circuit(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Strategy ``cpsat-circuit``: one CP-SAT solve with add_circuit."""
    return _solve(instance, limits, lazy=False)


def _solve(instance: Instance, limits: Limits, lazy: bool) -> Result:
    """Build the lazy or the circuit model and solve it (the engine answered trivial grids)."""
    start = time.perf_counter()
    deadline = limits.deadline(start)
    model, mv = build_model(instance) if lazy else build_circuit_model(instance)
    counters = {"iterations": 0, "cuts": 0, "conflicts": 0}
    return _finish(instance, model, mv, limits, deadline, counters, start, lazy=lazy)


def _finish(
    instance: Instance,
    model: Any,
    mv: MasyuVars,
    limits: Limits,
    deadline: float | None,
    counters: dict[str, int],
    start: float,
    lazy: bool,
) -> Result:
    grid = Grid(instance.rows, instance.cols)

    def once() -> tuple[Status, Solution | None, str]:
        if lazy:
            return _lazy_loop(model, mv, instance, limits, deadline, counters)
        counters["iterations"] += 1
        run, on = _run(model, mv, grid, limits, deadline)
        counters["conflicts"] += run.stats["conflicts"]
        if run.status is not Status.SOLVED:
            return run.status, None, _failure(run)
        loops = loops_of(on)
        return Status.SOLVED, solution_from_cycle(loops[0]) if len(loops) == 1 else None, ""

    status, loop, failure = once()
    stats: dict[str, Any] = {"variables": len(mv.lits) + len(mv.arcs), **counters, "workers": limits.workers}
    if status is not Status.SOLVED or loop is None:
        return Result(
            status,
            None,
            wall_time=time.perf_counter() - start,
            stats=stats,
            message=failure,
        )
    if not limits.options.get("unique"):
        stats.update(counters)
        return Result(Status.SOLVED, loop, wall_time=time.perf_counter() - start, stats=stats)
    model.add_bool_or([~mv.edge(k) for k in loop.edge_keys()])
    model.clear_hints()
    status2, other, _ = once()
    sat2 = None if status2 is Status.UNKNOWN else status2 is Status.SOLVED
    stats.update(counters)
    result = Result(Status.SOLVED, loop, wall_time=time.perf_counter() - start, stats=stats)
    return record_uniqueness(result, sat2, other, noun="loop")
