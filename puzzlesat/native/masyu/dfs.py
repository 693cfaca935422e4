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

from puzzlesat.core import Limits, Result, Status, Strategy
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
CELL_NODES_PER_SECOND = 5_000_000  # nodes/s times cells, measured: ~10k nodes/s on 16x33
MAX_DEPTH = 4096


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
    """Propagate and search; with ``unique`` look for a second loop as well."""
    import numpy as np  # here, not at the top: listing the strategies imports this module

    from puzzlesat.native.masyu.kernel import search

    start = time.perf_counter()
    clue, inc, far, ea, eb, lines, line_start = arrays(instance)
    want = 2 if limits.options.get("unique") else 1
    cells = instance.rows * instance.cols
    budget = 10**12 if limits.timeout is None else max(1000, int(limits.timeout * CELL_NODES_PER_SECOND / cells))
    compile_start = time.perf_counter()
    search(
        np.zeros(4, dtype=np.int8), inc[:4] * 0 - 1, far[:4] * 0 - 1, ea[:0], eb[:0], lines[:0], line_start[:1], 1, 1, 1
    )
    compile_time = time.perf_counter() - compile_start
    t0 = time.perf_counter()
    status, sols, nodes = search(clue, inc, far, ea, eb, lines, line_start, want, budget, MAX_DEPTH)
    wall = time.perf_counter() - t0 + (compile_start - start)
    edges = instance.edges()
    loops = [solution_from_edges([edges[i] for i in np.nonzero(row == 1)[0]]) for row in sols]
    stats: dict = {"nodes": int(nodes), "compile_time": round(compile_time, 3)}
    if not loops:
        outcome = decision_status(status)
        return Result(
            outcome, None, wall_time=wall, stats=stats, message="node budget spent" if status == BUDGET else ""
        )
    result = Result(Status.SOLVED, loops[0], wall_time=wall, stats=stats)
    if not limits.options.get("unique"):
        return result
    if len(loops) > 1:
        return record_uniqueness(result, True, loops[1], noun="loop")
    return record_uniqueness(result, False if status == EXHAUSTED else None, noun="loop", undecided="node budget")
