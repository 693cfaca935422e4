"""``native-dfs``: bitboard depth-first search with a table of dead positions (numba).

The wrapper numbers the board cells, builds per-jump bit masks in the chosen order, runs the
resumable kernel in slices of nodes so that the timeout is honoured, and turns the kernel's
jump indices back into moves.  Boards of up to 127 cells fit the two-word bitboard.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any

from puzzlesat.core import BackendUnavailable, Limits, Result, Status
from puzzlesat.core.kernel_status import BUDGET, FOUND, MEET, decision_status
from puzzlesat.domains.pegsol import DIRECTIONS, PEG, Instance, Jump, Move, Solution, presolve

if TYPE_CHECKING:
    import numpy as np

MAX_CELLS = 127  # bit 63 of the high word marks used slots in the dead table
SLICE = 1 << 17
RESTART_BASE = 1 << 13
WIN_BITS = 14
FIRST_TABLE_BITS = 16
TABLE_BITS = 22


SYMMETRIES = (
    (1, 0, 0, 1),
    (1, 0, 0, -1),
    (-1, 0, 0, 1),
    (-1, 0, 0, -1),
    (0, 1, 1, 0),
    (0, 1, -1, 0),
    (0, -1, 1, 0),
    (0, -1, -1, 0),
)
"""The eight maps (r, c) -> (a*r + b*c, d*r + e*c) of the square's symmetry group, as (a, b, d, e)."""


def ordered_jumps(instance: Instance, order: str = "sym0") -> list[Jump]:
    """The jumps in the order the search tries them.

    ``symK`` is row-major order (by start cell, then N, E, S, W) seen through the K-th
    symmetry of the square: from each corner, row- or column-wise.  The search is very
    sensitive to this order, and a board that is slow in one order is a mirror image of a
    board that is fast in another, so restarts cycle through all eight.  ``randomN``
    shuffles with seed N.  ``sym0`` is ``instance.jumps()``'s own order.
    """
    jumps = instance.jumps()
    if order.startswith("random") and (order[6:] or "0").isdigit():
        random.Random(int(order[6:] or 0)).shuffle(jumps)
        return jumps
    if not (order.startswith("sym") and order[3:].isdigit() and int(order[3:]) < len(SYMMETRIES)):
        raise BackendUnavailable(f"unknown jump order {order!r}; expected sym0..sym7 or randomN")
    a, b, d, e = SYMMETRIES[int(order[3:])]

    def key(jump: Jump) -> tuple[int, int, int]:
        (r, c), _, (r2, c2) = jump
        dr, dc = (a * (r2 - r) + b * (c2 - c)) // 2, (d * (r2 - r) + e * (c2 - c)) // 2
        return a * r + b * c, d * r + e * c, DIRECTIONS.index((dr, dc))

    return sorted(jumps, key=key)


def _words(bits: list[int]) -> tuple[np.uint64, np.uint64]:
    import numpy as np

    lo = hi = 0
    for i in bits:
        if i < 64:
            lo |= 1 << i
        else:
            hi |= 1 << (i - 64)
    return np.uint64(lo), np.uint64(hi)


