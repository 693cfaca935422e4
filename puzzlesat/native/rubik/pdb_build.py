"""One breadth-first level of a pattern database of Korf's sets (:mod:`.tables`), on every core.

The levels fill the 4-bit entries of one PDB (:mod:`.kernels` ranks them) from the solved
cube.  Forward, each entry at ``depth`` gives ``depth + 1`` to its empty neighbours, which
may be anywhere in the table, so each is claimed with a compare-and-swap
(:func:`puzzlesat.native.memory.claim_nibble`); backward (cheaper once most entries are
known), each empty entry takes ``depth + 1`` if a move leads to an entry at ``depth``, and
writes only its own byte.  Either way the table comes out the same in any order, so the
entries are cut into chunks run in parallel (numba's ``prange``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from puzzlesat.native.memory import claim_nibble
from puzzlesat.native.rubik.kernels import UNSEEN, _nibble, _set_nibble, pdb_index, pdb_unrank

CHUNKS = 256  # parallel tasks of one level (each an even number of entries: whole bytes)


@njit(cache=True, parallel=True)
def bfs_level(
    table: np.ndarray,
    offset: int,
    size: int,
    depth: int,
    tracked: np.ndarray,
    k: int,
    n: int,
    mod: int,
    kor: int,
    dest: np.ndarray,
    add: np.ndarray,
    backward: bool,
) -> int:
    """Fill the entries at ``depth + 1`` of the PDB of ``size`` entries from ``offset`` (even);
    how many were set.  The move set is closed under inverses, so both directions find the
    same entries."""
    moves = dest.shape[0]
    found = np.zeros(CHUNKS, np.int64)
    for q in prange(CHUNKS):
        pos = np.zeros(n, np.int64)
        ori = np.zeros(n, np.int64)
        npos = np.zeros(n, np.int64)
        nori = np.zeros(n, np.int64)
        new = 0
        lo = (q * size // CHUNKS) & ~1
        hi = size if q == CHUNKS - 1 else ((q + 1) * size // CHUNKS) & ~1
        for idx in range(lo, hi):
            value = _nibble(table, offset + idx)
            if backward:
                if value != UNSEEN:
                    continue
            elif value != depth:
                continue
            pdb_unrank(idx, tracked, k, n, mod, kor, pos, ori)
            for m in range(moves):
                for i in range(k):
                    c = tracked[i]
                    npos[c] = dest[m, pos[c]]
                    nori[c] = (ori[c] + add[m, pos[c]]) % mod
                nidx = pdb_index(npos, nori, tracked, k, n, mod, kor)
                if backward:
                    if _nibble(table, offset + nidx) == depth:
                        _set_nibble(table, offset + idx, depth + 1)  # this chunk's own byte
                        new += 1
                        break
                elif claim_nibble(table, offset + nidx, UNSEEN, depth + 1):
                    new += 1
        found[q] = new
    return found.sum()
