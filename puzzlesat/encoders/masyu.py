"""CNF formulations of Masyu: the local rules as clauses, lazy loop cuts, and a complete encoding.

The local rules (every cell has degree 0 or 2, the circle rules) are written once, as
clauses over named literals, in :mod:`puzzlesat.domains.masyu.rules`; both the pysat
encodings here and the CP-SAT models in :mod:`puzzlesat.models.masyu` read them.

``cnf-lazy`` gives the local rules to an incremental solver; each model that splits into
several loops gets a cut clause per loop (the answer must cross the boundary of a piece that
holds some but not all used cells) and the solver runs again, keeping what it learnt.  This
is the approach of cspuz's "active vertices connected" propagator done lazily, as in the
single-loop benchmarks of Masyu solvers.

``cnf-rank`` is complete, so it exports as one DIMACS file: each loop edge is oriented, every
used cell has one way in and one way out, and every arc not entering the root cell adds one
to a binary rank (``rank[b] = rank[a] + 1``, the ``+1`` computed once per cell by a ripple
carry), so a loop that misses the root cannot close.  This is the successor form of the
Miller-Tucker-Zemlin ranking used in SAT encodings of Hamiltonian cycles (e.g. Velev & Gao
2009, "Efficient SAT techniques for absolute encoding of permutation problems"); exact
successor ranks propagate along a path, where ``rank[b] > rank[a]`` comparators barely do.
"""

from __future__ import annotations

import time
from itertools import combinations
from typing import TYPE_CHECKING, Any

from puzzlesat.core import Limits, Option, Result, Status, Strategy
from puzzlesat.core.uniqueness import record_uniqueness
from puzzlesat.domains.masyu import (
    Cell,
    Instance,
    Solution,
    edge_cells,
    solution_from_cycle,
    solution_from_edges,
)
from puzzlesat.domains.masyu.rules import Grid, Key, Lit, circle_clauses, degree_clauses, rule_clauses, used

if TYPE_CHECKING:
    from puzzlesat.encoders.dimacs import Encoding

# cnf-lazy adds clauses between calls (no Kissat); cnf-rank solves once
SOLVERS = ("cadical195", "cadical153", "glucose4", "glucose3", "maplechrono", "minisat22", "cadical300")
FULL_SOLVERS = ("cadical195", "kissat404", "cadical153", "glucose4", "maplechrono", "minisat22", "cadical300")
STRATEGIES = (
    Strategy(
        "cnf-lazy",
        "puzzlesat.encoders.masyu:solve_lazy",
        "incremental SAT: degree 0/2 and circle clauses, a cut clause for each separate loop",
        variants=SOLVERS,
        default_variant="cadical195",
        modes=("unique",),
        puzzle="masyu",
        engine="sat",
    ),
    Strategy(
        "cnf-rank",
        "puzzlesat.encoders.masyu:solve_rank",
        "complete CNF: oriented loop with binary ranks (no separate loops); any pysat solver",
        variants=FULL_SOLVERS,
        default_variant="cadical195",
        encoder="puzzlesat.encoders.masyu:encode",
        options=(
            Option("symmetry", bool, True, "fix the loop's direction at the first circle"),
            Option("cuts", bool, False, "add the cut clauses a cnf-lazy run needed (a head start)"),
        ),
        modes=("unique",),
        puzzle="masyu",
        engine="sat",
    ),
)


