"""Weighted CNF (MaxSAT) for the best score of edge matching, and ``maxsat-rc2`` solving it.

Hard clauses: a legal board.
    ``("x", t, c, r)``: tile ``t`` on cell ``c`` turned ``r`` (only where grey faces the rim,
        hints and the symmetry rule as in :func:`~puzzlesat.domains.eternity.placements`
        and ``cnf-heule``); exactly one per cell and one per tile (sequential counters).
    ``("m", a, b, k)``: cells ``a`` and ``b`` (adjacent, ``a`` west or north of ``b``) both
        show colour ``k`` on the edge between them; it implies, for each of the two cells,
        one of its placements that shows ``k`` there.
Soft clauses, weight 1 each: for every inside edge, one of its ``("m", a, b, k)``: the edge
    matches (an edge no colour can match gets ``("never",)``, false by a hard clause: an
    empty soft clause is legal WCNF but RC2 cannot take it).  The cost of a model is the
    number of unmatched edges, so an optimum is a best board, and cost 0 a solution.

``maxsat-rc2``: pysat's RC2 (core-guided MaxSAT) on that formula, for small boards.  A
finished run is a proof: with ``--score`` OPTIMAL with the best board; without it the
decision question, SOLVED for cost 0 and INFEASIBLE for a positive optimum.  At the time limit
it has no board (UNKNOWN).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from puzzlesat.core import TIME_LIMIT, DeadlineExceeded, Limits, Result, Status, Strategy, hard_deadline
from puzzlesat.domains.eternity import Instance, Solution, first_corner, placements, rotated

if TYPE_CHECKING:
    from puzzlesat.encoders.dimacs import Encoding, Key

STRATEGY = Strategy(
    "maxsat-rc2",
    "puzzlesat.encoders.eternity_maxsat:solve",
    "weighted CNF, one soft clause per edge (matched); pysat's RC2 proves the best score; small boards",
    encoder="puzzlesat.encoders.eternity_maxsat:encode",
    modes=("score",),
    puzzle="eternity",
    engine="maxsat",
)


def encode(instance: Instance, options: dict[str, Any] | None = None) -> Encoding:
    """The weighted CNF (module docstring); ``encoding.cnf`` is a pysat ``WCNF``."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import WCNF, IDPool

    from puzzlesat.encoders.dimacs import Encoding

    pool = IDPool()
    wcnf = WCNF()
    by_cell = placements(instance)
    fixed = first_corner(instance)
    if fixed is not None:  # turning a board keeps its score: keep one turn of each
        corner, cells = fixed
        if cells == (0,):
            by_cell[0] = [(t, r) for t, r in by_cell[0] if t == corner]
        else:
            for cell in (instance.cells - instance.cols, instance.cells - 1):
                by_cell[cell] = [(t, r) for t, r in by_cell[cell] if t != corner]

    def exactly_one(lits: list[int]) -> None:
        wcnf.append(lits)
        if len(lits) > 1:
            for clause in CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses:
                wcnf.append(clause)

    by_tile: dict[int, list[int]] = defaultdict(list)
    shows: dict[tuple[int, int, int], list[int]] = defaultdict(list)  # (cell, side, colour) -> placements
    for cell, here in by_cell.items():
        lits = [pool.id(("x", t, cell, r)) for t, r in here]
        exactly_one(lits)
        for (t, r), lit in zip(here, lits, strict=True):
            by_tile[t].append(lit)
            for side, colour in enumerate(rotated(instance.tiles[t], r)):
                shows[cell, side, colour].append(lit)
    for t in range(instance.cells):
        exactly_one(by_tile.get(t, []))

    cols = instance.cols
    pairs = [(c, c + 1, 1, 3) for c in range(instance.cells) if c % cols + 1 < cols]
    pairs += [(c, c + cols, 2, 0) for c in range(instance.cells - cols)]
    for a, b, side_a, side_b in pairs:
        both = []
        for k in range(1, instance.colours):
            lits_a, lits_b = shows.get((a, side_a, k)), shows.get((b, side_b, k))
            if not lits_a or not lits_b:
                continue
            m = pool.id(("m", a, b, k))
            wcnf.append([-m, *lits_a])
            wcnf.append([-m, *lits_b])
            both.append(m)
        if not both:  # no colour can match here: a soft literal the hard clauses keep false
            never = pool.id(("never",))
            wcnf.append([-never])
            both.append(never)
        wcnf.append(both, weight=1)

    def decode(true_keys: set[Key]) -> Solution:
        board = {key[2]: (int(key[1]), int(key[3])) for key in true_keys if key[0] == "x"}
        return Solution(tuple(board.get(cell, (-1, 0)) for cell in range(instance.cells)))

    stats = {"variables": int(wcnf.nv), "hard": len(wcnf.hard), "soft": len(wcnf.soft)}
    return Encoding(wcnf, pool, decode, stats)


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """RC2 on the weighted CNF, within the time limit (module docstring)."""
    from pysat.examples.rc2 import RC2

    start = time.perf_counter()
    encoding = encode(instance, limits.options)
    stats: dict[str, Any] = dict(encoding.stats)
    try:
        with hard_deadline(limits.remaining(start), "maxsat-rc2 was solving"), RC2(encoding.cnf) as rc2:
            model = rc2.compute()
            cost = int(rc2.cost)
    except DeadlineExceeded:
        return Result(Status.UNKNOWN, wall_time=time.perf_counter() - start, stats=stats, message=TIME_LIMIT)
    elapsed = time.perf_counter() - start
    if model is None:  # the hard clauses alone have no model: a bug, never an answer
        return Result(Status.ERROR, wall_time=elapsed, stats=stats, message="no legal board satisfies the hard clauses")
    stats["cost"] = cost
    board = encoding.decode(encoding.true_keys(model))
    if limits.options.get("score"):
        return Result(Status.OPTIMAL, board, objective=cost, wall_time=elapsed, stats=stats)
    if cost == 0:
        return Result(Status.SOLVED, board, wall_time=elapsed, stats=stats)
    return Result(Status.INFEASIBLE, wall_time=elapsed, stats=stats, message=f"the best board misses {cost} edges")
