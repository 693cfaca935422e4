"""The row-scan search of native/eternity/kernel.py in plain Python, for the first nodes of a search.

A small board is often solved in a few hundred nodes; the numba kernel costs about half a
second to import and load even when cached (several seconds to compile on a fresh install),
far more than the search.  :func:`search` takes the kernel's arguments and leaves the state
exactly as the kernel would (same nodes, same boards, same resumable state), so a search can
start here and go on in the kernel where this one stopped.  It serves the decision and count
searches without the colour-count check (``check`` 0): the wrapper runs the kernel for that.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.native.eternity.arrays import class_width

if TYPE_CHECKING:
    from puzzlesat.native.eternity.arrays import State, Table


def search(table: Table, state: State, budget: int, limit: int, floor: int) -> tuple[int, int]:
    """The kernel's ``search`` with ``check`` 0, on the same table and state (updated in place).

    Returns:
        (status, nodes), as the kernel returns them.
    """
    cols, ncolours, found, depth = table.cols, table.colours, state.found, state.depth
    n = len(table.classes)
    classes = table.classes.tolist()
    width = class_width(ncolours)
    offsets = table.off.tolist()
    tile, east_of, south_of, next_of = (a.tolist() for a in (table.tile, table.east, table.south, table.after))
    use, ch, ea, so, pl = (a.tolist() for a in (state.used, state.choice, state.east, state.south, state.placed))
    count = int(found[0])
    d = int(depth[0])
    nodes = 0
    status = BUDGET
    while True:
        if d == n:
            if count >= limit:
                status = FOUND
                break
            d -= 1  # counted when it was completed: take the last tile off and go on
            use[tile[pl[d]]] = 0
            continue
        if d < floor:
            status = EXHAUSTED
            break
        west = ea[d - 1] if d else 0  # as the kernel: the east rim shows grey (0)
        north = so[d - cols] if d >= cols else 0
        base = classes[d] * width + west * ncolours + north
        i = ch[d]
        if i < 0:
            i = offsets[base]
        stop = offsets[base + 1]
        while i < stop and use[tile[i]]:
            i += 1
        if i < stop:
            use[tile[i]] = 1
            pl[d] = i
            ea[d] = east_of[i]
            so[d] = south_of[i]
            ch[d] = next_of[i]
            d += 1
            if d < n:
                ch[d] = -1
            else:
                count += 1
            nodes += 1
            if nodes >= budget:
                break
        else:  # no candidate left here: undo the cell before and try its next candidate
            ch[d] = -1
            d -= 1
            if d >= floor:
                use[tile[pl[d]]] = 0
    arrays = (state.used, state.choice, state.east, state.south, state.placed)
    for values, changed in zip(arrays, (use, ch, ea, so, pl), strict=True):
        values[:] = array("q", changed)
    depth[0] = d
    found[0] = count
    return status, nodes