class LazySolver:
    """An incremental pysat solver over the local rules, adding loop cuts as needed.

    Args:
        instance: the puzzle (its circles become unit clauses unless ``selectors``).
        solver_name: a pysat solver name that supports incremental solving.
        selectors: when True, circles are not forced; :meth:`add_selector` adds a
            circle's rule guarded by a selector literal (used by the generator).
    """

    def __init__(self, instance: Instance, solver_name: str = "cadical195", selectors: bool = False) -> None:
        from pysat.formula import IDPool
        from pysat.solvers import Solver

        self.instance = instance
        self.grid = Grid(instance.rows, instance.cols)
        self.pool = IDPool()
        self.solver = Solver(name=solver_name)
        self.name = solver_name
        self.circles = frozenset() if selectors else frozenset(instance.circles)
        self.clauses = 0
        self.cuts = 0
        self.cut_clauses: list[list[int]] = []
        self.iterations = 0
        self.edges = self.grid.edges()
        self.edge_ids = [self.pool.id(e) for e in self.edges]
        ids = self.pool.obj2id
        for key in [used((r, c)) for r in range(instance.rows) for c in range(instance.cols)]:
            self.pool.id(key)
        rules = degree_clauses(self.grid) if selectors else rule_clauses(instance)
        # one call into the solver for the whole base formula; every key is named already
        base = [[ids[k] if p else -ids[k] for k, p in cl] for cl in rules]
        self.solver.append_formula(base)
        self.clauses += len(base)
        self.given: list[list[int]] = list(base)  # every clause the solver holds, for a certificate

    def lit(self, key: Key, positive: bool) -> int:
        """The integer literal of a named one."""
        v = self.pool.id(key)
        return v if positive else -v

    def add(self, clause: list[Lit], guard: int | None = None) -> None:
        """Add a clause (optionally ``guard -> clause``)."""
        ints = [self.lit(k, p) for k, p in clause]
        if guard is not None:
            ints.append(-guard)
        self.solver.add_clause(ints)
        self.given.append(ints)
        self.clauses += 1

    def add_selector(self, cell: Cell, colour: int) -> int:
        """A selector literal that, when assumed, puts a ``colour`` circle on ``cell``."""
        s = self.pool.id(("s", cell[0], cell[1], colour))
        self.add([(used(cell), True)], guard=s)
        for cl in circle_clauses(self.grid, cell, colour):
            self.add(cl, guard=s)
        return s

    def forbid(self, solution: Solution) -> None:
        """Rule out this loop (its edge set) from now on."""
        self.add([(e, False) for e in solution.edge_keys()])

    def _prepare_ints(self) -> None:
        """Integer views for the inner loop: edge ends as cell numbers, cell -> (var, neighbour)."""
        cols = self.instance.cols
        self.end_a = []
        self.end_b = []
        self.around: list[list[tuple[int, int]]] = [[] for _ in range(self.instance.rows * cols)]
        for key, var in zip(self.edges, self.edge_ids, strict=True):
            (r1, c1), (r2, c2) = edge_cells(key)
            a, b = r1 * cols + c1, r2 * cols + c2
            self.end_a.append(a)
            self.end_b.append(b)
            self.around[a].append((var, b))
            self.around[b].append((var, a))
        self.used_ids = [self.pool.id(used(divmod(i, cols))) for i in range(self.instance.rows * cols)]
        self.circle_ids = {r * cols + c for r, c in self.circles}
        self.circle_list = sorted(self.circle_ids)

    def _components(self, model: list[int]) -> list[list[int]]:
        """The cycles of a model, as lists of cell numbers in walking order."""
        adj: dict[int, list[int]] = {}
        for i, var in enumerate(self.edge_ids):
            if model[var - 1] > 0:
                a, b = self.end_a[i], self.end_b[i]
                adj.setdefault(a, []).append(b)
                adj.setdefault(b, []).append(a)
        seen: set[int] = set()
        comps = []
        for first in adj:
            if first in seen:
                continue
            comp = [first]
            seen.add(first)
            prev, cur = first, adj[first][0]
            while cur not in seen:
                seen.add(cur)
                comp.append(cur)
                nxt = adj[cur]
                prev, cur = cur, (nxt[1] if nxt[0] == prev and len(nxt) > 1 else nxt[0])
            comps.append(comp)
        return comps

    def _cut(self, comp: list[int], outside: list[int]) -> list[int]:
        """Integer form of :func:`cut_clause`: cross the boundary of ``comp``'s cells."""
        inside = set(comp)
        a = next((c for c in comp if c in self.circle_ids), comp[0])
        b = next((c for c in self.circle_list if c not in inside), outside[0])
        lits = []
        if a not in self.circle_ids:
            lits.append(-self.used_ids[a])
        if b not in self.circle_ids:
            lits.append(-self.used_ids[b])
        for cell in comp:
            for var, nb in self.around[cell]:
                if nb not in inside:
                    lits.append(var)
        return lits

    def next_loop(
        self, assumptions: list[int] | None = None, deadline: float | None = None
    ) -> tuple[bool | None, Solution | None]:
        """Solve until the model is one loop: (True, loop), (False, None) or (None, None) on timeout."""
        from puzzlesat.encoders.sat import solve_limited

        if not hasattr(self, "end_a"):
            self._prepare_ints()
        while True:
            self.iterations += 1
            if deadline is not None and deadline - time.perf_counter() <= 0:
                return None, None
            sat = solve_limited(
                self.solver, None if deadline is None else deadline - time.perf_counter(), assumptions or []
            )
            if sat is None:
                return None, None
            if not sat:
                return False, None
            comps = self._components(self.solver.get_model())
            if not comps:
                return True, None  # nothing forced any cell into use
            if len(comps) == 1:
                cols = self.instance.cols
                return True, solution_from_cycle([divmod(cell, cols) for cell in comps[0]])
            for i, comp in enumerate(comps):
                outside = comps[i - 1] if i else comps[1]
                cut = self._cut(comp, outside)
                self.solver.add_clause(cut)
                self.cut_clauses.append(cut)
                self.given.append(cut)
                self.clauses += 1
                self.cuts += 1

    def refute(self, kind: str, claim: str, deadline: float | None) -> None:
        """Certify the solver's last UNSAT (under a certify session): the local rules, the cuts
        and the forbidden loops, re-solved with a proof.  The cuts rest on the single-loop rule.
        """
        from puzzlesat.encoders.sat import refute

        timeout = None if deadline is None else deadline - time.perf_counter()
        rests_on = f"{self.cuts} loop cuts (each forbids a sub-cycle: implied by the single-loop rule)"
        refute(kind, claim, self.given, self.name, timeout, rests_on=rests_on if self.cuts else "")

    def stats(self) -> dict[str, Any]:
        """Variables, clauses, cuts, iterations and the solver's own counters."""
        acc = self.solver.accum_stats() or {}
        return {
            "variables": self.pool.top,
            "clauses": self.clauses,
            "cuts": self.cuts,
            "iterations": self.iterations,
            "conflicts": acc.get("conflicts", 0),
            "decisions": acc.get("decisions", 0),
        }

    def close(self) -> None:
        """Free the native solver."""
        self.solver.delete()