def build_arrays(instance: Instance, order: str = "sym0") -> dict[str, Any]:
    """The flat arrays the kernel reads: jump masks, start and goal words, the jump list."""
    import numpy as np

    index = {cell: i for i, cell in enumerate(instance.cells)}
    jumps = ordered_jumps(instance, order)
    n = len(jumps)
    arrays = {name: np.zeros(max(1, n), dtype=np.uint64) for name in ("fo_lo", "fo_hi", "to_lo", "to_hi")}
    for k, (a, b, c) in enumerate(jumps):
        arrays["fo_lo"][k], arrays["fo_hi"][k] = _words([index[a], index[b]])
        arrays["to_lo"][k], arrays["to_hi"][k] = _words([index[c]])
    canonical = {jump: k for k, jump in enumerate(instance.jumps())}
    canon = np.array([canonical[jump] for jump in jumps] or [0], dtype=np.int64)
    start = _words([index[x] for x in instance.cells if instance.start[x[0]][x[1]] == PEG])
    goal = _words([index[x] for x in instance.cells if instance.target[x[0]][x[1]] == PEG])
    full = _words(list(range(len(instance.cells))))
    return {**arrays, "start": start, "goal": goal, "full": full, "canon": canon, "jumps": jumps, "n": n}


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Search for the jumps; INFEASIBLE once the whole tree is exhausted.

    Options (``limits.options``): ``order`` (one fixed order, no restarts: symK, randomN),
    ``table_bits`` (log2 of the largest dead-position table, default 22 = 4M entries, 64 MB;
    it starts at 2**16 and doubles when half full), ``no_restarts``, ``no_meet``.
    """
    start_time = time.perf_counter()
    early = presolve(instance, limits)
    if early is not None:
        early.wall_time = time.perf_counter() - start_time
        return early
    if len(instance.cells) > MAX_CELLS:
        return Result(
            Status.UNKNOWN,
            message=f"native-dfs handles boards of up to {MAX_CELLS} cells, this one has {len(instance.cells)}",
        )
    # numpy and numba load only now: a board the proofs settle never pays for them
    setup_start = time.perf_counter()
    import numpy as np

    from puzzlesat.native.pegsol_kernel import rehash, search

    fixed_order = limits.options.get("order")
    restarts = not limits.options.get("no_restarts") and not fixed_order
    first_order = str(fixed_order or f"sym{limits.seed % len(SYMMETRIES)}")
    data = build_arrays(instance, first_order)
    depth = instance.moves_needed
    # the table starts small and doubles while it is more than half full: touching memory
    # is slow here (fresh pages cost microseconds each), so an easy board stays cheap
    max_bits = int(limits.options.get("table_bits") or min(TABLE_BITS, len(instance.cells) + 2))
    bits = min(max_bits, FIRST_TABLE_BITS)
    table = np.zeros(2 << bits, dtype=np.uint64)
    # the complement game meets itself half way (see the kernel's ``meet``)
    complement = instance.target == tuple(tuple(-v for v in row) for row in instance.start)
    use_meet = complement and depth >= 4 and not limits.options.get("no_meet")
    store_depth = depth // 2 if use_meet else -1
    meet = np.array([store_depth, depth - store_depth if use_meet else -1], dtype=np.int64)
    win_bits = min(WIN_BITS, len(instance.cells) + 2) if use_meet else 2
    wins = np.zeros(2 << win_bits, dtype=np.uint64)
    win_paths = np.zeros((1 << win_bits, max(1, store_depth)), dtype=np.int64 if data["n"] > 32767 else np.int16)
    runner = _Runner(search, depth, table, meet, data["full"], wins, win_paths)
    runner.reset(data, data["start"])

    # a zero budget returns at once: these calls only load (or compile) the kernels; the
    # import of numba and these calls are reported as compile_time, outside wall_time
    compile_start = time.perf_counter()
    runner.run(data, 0)
    rehash(table[:8], np.zeros(16, dtype=np.uint64))
    compile_time = time.perf_counter() - compile_start
    import_time = compile_start - setup_start
    search_start = start_time + compile_time + import_time
    nodes = 0
    run = 1
    run_budget = RESTART_BASE if restarts else -1
    run_nodes = 0
    while True:
        if runner.state[1] > (1 << bits) // 2 and bits < max_bits:
            bits += 1
            bigger = np.zeros(2 << bits, dtype=np.uint64)
            rehash(runner.table, bigger)
            runner.table = bigger
            runner.state[1] = int(np.count_nonzero(bigger[1::2]))
        budget = min(SLICE, max(1024, (1 << bits) // 4))
        if run_budget >= 0:
            budget = min(budget, run_budget - run_nodes)
        status, done = runner.run(data, budget)
        nodes += done
        run_nodes += done
        remaining = limits.remaining(search_start)
        if status != BUDGET or remaining is not None and remaining <= 0:
            break
        if 0 <= run_budget <= run_nodes:
            # restart in the next symmetric jump order, doubling the budget after each round of
            # eight; the dead positions found so far stay in the table
            run += 1
            run_budget = RESTART_BASE << ((run - 1) // len(SYMMETRIES))
            run_nodes = 0
            data = build_arrays(instance, f"sym{(run - 1 + limits.seed) % len(SYMMETRIES)}")
            runner.reset(data, data["start"])
    stats: dict[str, Any] = {
        "nodes": nodes,
        "runs": run,
        "jumps": data["n"],
        "table_entries": int(runner.state[1]),
        "table_bits": bits,
    }
    if use_meet:
        stats["wins_stored"] = int(np.count_nonzero(wins[1::2]))
    moves: tuple[Move, ...] = ()
    if status == FOUND:
        moves = tuple(Move(*data["jumps"][j][0], *data["jumps"][j][2]) for j in runner.chosen[:depth])
    elif status == MEET:
        # start -> X (check_depth jumps), then the path start -> Y stored with X = complement of Y,
        # played backwards from X, reaches the complement of the start: the goal
        canonical = instance.jumps()
        reached = int(runner.state[0])
        head = [data["jumps"][j] for j in runner.chosen[:reached]]
        tail = [canonical[int(j)] for j in win_paths[runner.state[2], : depth - reached]][::-1]
        moves = tuple(Move(*a, *c) for a, _, c in head + tail)
        stats["met_at"] = reached
        status = FOUND
    elapsed = time.perf_counter() - search_start
    stats["compile_time"] = round(compile_time + import_time, 3)
    outcome = decision_status(status)
    if outcome is Status.SOLVED:
        return Result(outcome, Solution(moves), wall_time=elapsed, stats=stats)
    if outcome is Status.INFEASIBLE:
        return Result(
            outcome,
            None,
            wall_time=elapsed,
            stats=stats,
            message="exhaustive search: every line of play fails",
        )
    return Result(outcome, None, wall_time=elapsed, stats=stats, message="timeout")


class _Runner:
    """The kernel's state between calls: boards per depth, next jump per depth, the tables."""

    def __init__(
        self, kernel: Any, depth: int, table: Any, meet: Any, full: tuple[Any, Any], wins: Any, win_paths: Any
    ) -> None:
        import numpy as np

        self.kernel = kernel
        self.depth = depth
        self.table = table
        self.meet = meet
        self.full = full
        self.wins = wins
        self.win_paths = win_paths
        self.board_lo = np.zeros(depth + 1, dtype=np.uint64)
        self.board_hi = np.zeros(depth + 1, dtype=np.uint64)
        self.next_move = np.zeros(depth + 1, dtype=np.int64)
        self.chosen = np.zeros(max(1, depth), dtype=np.int64)
        self.state = np.zeros(3, dtype=np.int64)

    def reset(self, data: dict[str, Any], start: tuple[Any, Any]) -> None:
        """Start again from the root (the tables keep their entries)."""
        self.board_lo[0], self.board_hi[0] = start
        self.next_move[0] = 0
        self.state[0] = 0

    def run(self, data: dict[str, Any], budget: int) -> tuple[int, int]:
        """One slice of search in ``data``'s jump order; returns (status, new nodes)."""
        status, _, nodes = self.kernel(
            data["fo_lo"],
            data["fo_hi"],
            data["to_lo"],
            data["to_hi"],
            data["goal"][0],
            data["goal"][1],
            self.depth,
            self.board_lo,
            self.board_hi,
            self.next_move,
            self.chosen,
            self.state,
            self.table,
            budget,
            self.meet,
            self.full[0],
            self.full[1],
            data["canon"],
            self.wins,
            self.win_paths,
        )
        return int(status), int(nodes)
