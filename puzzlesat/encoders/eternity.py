"""The Heule 2008 style CNF for edge matching.

M. Heule, "Solving edge-matching problems with satisfiability solvers", SAT 2008 workshop
(SAT-based approaches to edge matching).

Variables:
    ``("x", t, c, r)``: tile ``t`` lies on cell ``c`` turned ``r`` quarter turns.  Created only
        where the turned tile fits the cell's frame: grey exactly on the sides facing off the
        board (so corner tiles meet corner cells, border tiles border cells, each with the one
        rotation that puts grey outside).
    ``("h", r, c, k)`` / ``("v", r, c, k)``: the edge right of / below cell (r, c) has colour
        ``k``; one-hot, over the frame colours for edges between two frame cells and over the
        inner colours for the other inside edges.

Constraints:
    cell: each cell holds at least one placement (and at most one, as an option ``amo``);
    tile: each tile is placed at least once (at most once with ``amo``);
    edge: each inside edge has exactly one colour of its domain;
    match: a placement implies the colour of each of its inside edges;
    support (option ``support``, on): an edge colour implies one of the placements on each
        side that shows that colour;
    forbidden (option ``forbidden``, off): a placement excludes the other colours of its edges,
        directly rather than through the one-hot;
    hints: a hinted cell has one placement variable, its hint, and a hinted tile no other
        (the cell's at-least-one clause becomes a unit clause);
    symmetry (option ``symmetry``, on): without hints the first corner tile sits top-left on a
        square board and in the top row on a rectangle (every solution has one rotation of the
        board that does this: :func:`~puzzlesat.domains.eternity.first_corner`).

Counting (``--count``): solve, block the placements of the board found, solve again, until
the formula is unsatisfiable; a solver must take clauses between calls (not Kissat).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from puzzlesat.core import SAT_SOLVERS, TIME_LIMIT, Limits, Option, Result, Status, Strategy
from puzzlesat.core.options import defaults
from puzzlesat.domains.eternity import (
    SYMMETRY,
    E,
    Instance,
    N,
    S,
    Solution,
    W,
    board_rotations,
    first_corner,
    placements,
    rotated,
)

if TYPE_CHECKING:
    from puzzlesat.encoders.dimacs import Encoding, Key

# cnf-heule's clause families (Heule 2008); the defaults are the fastest measured
HEULE_OPTIONS = (
    Option("amo", bool, True, "at most one tile per cell and one cell per tile (redundant)"),
    Option("support", bool, True, "an edge colour implies a tile on each side that shows it"),
    Option("forbidden", bool, False, "a placed tile forbids the colours it does not show"),
    SYMMETRY,
)
STRATEGY = Strategy(
    "cnf-heule",
    "puzzlesat.encoders.eternity:solve",
    "Heule 2008 CNF: compatible tile-to-cell vars, one-hot edge colours; any pysat solver",
    variants=SAT_SOLVERS,
    default_variant="cadical195",
    encoder="puzzlesat.encoders.eternity:encode",
    options=HEULE_OPTIONS,
    # counting adds a blocking clause per board: Kissat takes no clauses between calls
    modes=tuple(f"count:{v}" for v in SAT_SOLVERS if "kissat" not in v),
    puzzle="eternity",
    engine="sat",
)
DEFAULTS = defaults(HEULE_OPTIONS)


def side_edges(instance: Instance, cell: int) -> dict[int, tuple[str, int, int]]:
    """The inside edges around a cell, keyed by side: ``("h"|"v", row, col)`` of the edge."""
    r, c = divmod(cell, instance.cols)
    edges = {}
    if r > 0:
        edges[N] = ("v", r - 1, c)
    if c < instance.cols - 1:
        edges[E] = ("h", r, c)
    if r < instance.rows - 1:
        edges[S] = ("v", r, c)
    if c > 0:
        edges[W] = ("h", r, c - 1)
    return edges


def edge_domain(
    instance: Instance, edge: tuple[str, int, int], frame: frozenset[int], inner: frozenset[int]
) -> list[int]:
    """Colours an inside edge may take: frame colours between two frame cells, inner ones elsewhere."""
    kind, r, c = edge
    along_frame = r in (0, instance.rows - 1) if kind == "h" else c in (0, instance.cols - 1)
    return sorted(frame if along_frame else inner)


def encode(instance: Instance, options: dict[str, Any] | None = None) -> Encoding:
    """Build the CNF (see the module docstring); ``options`` override :data:`DEFAULTS`."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import CNF, IDPool

    from puzzlesat.encoders.dimacs import Encoding, cnf_stats

    opts = {**DEFAULTS, **(options or {})}
    pool = IDPool()
    cnf = CNF()
    frame_colours, inner_colours = instance.colour_domains()
    by_cell = placements(instance)
    fixed = first_corner(instance) if opts["symmetry"] else None
    if fixed is not None:
        corner, cells = fixed
        if cells == (0,):  # a square: top-left
            by_cell[0] = [(t, r) for t, r in by_cell[0] if t == corner]
        else:  # a rectangle: not in the bottom row
            for cell in (instance.cells - instance.cols, instance.cells - 1):
                by_cell[cell] = [(t, r) for t, r in by_cell[cell] if t != corner]

    def colour(edge: tuple[str, int, int], k: int) -> int:
        return pool.id((edge[0], edge[1], edge[2], k))

    # cell: exactly one placement
    by_tile: dict[int, list[int]] = defaultdict(list)
    for cell, options_here in by_cell.items():
        lits = [pool.id(("x", t, cell, r)) for t, r in options_here]
        for (t, _), lit in zip(options_here, lits, strict=True):
            by_tile[t].append(lit)
        cnf.append(lits)
        if opts["amo"]:
            cnf.extend(CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses)

    # tile: placed at least once (exactly once with amo)
    for t in range(instance.cells):
        lits = by_tile.get(t, [])
        cnf.append(lits)
        if opts["amo"] and len(lits) > 1:
            cnf.extend(CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses)

    # edge: exactly one colour of its domain
    edges = {e for cell in range(instance.cells) for e in side_edges(instance, cell).values()}
    domains = {e: edge_domain(instance, e, frame_colours, inner_colours) for e in sorted(edges)}
    for edge, domain in domains.items():
        lits = [colour(edge, k) for k in domain]
        cnf.append(lits)
        cnf.extend(CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.pairwise).clauses)

    # match: a placement fixes its edges' colours (and support: a colour needs a placement)
    shows: dict[tuple[tuple[str, int, int], int, int], list[int]] = defaultdict(list)
    for cell, options_here in by_cell.items():
        around = side_edges(instance, cell)
        for t, rot in options_here:
            x = pool.id(("x", t, cell, rot))
            sides = rotated(instance.tiles[t], rot)
            for side, edge in around.items():
                k = sides[side]
                if k not in domains[edge]:
                    cnf.append([-x])
                    break
                cnf.append([-x, colour(edge, k)])
                shows[edge, cell, k].append(x)
                if opts["forbidden"]:
                    cnf.extend([-x, -colour(edge, other)] for other in domains[edge] if other != k)
    if opts["support"]:
        for cell in range(instance.cells):
            for edge in side_edges(instance, cell).values():
                for k in domains[edge]:
                    cnf.append([-colour(edge, k), *shows.get((edge, cell, k), [])])

    def decode(true_keys: set[Key]) -> Solution:
        board = {key[2]: (int(key[1]), int(key[3])) for key in true_keys if key[0] == "x"}
        return Solution(tuple(board.get(cell, (-1, 0)) for cell in range(instance.cells)))

    stats = cnf_stats(cnf)
    stats["placement_vars"] = sum(len(v) for v in by_cell.values())
    return Encoding(cnf, pool, decode, stats)


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Encode, solve with the pysat solver named by ``variant`` and decode (or count)."""
    from puzzlesat.encoders.sat import refute, sat_result, solve_once

    start = time.perf_counter()
    encoding = encode(instance, limits.options)
    stats: dict[str, Any] = dict(encoding.stats)
    if limits.options.get("count"):
        return count(instance, encoding, variant or "cadical195", limits, start, stats)
    name = variant or "cadical195"
    outcome, model, solver_counts = solve_once(name, encoding.cnf.clauses, limits.remaining(start))
    stats.update(solver_counts)
    if outcome is False:
        refute("no solution", "no board", encoding.cnf.clauses, name, limits.remaining(start))
    decode = lambda: encoding.decode(encoding.true_keys(model))  # noqa: E731 - called on SAT only
    return sat_result(outcome, decode, wall_time=time.perf_counter() - start, stats=stats)


def count(
    instance: Instance, encoding: Encoding, solver_name: str, limits: Limits, start: float, stats: dict[str, Any]
) -> Result:
    """Count the solutions by blocking clauses: one solver call per board, and one to prove the end.

    A board is its placement variables (the edge colours follow from them), so each
    blocking clause forbids exactly the board found.  Without the ``symmetry`` option every
    rotation of a board is found, and the count divides by :func:`board_rotations`, so
    that it means the same with and without it; with hints every board that keeps them counts.
    """
    from puzzlesat.encoders.sat import open_solver, solve_limited, solver_stats

    broken = limits.options.get("symmetry", True) or first_corner(instance) is None  # hints fix the turn
    per_class = 1 if broken else board_rotations(instance)
    placed = {var for var, key in encoding.named_vars().items() if key[0] == "x"}
    first: Solution | None = None
    found = 0
    with open_solver(solver_name, encoding.cnf.clauses) as solver:
        while True:
            outcome = solve_limited(solver, limits.remaining(start))
            if not outcome:
                break
            model = solver.get_model()
            if first is None:
                first = encoding.decode(encoding.true_keys(model))
            found += 1
            solver.add_clause([-lit for lit in model if lit in placed])
        stats.update(solver_stats(solver))
    stats["solutions"] = found
    elapsed = time.perf_counter() - start
    if outcome is None:
        message = f"{TIME_LIMIT}; {found} solutions found before it"
        return Result(Status.UNKNOWN, wall_time=elapsed, stats=stats, message=message)
    if first is None:
        return Result(Status.INFEASIBLE, wall_time=elapsed, stats=stats, count=0)
    return Result(Status.SOLVED, first, wall_time=elapsed, stats=stats, count=found // per_class)
