"""``cnf-plan``: peg solitaire as SAT planning with a fixed horizon.

Every jump removes one peg, so a solution has exactly ``T = start pegs - goal pegs`` jumps and
the horizon is known: no search over plan lengths, and UNSAT is a proof of impossibility.

Variables (keys of the IDPool):

- ``("peg", t, r, c)``: cell (r, c) holds a peg after step t, t = 0..steps;
- ``("jump", t, r1, c1, r2, c2)``: step t (0-based) plays the jump from (r1, c1) to (r2, c2).

Clauses, one group per rule (the first four always, the others by option):

- start and goal: units on the pegs of step 0 and of the last step;
- precondition and effect: a jump needs pegs on from and over and a hole on to, and
  leaves the opposite;
- explanatory frame axioms: a cell that loses its peg was the from or over cell of a jump
  of that step, a cell that gains a peg was a landing cell;
- the steps, in one of two forms:

  - parallel (``parallel``, on, the default): each step a set of jumps on disjoint cells
    (conflict exclusion: at most one jump of a step touches a cell, a sequential counter),
    in Foata normal form: every jump of step t+1 shares a cell with one of step t, so a
    step with no jump ends the plan.  The jumps of a step commute, so they can be played
    in any order.  ``steps`` = k fixes the number of steps; without it :func:`_horizons`
    searches k upward from the planning graph's first possible one.  UNSAT at k < T
    only says that more steps are needed; at k = T it proves impossibility;
  - sequential (``parallel=0``): T steps of exactly one jump (at least one, and at most
    one through a sequential counter), so UNSAT is a proof;

- planning-graph pruning (``reach``, on): step-indexed reachability from the start (and,
  in the sequential form, back from the goal) removes the jump variables that cannot occur
  at a step;
- ordering of independent jumps (sequential form; ``ordering``): 1 (the default), two
  consecutive jumps on six distinct cells commute, so only the order with the lower jump
  index first is kept (Kautz & Selman's linear plans); 2, the Anisimov-Knuth normal form:
  no jump may commute back past a larger one over any number of steps (auxiliary
  ``("back", t, a)`` variables), one plan per class of plans equal up to such swaps;
- position-class parity (``parity``): the parity of the peg count of each (r+c) mod 3 and
  (r-c) mod 3 class flips with every jump, so after t jumps it is the start's flipped t
  times (in the parallel form, where t is not known, the pairwise sums keep their parity):
  one XOR a class and step, a Tseitin chain.  1 (the default) states it at the last step
  only, where it meets the goal's units: the invariant behind the parity proof, which
  refutes the boards that proof refutes by unit propagation; 2 at every step (measured
  slower on the solvable boards); 0 not at all;
- symmetry (``symmetry``, on): for each symmetry g of the square that maps the board, the
  start and the goal onto themselves, the first step's smallest jump index is at most that
  of its image under g (in the sequential form: the first jump is the smallest of its
  orbit);
- peg count (sequential form; ``count``, off): exactly ``start pegs - t`` pegs after t
  jumps (a totalizer);
- pagoda bounds (``pagoda``, off): for each goal peg on g, the LP pagoda p with p(g) = 1 of
  least total weight, and for each start hole h the same in the game played backwards
  (holes weigh at least the start's holes): every position of the plan keeps weight at
  least the goal's, a weighted at-least in a sequential counter;
- reversed plan (``reverse``, off): encode the game played backwards (a jump backwards on
  the complemented board is the same jump), and read the plan back to front.  For the
  complement games the reversed game is the game itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from puzzlesat.core import SAT_SOLVERS, Limits, Option, Result, Status, Strategy
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

if TYPE_CHECKING:
    from puzzlesat.encoders.dimacs import Encoding, Key

# cnf-plan's rule groups (the module docstring says what each one adds)
CNF_PLAN_OPTIONS = (
    Option(
        "ordering",
        int,
        1,
        "independent jumps: 0 any order, 1 consecutive ones by index, 2 the lexicographic normal form",
        low=0,
        high=2,
    ),
    REACH,
    Option(
        "parity",
        int,
        1,
        "position-class parities as clauses: 0 none, 1 at the last step (meets the goal), 2 at every step",
        low=0,
        high=2,
    ),
    Option("symmetry", bool, True, "first jump the smallest of its orbit under the symmetries of start and goal"),
    Option("count", bool, False, "exactly start pegs - t pegs after t jumps (sequential form)"),
    Option("pagoda", bool, False, "pagoda bounds at every step (LP pagodas of the goal's pegs and start's holes)"),
    Option("reverse", bool, False, "encode the game played backwards on the complemented board"),
    Option("parallel", bool, True, "parallel steps of jumps on disjoint cells (Foata normal form); 0: one jump a step"),
    Option("steps", int, None, "parallel form: this many steps (default: from the first possible up to T)", low=1),
    Option("window", int, 3, "parallel form: horizons solved at once, in turns (CaDiCaL)", low=1, high=8),
)
STRATEGY = Strategy(
    "cnf-plan",
    "puzzlesat.encoders.pegsol:solve",
    "SAT planning, horizon = pegs to remove, one jump a step, explanatory frame axioms, "
    "ordering of independent consecutive jumps; any pysat solver",
    variants=SAT_SOLVERS,
    default_variant="cadical195",
    encoder="puzzlesat.encoders.pegsol:encode",
    options=CNF_PLAN_OPTIONS,
    puzzle="pegsol",
    engine="sat",
)
# the encoder's options by name, with their declared defaults
DEFAULTS = defaults(CNF_PLAN_OPTIONS)


def reversed_instance(instance: Instance) -> Instance:
    """The game played backwards: from the complemented goal to the complemented start.

    Played backwards, a jump undoes itself on the complemented board, so the jumps of a
    solution of the reversed game, read back to front, solve the original.
    """

    def flip(m: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(-v for v in row) for row in m)

    return Instance(instance.rows, instance.cols, flip(instance.target), flip(instance.start))


def _sharing(jumps: list[Jump]) -> list[set[int]]:
    """For each jump, the jumps that share a cell with it (itself included)."""
    on: dict[Cell, set[int]] = {}
    for k, jmp in enumerate(jumps):
        for x in jmp:
            on.setdefault(x, set()).add(k)
    return [on[a] | on[b] | on[c] for a, b, c in jumps]


def encode(instance: Instance, options: dict[str, Any]) -> Encoding:
    """The CNF of the fixed-horizon plan.

    Args:
        instance: the board, start and goal.
        options: the rule groups of the module docstring (``parallel``, ``reach``, ``parity``,
            ``symmetry``, ``count``, ``pagoda``, ``reverse``: 1/0; ``ordering``: 0/1/2;
            ``steps``: the parallel form's number of steps, 0 or None for T); missing or
            None keys take :data:`DEFAULTS`.

    Returns:
        The Encoding; ``decode`` turns the true ``jump`` keys into a Solution.
    """
    from pysat.formula import CNF, IDPool

    from puzzlesat.encoders.dimacs import Encoding, cnf_stats

    opts = DEFAULTS | {key: value for key, value in options.items() if key in DEFAULTS and value is not None}
    reverse = bool(opts["reverse"])
    game = reversed_instance(instance) if reverse else instance
    parallel = bool(opts["parallel"])
    horizon = (int(opts["steps"] or 0) or game.moves_needed) if parallel else game.moves_needed
    pool = IDPool()
    cnf = CNF()
    jumps = game.jumps()
    cells = game.cells
    if parallel and not opts["reach"]:
        allowed = [list(range(len(jumps)))] * horizon
    elif parallel:  # forward from the start, and back from the goal (the game played backwards)
        ahead, back = _parallel_jumps(game, horizon), _parallel_jumps(reversed_instance(game), horizon)
        allowed = [[k for k in ks if k in set(back[horizon - 1 - t])] for t, ks in enumerate(ahead)]
    else:
        allowed = step_jumps(game, bool(opts["reach"]))

    def peg(t: int, cell: Cell) -> int:
        return int(pool.id(("peg", t, *cell)))

    def jump(t: int, k: int) -> int:
        (r1, c1), _, (r2, c2) = jumps[k]
        return int(pool.id(("jump", t, r1, c1, r2, c2)))

    # name every primary variable first, so that their ids do not depend on the options
    for t in range(horizon + 1):
        for cell in cells:
            peg(t, cell)
    for t in range(horizon):
        for k in allowed[t]:
            jump(t, k)

    for r, c in cells:
        cnf.append([peg(0, (r, c)) if game.start[r][c] == PEG else -peg(0, (r, c))])
        cnf.append([peg(horizon, (r, c)) if game.target[r][c] == PEG else -peg(horizon, (r, c))])
    if parallel:
        _parallel_steps(cnf, pool, game, allowed, peg, jump)
    else:
        _one_jump_a_step(cnf, pool, game, allowed, peg, jump)
        if opts["ordering"] == 1:
            _ordering(cnf, jumps, allowed, jump)
        elif opts["ordering"] >= 2:
            _lex_normal_form(cnf, pool, jumps, allowed, jump)
    if opts["parity"]:
        _parity(cnf, pool, game, horizon, peg, parallel, opts["parity"] >= 2)
    if opts["symmetry"]:  # both forms
        _symmetry(cnf, game, allowed[0] if allowed else [], jump)
    if opts["count"] and not parallel:
        _count(cnf, pool, game, horizon, peg)
    if opts["pagoda"]:
        _pagodas(cnf, pool, game, horizon, peg)

    def decode(true_keys: set[Key]) -> Solution:
        # by step; the jumps of a parallel step are independent, so any order among them will do
        steps = sorted((int(k[1]), *map(int, k[2:])) for k in true_keys if k[0] == "jump")
        moves = [Move(r1, c1, r2, c2) for _, r1, c1, r2, c2 in steps]
        return Solution(tuple(reversed(moves) if reverse else moves))

    stats = cnf_stats(cnf)
    stats["horizon"] = horizon
    if parallel:
        stats["first_step"] = _first_step(game, allowed)
    stats["jump_vars"] = sum(len(a) for a in allowed)
    return Encoding(cnf, pool, decode, stats)


PegFn = Callable[[int, Cell], int]
JumpFn = Callable[[int, int], int]


def _effects(cnf: Any, game: Instance, t: int, ks: list[int], peg: PegFn, jump: JumpFn) -> None:
    """Precondition, effect and explanatory frame axioms of step t with jumps ``ks``."""
    jumps = game.jumps()
    losers: dict[Cell, list[int]] = {x: [] for x in game.cells}
    gainers: dict[Cell, list[int]] = {x: [] for x in game.cells}
    for k in ks:
        a, b, to = jumps[k]
        j = jump(t, k)
        cnf.extend(
            [
                [-j, peg(t, a)],
                [-j, peg(t, b)],
                [-j, -peg(t, to)],
                [-j, -peg(t + 1, a)],
                [-j, -peg(t + 1, b)],
                [-j, peg(t + 1, to)],
            ]
        )
        losers[a].append(j)
        losers[b].append(j)
        gainers[to].append(j)
    for x in game.cells:
        cnf.append([-peg(t, x), peg(t + 1, x), *losers[x]])
        cnf.append([peg(t, x), -peg(t + 1, x), *gainers[x]])


def _one_jump_a_step(cnf: Any, pool: Any, game: Instance, allowed: list[list[int]], peg: PegFn, jump: JumpFn) -> None:
    from pysat.card import CardEnc, EncType

    for t, ks in enumerate(allowed):
        step = [jump(t, k) for k in ks]
        cnf.append(step)
        if len(step) > 1:
            cnf.extend(CardEnc.atmost(step, 1, vpool=pool, encoding=EncType.seqcounter).clauses)
        _effects(cnf, game, t, ks, peg, jump)


def _ordering(cnf: Any, jumps: list[Jump], allowed: list[list[int]], jump: JumpFn) -> None:
    """Of two consecutive independent jumps, the lower index goes first."""
    sharing = _sharing(jumps)
    for t in range(len(allowed) - 1):
        for k1 in allowed[t]:
            for k2 in allowed[t + 1]:
                if k2 < k1 and k2 not in sharing[k1]:
                    cnf.append([-jump(t, k1), -jump(t + 1, k2)])


def _lex_normal_form(cnf: Any, pool: Any, jumps: list[Jump], allowed: list[list[int]], jump: JumpFn) -> None:
    """No jump a at step t+1 may commute back past a larger jump (Anisimov-Knuth normal form).

    ``("back", t, a)``: a, played at step t+1, commutes with the jumps of steps s..t for some
    s whose jump is larger than a; forced true by the jump of step t, and then a is forbidden
    at step t+1.  This leaves one plan per class of plans equal up
    to swapping independent jumps (the lexicographically least).
    """
    sharing = _sharing(jumps)
    for t in range(len(allowed) - 1):
        for a in allowed[t + 1]:
            back = int(pool.id(("back", t, a)))
            for b in allowed[t]:
                if b not in sharing[a]:
                    if b > a:
                        cnf.append([-jump(t, b), back])
                    elif t > 0 and a in allowed[t]:
                        cnf.append([-jump(t, b), -int(pool.id(("back", t - 1, a))), back])
            cnf.append([-back, -jump(t + 1, a)])


def _parallel_jumps(game: Instance, steps: int) -> list[list[int]]:
    """Forward reachability for parallel steps: the jumps each step's planning graph allows."""
    jumps = game.jumps()
    may_peg = {x for x in game.cells if game.start[x[0]][x[1]] == PEG}
    may_hole = set(game.cells) - may_peg
    out = []
    for _ in range(steps):
        now = [k for k, (a, b, c) in enumerate(jumps) if a in may_peg and b in may_peg and c in may_hole]
        out.append(now)
        for k in now:
            a, b, c = jumps[k]
            may_peg.add(c)
            may_hole |= {a, b}
    return out


def _first_step(game: Instance, allowed: list[list[int]]) -> int:
    """The fewest parallel steps the forward planning graph allows to reach the goal."""
    jumps = game.jumps()
    may_peg = {x for x in game.cells if game.start[x[0]][x[1]] == PEG}
    may_hole = set(game.cells) - may_peg
    for t, ks in enumerate(allowed):
        if all(x in (may_peg if game.target[x[0]][x[1]] == PEG else may_hole) for x in game.cells):
            return t
        for k in ks:
            a, b, c = jumps[k]
            may_peg.add(c)
            may_hole |= {a, b}
    return len(allowed)


def _parallel_steps(cnf: Any, pool: Any, game: Instance, allowed: list[list[int]], peg: PegFn, jump: JumpFn) -> None:
    """Steps of jumps on disjoint cells, in Foata normal form."""
    from pysat.card import CardEnc, EncType

    jumps = game.jumps()
    sharing = _sharing(jumps)
    for t, ks in enumerate(allowed):
        touching: dict[Cell, list[int]] = {x: [] for x in game.cells}
        for k in ks:
            for x in jumps[k]:
                touching[x].append(jump(t, k))
        for lits in touching.values():  # conflict exclusion
            if len(lits) > 1:
                cnf.extend(CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses)
        _effects(cnf, game, t, ks, peg, jump)
        if t > 0:  # Foata: a jump that could have gone a step earlier must have
            previous = set(allowed[t - 1])
            for k in ks:
                cnf.append([-jump(t, k), *(jump(t - 1, k2) for k2 in sorted(sharing[k] & previous))])


def _xor_chain(cnf: Any, pool: Any, lits: list[int], parity: int) -> None:
    """Clauses for: the XOR of ``lits`` is ``parity`` (a Tseitin chain of 3-variable XORs)."""
    if not lits:
        if parity:
            cnf.append([])
        return
    acc = lits[0]
    for lit in lits[1:]:
        out = int(pool.id())
        cnf.extend([[-out, acc, lit], [-out, -acc, -lit], [out, -acc, lit], [out, acc, -lit]])
        acc = out
    cnf.append([acc] if parity else [-acc])


def _parity(cnf: Any, pool: Any, game: Instance, horizon: int, peg: PegFn, parallel: bool, every: bool) -> None:
    """Each position-class count's parity after t jumps: the start's, flipped t times.

    In the parallel form the number of jumps before a step is not known, so the invariant is
    the pairwise one: the counts of two classes of one classing have equal parity changes.
    ``every``: at every step; else at the last one only, where it meets the goal's units.
    """
    classes = [[x for x in game.cells if (x[0] + sign * x[1]) % 3 == i] for sign in (1, -1) for i in range(3)]
    start = [sum(game.start[r][c] == PEG for r, c in cls) % 2 for cls in classes]
    for t in range(1, horizon + 1) if every else [horizon]:
        if parallel:
            for base in (0, 3):
                for i in (1, 2):
                    lits = [peg(t, x) for x in classes[base] + classes[base + i]]
                    _xor_chain(cnf, pool, lits, (start[base] + start[base + i]) % 2)
        else:
            # at t = horizon these meet the goal's units: the parity proof itself
            for cls, parity in zip(classes, start, strict=True):
                _xor_chain(cnf, pool, [peg(t, x) for x in cls], (parity + t) % 2)


def _symmetry(cnf: Any, game: Instance, first: list[int], jump: JumpFn) -> None:
    """Break the symmetries of the square that map the board, the start and the goal onto themselves.

    A symmetry g maps a plan onto a plan, so one of them may be required to have a first
    step S whose smallest jump index is no larger than that of g(S): every b in S has some
    a in S with a <= g(b).  In the sequential form S is the first jump, which must be the
    smallest of its orbit.
    """
    from puzzlesat.domains.pegsol.catalog import symmetries

    jumps = game.jumps()
    index = {j: k for k, j in enumerate(jumps)}

    def fixes(m: Callable[[Cell], Cell], matrix: tuple[tuple[int, ...], ...]) -> bool:
        return all(matrix[r][c] == matrix[m((r, c))[0]][m((r, c))[1]] for r, c in game.cells)

    for m in symmetries(game.rows, game.cols, game.cells):
        if not (fixes(m, game.start) and fixes(m, game.target)):
            continue
        for b in first:
            a0, b0, c0 = jumps[b]
            image = index[(m(a0), m(b0), m(c0))]
            if image < b:
                cnf.append([-jump(0, b), *(jump(0, a) for a in first if a <= image)])


def _count(cnf: Any, pool: Any, game: Instance, horizon: int, peg: PegFn) -> None:
    """Exactly ``start pegs - t`` pegs after t jumps."""
    from pysat.card import CardEnc, EncType

    for t in range(1, horizon):
        lits = [peg(t, x) for x in game.cells]
        cnf.extend(CardEnc.equals(lits, game.start_pegs - t, vpool=pool, encoding=EncType.totalizer).clauses)


def _pagodas(cnf: Any, pool: Any, game: Instance, horizon: int, peg: PegFn) -> None:
    """Every position keeps the goal's pagoda weight; its holes keep the start's (backwards)."""
    backwards = reversed_instance(game)
    goal_pegs = [x for x in game.cells if game.target[x[0]][x[1]] == PEG]
    start_holes = [x for x in game.cells if game.start[x[0]][x[1]] != PEG]
    for g in goal_pegs:
        weights = _least_pagoda(game, g)
        if not weights:
            continue
        bound = sum(weights.get(x, 0) for x in goal_pegs)
        for t in range(1, horizon):
            _at_least(cnf, pool, [(w, peg(t, x)) for x, w in weights.items()], bound)
    for h in start_holes:  # the same in the game played backwards, where the holes are pegs
        weights = _least_pagoda(backwards, h)
        if not weights:
            continue
        bound = sum(weights.get(x, 0) for x in start_holes)
        for t in range(1, horizon):
            _at_least(cnf, pool, [(w, -peg(t, x)) for x, w in weights.items()], bound)


def _least_pagoda(game: Instance, goal: Cell) -> dict[Cell, int]:
    """An integer pagoda p (p(to) <= p(from) + p(over)) with p(goal) > 0 and least total weight.

    Found by LP (GLOP) with p(goal) = 1, rounded to small fractions, scaled to integers and
    checked exactly; empty (no constraint) when no rounding passes the check.
    """
    from fractions import Fraction
    from math import lcm

    from ortools.linear_solver import pywraplp

    lp = pywraplp.Solver.CreateSolver("GLOP")
    var = {x: lp.NumVar(0.0, 4.0, f"p{x}") for x in game.cells}
    for a, b, c in game.jumps():
        lp.Add(var[c] - var[a] - var[b] <= 0)
    lp.Add(var[goal] == 1)
    lp.Minimize(sum(var.values()))
    if lp.Solve() != pywraplp.Solver.OPTIMAL:
        return {}
    for limit in (12, 60, 1000):
        frac = {x: Fraction(v.solution_value()).limit_denominator(limit) for x, v in var.items()}
        scale = lcm(*(f.denominator for f in frac.values()))
        weights = {x: int(f * scale) for x, f in frac.items() if f > 0}
        if weights.get(goal, 0) > 0 and all(
            weights.get(c, 0) <= weights.get(a, 0) + weights.get(b, 0) for a, b, c in game.jumps()
        ):
            return weights
    return {}


def _at_least(cnf: Any, pool: Any, terms: list[tuple[int, int]], bound: int) -> None:
    """Clauses for ``sum w * lit >= bound`` (positive integer weights): a sequential counter.

    ``s[i][j]``: the first i terms weigh at least j (j = 1..bound, capped); only the
    direction "s implies the terms" is needed, and ``s[n][bound]`` is asserted.
    """
    prev: dict[int, int] = {}  # j -> the variable "first i-1 terms weigh at least j"
    for w, lit in terms:
        cur: dict[int, int] = {}
        for j in range(1, bound + 1):
            s = int(pool.id())
            cur[j] = s
            below = j - w  # what the earlier terms must bring if this one is true
            # s -> prev[j] or lit;  s -> prev[j] or prev[below] (when below > 0)
            cnf.append([-s, lit, *([prev[j]] if j in prev else [])])
            if below > 0:
                cnf.append([-s, *([prev[below]] if below in prev else []), *([prev[j]] if j in prev else [])])
        prev = cur
    cnf.append([prev[bound]] if bound in prev else [])


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Encode, run the pysat solver ``variant``, decode; UNSAT proves impossibility.

    Encoder options come from ``limits.options`` (the keys of :data:`DEFAULTS`).  The
    parallel form without ``steps`` searches its horizon (:func:`_horizons`); the stats are
    those of the horizon that decided, the conflicts summed over all.
    """
    from puzzlesat.encoders.sat import refute, sat_result, solve_once

    start = time.perf_counter()
    options = {k: v for k, v in limits.options.items() if k in DEFAULTS and v is not None}
    name = variant or "cadical195"
    if options.get("parallel", DEFAULTS["parallel"]) and not options.get("steps"):
        outcome, encoding, model, solver_stats = _horizons(name, instance, options, limits, start)
    else:
        encoding = encode(instance, options)
        # solve_once runs Kissat (which pysat cannot interrupt) in a child killed at the deadline
        outcome, model, solver_stats = solve_once(name, encoding.cnf.clauses, limits.remaining(start))
    stats: dict[str, Any] = dict(encoding.stats)
    horizon = int(encoding.stats["horizon"])
    stats.update(solver_stats)
    elapsed = time.perf_counter() - start
    if outcome is None:
        return sat_result(outcome, lambda: None, wall_time=elapsed, stats=stats)
    if not outcome:
        if horizon < instance.moves_needed:
            message = f"no plan in {horizon} parallel steps (more steps may be needed)"
            return Result(Status.UNKNOWN, None, wall_time=elapsed, stats=stats, message=message)
        refute("no solution", f"no plan of {horizon} jumps", encoding.cnf.clauses, name, limits.remaining(start))
        return Result(
            Status.INFEASIBLE,
            None,
            wall_time=elapsed,
            stats=stats,
            message=f"no plan of {instance.moves_needed} jumps (SAT solver: UNSAT)",
        )
    return Result(Status.SOLVED, encoding.decode(encoding.true_keys(model)), wall_time=elapsed, stats=stats)


def _horizons(
    name: str, instance: Instance, options: dict[str, Any], limits: Limits, start: float
) -> tuple[bool | None, Encoding, list[int], dict[str, int]]:
    """The parallel plan's horizon search, each horizon a fresh encoding and solver.

    First the complete horizon T gets a small conflict budget (:data:`PROBE_CONFLICTS`, with
    CaDiCaL): an invariant such as the parity refutes an impossible board there at once.
    Then k = the planning graph's first possible number of steps, k + 1, ..., T, in one of
    the schedules of :mod:`puzzlesat.core.horizon`: one after the other, or with CaDiCaL
    ``window`` of them at once (:func:`_interleaved`).  UNSAT at k only says that more steps
    are needed (the near-minimal horizons are the easy ones, measured), UNSAT at T proves
    impossibility.

    Returns:
        (outcome, the encoding of the horizon that decided, model, statistics).
    """
    from puzzlesat.core.horizon import raise_horizon
    from puzzlesat.encoders.sat import open_solver, sat_result, solve_once, solver_stats

    last = instance.moves_needed
    encoding = encode(instance, {**options, "steps": last})
    with open_solver("cadical195", encoding.cnf.clauses) as probe:
        probe.conf_budget(PROBE_CONFLICTS)
        outcome = probe.solve_limited()
        conflicts = solver_stats(probe).get("conflicts", 0)
        if outcome is not None:
            return bool(outcome), encoding, (probe.get_model() or []) if outcome else [], {"conflicts": conflicts}
    first = max(1, int(encoding.stats["first_step"]))
    window = int(options.get("window") or DEFAULTS["window"])
    if window > 1 and name.startswith("cadical"):
        return _interleaved(name, instance, options, limits, start, range(first, last + 1), window, conflicts)
    asked: list[Any] = [encoding, []]  # the encoding of the horizon asked last, and its model

    def try_horizon(k: int) -> Result:
        nonlocal conflicts
        asked[0] = encode(instance, {**options, "steps": k})
        outcome, asked[1], stats = solve_once(name, asked[0].cnf.clauses, limits.remaining(start))
        conflicts += stats.get("conflicts", 0)
        return sat_result(outcome, lambda: None)  # decoded by the caller, from the model

    ended = raise_horizon(try_horizon, range(first, last + 1), lambda: limits.remaining(start))
    return _OUTCOMES.get(ended.status), asked[0], asked[1], {"conflicts": conflicts}


# how a schedule of core.horizon ended, as a pysat outcome: a plan, every horizon refuted, or neither
_OUTCOMES = {Status.OPTIMAL: True, Status.INFEASIBLE: False}


def _interleaved(
    name: str,
    instance: Instance,
    options: dict[str, Any],
    limits: Limits,
    start: float,
    horizons: range,
    window: int,
    conflicts: int,
) -> tuple[bool | None, Encoding, list[int], dict[str, int]]:
    """``window`` consecutive horizons at once, in turns of :data:`SLICE_CONFLICTS` conflicts
    (:func:`~puzzlesat.core.horizon.interleave_horizons`).

    A parallel plan of k steps fits every larger horizon (its last steps empty), so UNSAT
    at k settles every horizon up to k.
    """
    from pysat.solvers import Solver

    from puzzlesat.core.horizon import interleave_horizons
    from puzzlesat.encoders.sat import solver_stats

    used = conflicts
    model: list[int] = []

    def open_horizon(k: int) -> tuple[Encoding, Any]:
        encoding = encode(instance, {**options, "steps": k})
        return encoding, Solver(name=name, bootstrap_with=encoding.cnf.clauses)

    def turn(entry: tuple[Encoding, Any]) -> bool | None:
        nonlocal model
        solver = entry[1]
        solver.conf_budget(SLICE_CONFLICTS)
        outcome = solver.solve_limited()
        if outcome:
            model = solver.get_model() or []
        return outcome

    def close(entry: tuple[Encoding, Any]) -> None:
        nonlocal used
        used += solver_stats(entry[1]).get("conflicts", 0)
        entry[1].delete()

    outcome, (encoding, _) = interleave_horizons(
        open_horizon, turn, close, horizons, window, lambda: limits.remaining(start)
    )
    return outcome, encoding, model if outcome else [], {"conflicts": used}


# conflicts a horizon gets in each turn of :func:`_interleaved`
SLICE_CONFLICTS = 2000
# conflicts allowed to the complete horizon before the parallel form's horizon search
PROBE_CONFLICTS = 1000
