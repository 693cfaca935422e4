"""Numba kernel of ``native-dfs``: edge states, rule propagation and depth-first search.

Edge states: -1 unknown, 0 off, 1 on.  ``other[x]`` is the far end of the loop piece that
ends in cell x (x itself for an unused cell) and ``plen[x]`` that piece's edge count, so an
edge that would close a piece into a loop is seen at once.  Directions are U, D, L, R = 0..3;
``inc[cell, d]`` is the edge leaving the cell that way and ``far[cell, d]`` the edge after
it (straight on through the neighbour), -1 off the board.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND

UNKNOWN, OFF, ON = -1, 0, 1
EMPTY, WHITE, BLACK = 0, 1, 2
OPPOSITE = (1, 0, 3, 2)


@njit(cache=True)
def _set_on(e, es, other, plen, sc, ea, eb, clue, inc, far):
    """Switch an edge on; returns False on a contradiction.  sc = [edges on, solved]."""
    if es[e] == ON:
        return True
    if es[e] == OFF:
        return False
    a, b = ea[e], eb[e]
    if other[a] == b and a != b and plen[a] > 0:
        # this edge closes a piece: only right if the piece holds every edge in use
        if sc[0] != plen[a]:
            return False
        es[e] = ON
        sc[0] += 1
        for f in range(es.shape[0]):
            if es[f] == UNKNOWN:
                es[f] = OFF
        if not _complete_ok(es, clue, inc, far):
            return False
        sc[1] = 1
        return True
    es[e] = ON
    oa, ob = other[a], other[b]
    n = plen[a] + plen[b] + 1
    other[oa] = ob
    other[ob] = oa
    plen[oa] = n
    plen[ob] = n
    sc[0] += 1
    return True


@njit(cache=True)
def _set_off(e, es):
    if es[e] == ON:
        return False
    es[e] = OFF
    return True


@njit(cache=True)
def _state(es, e):
    """State of an edge index, OFF for 'no edge' (-1)."""
    if e < 0:
        return OFF
    return es[e]


@njit(cache=True)
def _complete_ok(es, clue, inc, far):
    """Every circle used and obeyed, once all edges are decided."""
    for cell in range(clue.shape[0]):
        k = clue[cell]
        if k == EMPTY:
            continue
        on = np.zeros(4, dtype=np.int64)
        deg = 0
        for d in range(4):
            if _state(es, inc[cell, d]) == ON:
                on[d] = 1
                deg += 1
        if deg != 2:
            return False
        if k == BLACK:
            if (on[0] and on[1]) or (on[2] and on[3]):
                return False
            for d in range(4):
                if on[d] and _state(es, far[cell, d]) != ON:
                    return False
        else:
            if not ((on[0] and on[1]) or (on[2] and on[3])):
                return False
            d1, d2 = (0, 1) if on[0] else (2, 3)
            if _state(es, far[cell, d1]) == ON and _state(es, far[cell, d2]) == ON:
                return False
    return True


@njit(cache=True)
def _parity(es, other, plen, sc, ea, eb, clue, inc, far, lines, line_start):
    """A loop crosses every straight grid line an even number of times.

    ``lines[line_start[i]:line_start[i + 1]]`` are the edges that cross line i; when one of
    them is still unknown, the parity of the others decides it.  Returns (ok, changed).
    """
    changed = False
    for i in range(line_start.shape[0] - 1):
        non = 0
        nunk = 0
        last = -1
        for j in range(line_start[i], line_start[i + 1]):
            e = lines[j]
            if es[e] == ON:
                non += 1
            elif es[e] == UNKNOWN:
                nunk += 1
                last = e
        if nunk == 0 and non % 2 == 1:
            return False, changed
        if nunk == 1:
            if non % 2 == 1:
                if not _set_on(last, es, other, plen, sc, ea, eb, clue, inc, far):
                    return False, changed
            else:
                es[last] = OFF
            changed = True
            if sc[1] == 1:
                return True, changed
    return True, changed


@njit(cache=True, inline="always")
def _undecided_off(cell, es, inc):
    """Switch every undecided edge of ``cell`` off (its degree is settled without them)."""
    for d in range(4):
        e = inc[cell, d]
        if e >= 0 and es[e] == UNKNOWN:
            es[e] = OFF


@njit(cache=True, inline="always")
def _undecided_on(cell, es, other, plen, sc, ea, eb, clue, inc, far):
    """Switch every undecided edge of ``cell`` on (it needs them all); False on a contradiction."""
    for d in range(4):
        e = inc[cell, d]
        if e >= 0 and es[e] == UNKNOWN:
            if not _set_on(e, es, other, plen, sc, ea, eb, clue, inc, far):
                return False
    return True


@njit(cache=True)
def _propagate(es, other, plen, sc, ea, eb, clue, inc, far, lines, line_start):
    """Apply the degree, circle, parity and no-early-loop rules until nothing changes."""
    ncell = clue.shape[0]
    changed = True
    while changed and sc[1] == 0:
        ok, changed = _parity(es, other, plen, sc, ea, eb, clue, inc, far, lines, line_start)
        if not ok:
            return False
        if sc[1] == 1:
            return True
        for cell in range(ncell):
            if sc[1] == 1:
                return True
            non = 0
            nunk = 0
            for d in range(4):
                e = inc[cell, d]
                if e >= 0:
                    if es[e] == ON:
                        non += 1
                    elif es[e] == UNKNOWN:
                        nunk += 1
            k = clue[cell]
            # degree 0 or 2
            if non > 2:
                return False
            if non == 2 and nunk > 0:
                _undecided_off(cell, es, inc)
                changed = True
            elif non == 1:
                if nunk == 0:
                    return False
                if nunk == 1:
                    if not _undecided_on(cell, es, other, plen, sc, ea, eb, clue, inc, far):
                        return False
                    changed = True
                else:
                    # an edge back to the piece's own far end would close it early
                    for d in range(4):
                        e = inc[cell, d]
                        if e >= 0 and es[e] == UNKNOWN:
                            nb = ea[e] + eb[e] - cell
                            if other[cell] == nb and sc[0] != plen[cell]:
                                es[e] = OFF
                                changed = True
            elif non == 0:
                if k != EMPTY:
                    if nunk < 2:
                        return False
                    if nunk == 2:
                        if not _undecided_on(cell, es, other, plen, sc, ea, eb, clue, inc, far):
                            return False
                        changed = True
                elif nunk == 1:
                    _undecided_off(cell, es, inc)
                    changed = True
            if sc[1] == 1:
                return True
            if k == BLACK:
                # black circle: turn here, straight on through the next cell on both arms
                for d in range(4):
                    e = inc[cell, d]
                    if e < 0:
                        continue
                    fe = far[cell, d]
                    if es[e] != OFF and _state(es, fe) == OFF:
                        if not _set_off(e, es):
                            return False
                        changed = True
                    if es[e] == ON:
                        if fe < 0 or not _set_on(fe, es, other, plen, sc, ea, eb, clue, inc, far):
                            return False
                        o = inc[cell, OPPOSITE[d]]
                        if o >= 0 and es[o] != OFF:
                            if not _set_off(o, es):
                                return False
                            changed = True
                    if es[e] == OFF:
                        o = inc[cell, OPPOSITE[d]]
                        if o < 0 or es[o] == OFF:
                            return False
                        if es[o] == UNKNOWN:
                            if not _set_on(o, es, other, plen, sc, ea, eb, clue, inc, far):
                                return False
                            changed = True
            elif k == WHITE:
                # white circle: straight through, a turn in one of the two cells beside it
                for d in range(4):
                    e = inc[cell, d]
                    o = inc[cell, OPPOSITE[d]]
                    se, so = _state(es, e), _state(es, o)
                    if se == ON and so != ON:
                        if o < 0 or not _set_on(o, es, other, plen, sc, ea, eb, clue, inc, far):
                            return False
                        changed = True
                    elif se == OFF and so != OFF:
                        if not _set_off(o, es):
                            return False
                        changed = True
                for d in (0, 2):
                    e = inc[cell, d]
                    if _state(es, e) == ON:
                        f1, f2 = far[cell, d], far[cell, d + 1]
                        s1, s2 = _state(es, f1), _state(es, f2)
                        if s1 == ON and s2 == ON:
                            return False
                        if s1 == ON and s2 == UNKNOWN:
                            es[f2] = OFF
                            changed = True
                        elif s2 == ON and s1 == UNKNOWN:
                            es[f1] = OFF
                            changed = True
    return True


@njit(cache=True)
def _connected(es, clue, inc, ea, eb):
    """Every used cell and circle can still reach the others over edges not switched off."""
    ncell = clue.shape[0]
    must = np.zeros(ncell, dtype=np.int8)
    start = -1
    total = 0
    for cell in range(ncell):
        need = clue[cell] != EMPTY
        if not need:
            for d in range(4):
                if _state(es, inc[cell, d]) == ON:
                    need = True
                    break
        if need:
            must[cell] = 1
            total += 1
            if start < 0:
                start = cell
    if start < 0:
        return True
    seen = np.zeros(ncell, dtype=np.int8)
    stack = np.empty(ncell, dtype=np.int32)
    top = 0
    stack[top] = start
    top += 1
    seen[start] = 1
    reached = 0
    while top > 0:
        top -= 1
        cell = stack[top]
        if must[cell]:
            reached += 1
        for d in range(4):
            e = inc[cell, d]
            if e >= 0 and es[e] != OFF:
                nb = ea[e] + eb[e] - cell
                if not seen[nb]:
                    seen[nb] = 1
                    stack[top] = nb
                    top += 1
    return reached == total


@njit(cache=True)
def _end_choice(es, inc, cell):
    """(first unknown edge, unknown count) at a piece end, or (-1, 0) if not an open end."""
    non = 0
    nunk = 0
    first = -1
    for d in range(4):
        e = inc[cell, d]
        if e >= 0:
            if es[e] == ON:
                non += 1
            elif es[e] == UNKNOWN:
                nunk += 1
                if first < 0:
                    first = e
    if non != 1:
        return -1, 0
    return first, nunk


@njit(cache=True)
def _pick(es, other, clue, inc, last):
    """The edge to branch on.

    Keep growing the piece the last decision grew (the search stays local, so a dead end
    shows soon); else the piece end with fewest choices; else an unused circle.
    """
    if last >= 0:
        e, n = _end_choice(es, inc, last)
        if e >= 0:
            return e
        e, n = _end_choice(es, inc, other[last])
        if e >= 0:
            return e
    best, best_n = -1, 5
    for cell in range(clue.shape[0]):
        e, n = _end_choice(es, inc, cell)
        if e >= 0 and n < best_n:
            best, best_n = e, n
            if n == 2:
                return best
    if best >= 0:
        return best
    for cell in range(clue.shape[0]):
        if clue[cell] != EMPTY:
            for d in range(4):
                e = inc[cell, d]
                if e >= 0 and es[e] == UNKNOWN:
                    return e
    return -1


# the registers of a search between two slices (``regs``)
R_DEPTH, R_LAST, R_OK, R_COUNT, R_NODES, R_STARTED = 0, 1, 2, 3, 4, 5
REGISTERS = 6


@njit(cache=True)
def search(clue, inc, far, ea, eb, lines, line_start, want, node_limit, state, stack, sols, regs):
    """Depth-first search for up to ``want`` loops, one slice of at most ``node_limit`` nodes.

    The whole search state lives in the arrays the caller holds (:func:`new_state`), so a
    search that returns BUDGET goes on where it stopped when called again: the wrapper looks
    at the clock between slices.

    Args:
        state: (es, other, plen, sc) of the current node: edge states, piece ends, piece
            lengths, [edges on, solved].
        stack: (s_es, s_other, s_plen, s_sc, s_edge, s_phase), one row per decision.
        sols: ``want`` rows; row i the edge states of loop i.
        regs: the :data:`REGISTERS` of the search (depth, last, ok, count, nodes, started).

    Returns:
        FOUND when ``want`` loops were found, EXHAUSTED when the search ended (fewer exist),
        BUDGET when this slice's nodes are spent; ``regs[R_COUNT]`` loops are in ``sols`` and
        ``regs[R_NODES]`` counts the nodes of every slice.
    """
    es, other, plen, sc = state
    s_es, s_other, s_plen, s_sc, s_edge, s_phase = stack
    max_depth = s_edge.shape[0]
    if regs[R_STARTED] == 0:
        regs[R_STARTED] = 1
        regs[R_OK] = 1 if _propagate(es, other, plen, sc, ea, eb, clue, inc, far, lines, line_start) else 0
        regs[R_LAST] = -1  # the cell the last decision extended a piece to
    depth = regs[R_DEPTH]
    last = regs[R_LAST]
    ok = regs[R_OK] == 1
    count = regs[R_COUNT]
    nodes = regs[R_NODES]
    stop = nodes + node_limit
    code = BUDGET
    while True:
        if nodes >= stop:
            break
        if ok:
            if sc[1] == 1:
                sols[count, :] = es
                count += 1
                ok = False
                if count >= want:
                    code = FOUND
                    break
            else:
                e = _pick(es, other, clue, inc, last)
                if e < 0 or depth >= max_depth:
                    ok = False
                else:
                    s_es[depth, :] = es
                    s_other[depth, :] = other
                    s_plen[depth, :] = plen
                    s_sc[depth, :] = sc
                    s_edge[depth] = e
                    s_phase[depth] = 0
                    depth += 1
                    nodes += 1
                    # the new end: whichever end of e is not the one that was open before
                    last = eb[e] if _end_choice(es, inc, ea[e])[0] >= 0 else ea[e]
                    ok = _set_on(e, es, other, plen, sc, ea, eb, clue, inc, far)
                    if ok:
                        ok = _propagate(es, other, plen, sc, ea, eb, clue, inc, far, lines, line_start)
                    if ok and sc[1] == 0:
                        ok = _connected(es, clue, inc, ea, eb)
                    continue
        # backtrack to the deepest decision whose 'off' branch is still to try
        while depth > 0 and s_phase[depth - 1] == 1:
            depth -= 1
        if depth == 0:
            code = EXHAUSTED
            break
        k = depth - 1
        es[:] = s_es[k]
        other[:] = s_other[k]
        plen[:] = s_plen[k]
        sc[:] = s_sc[k]
        s_phase[k] = 1
        nodes += 1
        ok = _set_off(s_edge[k], es)
        last = -1
        if ok:
            ok = _propagate(es, other, plen, sc, ea, eb, clue, inc, far, lines, line_start)
        if ok and sc[1] == 0:
            ok = _connected(es, clue, inc, ea, eb)
    regs[R_DEPTH] = depth
    regs[R_LAST] = last
    regs[R_OK] = 1 if ok else 0
    regs[R_COUNT] = count
    regs[R_NODES] = nodes
    return code


def new_state(ncell, nedge, want, max_depth):
    """The arrays of a search at its start: (state, stack, sols, regs) for :func:`search`."""
    state = (
        np.full(nedge, UNKNOWN, dtype=np.int8),
        np.arange(ncell).astype(np.int32),
        np.zeros(ncell, dtype=np.int32),
        np.zeros(2, dtype=np.int32),
    )
    stack = (
        np.empty((max_depth, nedge), dtype=np.int8),
        np.empty((max_depth, ncell), dtype=np.int32),
        np.empty((max_depth, ncell), dtype=np.int32),
        np.empty((max_depth, 2), dtype=np.int32),
        np.empty(max_depth, dtype=np.int32),
        np.empty(max_depth, dtype=np.int32),
    )
    return state, stack, np.zeros((max(want, 1), nedge), dtype=np.int8), np.zeros(REGISTERS, dtype=np.int64)