def solve_lazy(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Strategy ``cnf-lazy:<solver>``: local rules plus lazily added loop cuts."""
    from puzzlesat.encoders.sat import sat_result

    start = time.perf_counter()
    deadline = limits.deadline(start)
    lazy = LazySolver(instance, variant or "cadical195")
    try:
        sat, loop = lazy.next_loop(deadline=deadline)
        stats = lazy.stats()
        if not sat or loop is None:  # stopped, or no single loop exists
            if sat is not None:
                lazy.refute("no solution", "no loop", deadline)
            return sat_result(
                None if sat is None else False, lambda: None, wall_time=time.perf_counter() - start, stats=stats
            )
        if not limits.options.get("unique"):
            return Result(Status.SOLVED, loop, wall_time=time.perf_counter() - start, stats=stats)
        lazy.forbid(loop)
        sat2, other = lazy.next_loop(deadline=deadline)
        if sat2 is False:
            lazy.refute("unique", "no second loop", deadline)
        result = Result(Status.SOLVED, loop, wall_time=time.perf_counter() - start, stats=lazy.stats())
        return record_uniqueness(result, sat2, other, noun="loop")
    finally:
        lazy.close()


# ---------------------------------------------------------------- the complete encoding


def encode(instance: Instance, options: dict[str, Any] | None = None) -> Encoding:
    """The complete ranking encoding (strategy ``cnf-rank``), exportable as one DIMACS file.

    Named variables: edges ``("h"|"v", r, c)``, used cells ``("u", r, c)`` and arcs
    ``("x", r1, c1, r2, c2)``; rank bits and carries are unnamed in the
    sidecar.  Options: ``symmetry=0`` drops the clause that fixes the loop's direction;
    ``cuts=1`` adds the cut clauses a ``cnf-lazy`` run (with its uniqueness check) needed,
    which every single loop satisfies, so the models stay the same.

    Returns:
        The Encoding; ``decode`` turns the true edge keys into the loop.
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import CNF, IDPool

    from puzzlesat.encoders.dimacs import Encoding, cnf_stats

    options = options or {}
    pool = IDPool()
    cnf = CNF()
    clauses: list[list[int]] = []  # CNF.append recomputes the variable count per clause: too slow
    grid = Grid(instance.rows, instance.cols)

    def lit(key: Key, positive: bool = True) -> int:
        v = pool.id(key)
        return v if positive else -v

    for edge in grid.edges():
        pool.id(edge)
    for cl in rule_clauses(instance):
        clauses.append([lit(k, p) for k, p in cl])
    cells = [(r, c) for r in range(instance.rows) for c in range(instance.cols)]
    bits = max(1, len(cells).bit_length())  # 2**bits > cells: ranks never wrap

    def arc(a: Cell, b: Cell) -> int:
        return lit(("x", a[0], a[1], b[0], b[1]))

    # each loop edge is walked in exactly one direction
    for edge in grid.edges():
        a, b = edge_cells(edge)
        clauses.append([-lit(edge), arc(a, b), arc(b, a)])
        clauses.append([-arc(a, b), lit(edge)])
        clauses.append([-arc(b, a), lit(edge)])
        clauses.append([-arc(a, b), -arc(b, a)])
    # a used cell has at most one way out and at most one way in (degree 2 makes it exactly)
    neighbours: dict[Cell, list[Cell]] = {}
    for edge in grid.edges():
        a, b = edge_cells(edge)
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    for cell in cells:
        for x, y in combinations(neighbours.get(cell, []), 2):
            clauses.append([-arc(cell, x), -arc(cell, y)])
            clauses.append([-arc(x, cell), -arc(y, cell)])
    # the root: the first circle, or any one used cell when there are none
    circles = instance.circles
    if circles:
        roots = {circles[0]: lit(("root", *circles[0]))}
        clauses.append([roots[circles[0]]])
    else:
        roots = {cell: lit(("root", *cell)) for cell in cells}
        for cl in CardEnc.equals([roots[c] for c in cells], 1, vpool=pool, encoding=EncType.seqcounter).clauses:
            clauses.append(cl)
        for cell in cells:
            clauses.append([-roots[cell], lit(used(cell))])

    rank_ids = {cell: [pool.id(f"rank{cell}:{k}") for k in range(bits)] for cell in cells}
    next_ids = {cell: [pool.id(f"next{cell}:{k}") for k in range(bits)] for cell in cells}

    def rank_bit(cell: Cell, k: int) -> int:
        return rank_ids[cell][k]

    def next_bit(cell: Cell, k: int) -> int:
        return next_ids[cell][k]

    # next[a] = rank[a] + 1 in binary (ripple carry); the all-ones rank has no successor
    for a in cells:
        carry = 0  # carry into bit k; 0 stands for the constant 1 before bit 0
        for k in range(bits):
            ra, na = rank_bit(a, k), next_bit(a, k)
            if k == 0:
                clauses.extend([[-ra, -na], [ra, na]])  # na = not ra
                carry = ra
            else:
                clauses.extend([[-na, ra, carry], [-na, -ra, -carry], [na, -ra, carry], [na, ra, -carry]])
                c2 = pool.id(f"carry{a}:{k + 1}")
                clauses.extend([[-c2, ra], [-c2, carry], [c2, -ra, -carry]])
                carry = c2
        clauses.append([-carry])
    # every arc that does not enter the root adds one to the rank: rank[b] = rank[a] + 1,
    # so a loop that misses the root would have to climb forever
    for a in cells:
        for b in neighbours.get(a, []):
            walk = arc(a, b)
            guard = [roots[b]] if b in roots else []
            for k in range(bits):
                clauses.append([-walk, -next_bit(a, k), rank_bit(b, k), *guard])
                clauses.append([-walk, next_bit(a, k), -rank_bit(b, k), *guard])
    # the root has rank 0
    for root, rlit in roots.items():
        for k in range(bits):
            clauses.append([-rlit, -rank_bit(root, k)])
    # optional: the cut clauses a lazy run needed (implied by the single loop, so the
    # formula keeps exactly its models) give external solvers a head start
    if options.get("cuts") and circles:
        lazy = LazySolver(instance)
        try:
            sat, loop = lazy.next_loop()
            if sat and loop is not None:
                lazy.forbid(loop)
                lazy.next_loop()
            for cut in lazy.cut_clauses:
                clauses.append([lit(lazy.pool.obj(abs(v)), v > 0) for v in cut])
        finally:
            lazy.close()
    # symmetry: the loop leaves the root towards its smaller neighbour
    if circles and options.get("symmetry", 1):
        root = circles[0]
        for x, y in combinations(sorted(neighbours.get(root, [])), 2):
            clauses.append([-arc(root, y), -arc(x, root)])

    cnf.clauses = clauses
    cnf.nv = pool.top

    def decode(true_keys: set[Key]) -> Solution:
        edges = [k for k in true_keys if len(k) == 3 and k[0] in ("h", "v")]
        return solution_from_edges(edges)  # type: ignore[arg-type]

    return Encoding(cnf, pool, decode, {**cnf_stats(cnf), "rank_bits": bits})


def solve_rank(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Strategy ``cnf-rank:<solver>``: the complete ranking encoding in one solver call."""
    from puzzlesat.encoders.sat import refute, sat_result, solve_once

    start = time.perf_counter()
    enc = encode(instance, limits.options)
    name = variant or "cadical195"
    deadline = limits.deadline(start)
    edge_ids = {enc.pool.id(e): e for e in Grid(instance.rows, instance.cols).edges()}
    conflicts = 0

    def run(extra: list[list[int]], kind: str, claim: str) -> tuple[bool | None, Solution | None]:
        nonlocal conflicts
        timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
        formula = enc.cnf.clauses + extra
        sat, model, counts = solve_once(name, formula, timeout)
        conflicts += counts.get("conflicts", 0)
        if sat is False:
            refute(kind, claim, formula, name, None if deadline is None else deadline - time.perf_counter())
        if not sat:
            return sat, None
        return True, solution_from_edges([e for v, e in edge_ids.items() if model[v - 1] > 0])

    sat, loop = run([], "no solution", "no loop")
    stats = {**enc.stats}
    if loop is None:  # stopped (sat is None) or refuted
        stats = stats if sat is None else {**stats, "conflicts": conflicts}
        return sat_result(sat, lambda: None, wall_time=time.perf_counter() - start, stats=stats)
    if not limits.options.get("unique"):
        stats["conflicts"] = conflicts
        return Result(Status.SOLVED, loop, wall_time=time.perf_counter() - start, stats=stats)
    sat2, other = run([[-enc.pool.id(e) for e in loop.edge_keys()]], "unique", "no second loop")
    result = Result(Status.SOLVED, loop, wall_time=time.perf_counter() - start, stats=stats)
    record_uniqueness(result, sat2, other, noun="loop")
    stats["conflicts"] = conflicts
    return result


__all__ = ["LazySolver", "encode", "solve_lazy", "solve_rank"]
