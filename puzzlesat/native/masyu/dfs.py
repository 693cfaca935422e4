"""Strategy ``native-dfs``: the seed's approach (rules, dead ends, then search) as a numba kernel.

Propagation: degree 0 or 2, the circle rules, no edge that closes a piece early, an even
number of loop edges across every grid line, and every used cell still able to reach the
others.  Search grows one piece of the loop at a time.  It is quick up to about 10x10;
larger puzzles need the clause learning of ``cnf-lazy``.

The wrapper turns the instance into flat integer arrays (clue per cell, the edge in each
direction and the edge beyond it, edge end cells) and maps the kernel's answer back; the
search itself is in :mod:`puzzlesat.native.masyu.kernel`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from puzzlesat.core import TIME_LIMIT, Limits, Result, Status, Strategy
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, decision_status
from puzzlesat.core.uniqueness import record_uniqueness
from puzzlesat.domains.masyu import Instance, solution_from_edges

if TYPE_CHECKING:
    import numpy as np

STRATEGY = Strategy(
    "native-dfs",
    "puzzlesat.native.masyu.dfs:solve",
    "numba: propagate circle and degree rules, close no early loop, branch on path ends",
    modes=("unique",),
    puzzle="masyu",
    engine="native",
)
MAX_DEPTH = 4096
# a slice of the search between two looks at the clock: short enough that a limit holds within
# a small share of a second, long enough that the calls cost nothing (a node is 10-100 us)
SLICE_SECONDS = 0.05
FIRST_SLICE_NODES = 64


def arrays(instance: Instance) -> tuple[np.ndarray, ...]:
    """(clue, inc, far, ea, eb, lines, line_start): the kernel's view of the grid.

    Directions are U, D, L, R = 0..3; -1 marks an edge off the board.
    """
    import numpy as np

    rows, cols = instance.rows, instance.cols
    edges = instance.edges()
    index = {e: i for i, e in enumerate(edges)}
    clue = np.array(instance.grid, dtype=np.int8)
    inc = np.full((rows * cols, 4), -1, dtype=np.int32)
    far = np.full((rows * cols, 4), -1, dtype=np.int32)
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
    for r in range(rows):
        for c in range(cols):
            for d, (dr, dc) in enumerate(steps):
                e1 = _edge(rows, cols, r, c, dr, dc)
                if e1 is None:
                    continue
                inc[r * cols + c, d] = index[e1]
                e2 = _edge(rows, cols, r + dr, c + dc, dr, dc)
                if e2 is not None:
                    far[r * cols + c, d] = index[e2]
    ea = np.array([e[1] * cols + e[2] for e in edges], dtype=np.int32)
    eb = np.array([e[1] * cols + e[2] + (1 if e[0] == "h" else cols) for e in edges], dtype=np.int32)
    # the grid lines between rows and between columns, as lists of the edges crossing them
    crossing = [[index[("v", r, c)] for c in range(cols)] for r in range(rows - 1)]
    crossing += [[index[("h", r, c)] for r in range(rows)] for c in range(cols - 1)]
    lines = np.array([e for line in crossing for e in line], dtype=np.int32)
    line_start = np.array([0, *np.cumsum([len(line) for line in crossing])], dtype=np.int32)
    return clue, inc, far, ea, eb, lines, line_start


def _edge(rows: int, cols: int, r: int, c: int, dr: int, dc: int) -> tuple[str, int, int] | None:
    nr, nc = r + dr, c + dc
    if not (0 <= r < rows and 0 <= c < cols and 0 <= nr < rows and 0 <= nc < cols):
        return None
    (r1, c1) = min((r, c), (nr, nc))
    return ("h", r1, c1) if dr == 0 else ("v", r1, c1)


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Propagate and search; with ``unique`` look for a second loop as well.

    The search runs in slices of nodes, each sized to take about :data:`SLICE_SECONDS` at
    the rate the last ones ran, and the clock is read between them: the time limit holds on
    a busy machine as on an idle one, where a node budget derived from it would not.
    """
    start = time.perf_counter()  # the limit counts the imports: numba's takes seconds on a busy machine
    import numpy as np  # here, not at the top: listing the strategies imports this module

    from puzzlesat.native.masyu.kernel import R_COUNT, R_NODES, new_state, search

    clue, inc, far, ea, eb, lines, line_start = arrays(instance)
    want = 2 if limits.options.get("unique") else 1
    compile_start = time.perf_counter()
    tiny = new_state(4, 0, 1, 1)
    search(
        np.zeros(4, dtype=np.int8),
        inc[:4] * 0 - 1,
        far[:4] * 0 - 1,
        ea[:0],
        eb[:0],
        lines[:0],
        line_start[:1],
        1,
        1,
        *tiny,
    )
    compile_time = time.perf_counter() - compile_start
    t0 = time.perf_counter()
    state, stack, sols, regs = new_state(len(clue), len(ea), want, MAX_DEPTH)
    deadline = limits.deadline(start)
    nodes = FIRST_SLICE_NODES
    while True:
        began = time.perf_counter()
        status = search(clue, inc, far, ea, eb, lines, line_start, want, nodes, state, stack, sols, regs)
        now = time.perf_counter()
        if status != BUDGET or (deadline is not None and now >= deadline):
            break
        # a node's cost varies tenfold along the search: the slower of the last slice's rate
        # and the whole search's, and a slice at most twice the last
        rate = min(nodes / max(now - began, 1e-6), int(regs[R_NODES]) / max(now - t0, 1e-6))
        left = SLICE_SECONDS if deadline is None else min(SLICE_SECONDS, deadline - now)
        nodes = max(1, min(int(rate * left), 2 * nodes))
    wall = time.perf_counter() - t0 + (compile_start - start)
    edges = instance.edges()
    found = sols[: regs[R_COUNT]]
    loops = [solution_from_edges([edges[i] for i in np.nonzero(row == 1)[0]]) for row in found]
    stats: dict = {"nodes": int(regs[R_NODES]), "compile_time": round(compile_time, 3)}
    if not loops:
        outcome = decision_status(status)
        return Result(outcome, None, wall_time=wall, stats=stats, message=TIME_LIMIT if status == BUDGET else "")
    result = Result(Status.SOLVED, loops[0], wall_time=wall, stats=stats)
    if not limits.options.get("unique"):
        return result
    if len(loops) > 1:
        return record_uniqueness(result, True, loops[1], noun="loop")
    return record_uniqueness(result, False if status == EXHAUSTED else None, noun="loop", undecided=TIME_LIMIT)
