"""The arrays the cube's IDA* kernels take, in bundles (native/rubik/kernels.py, native/rubik/phase1_kernel.py).

numba takes a NamedTuple of arrays as one argument, so the searchers (native/rubik/ida.py)
build these once per search and every call names a few bundles instead of some twenty
arrays.  A kernel reads the arrays out of them once a call; its helpers that run at every
node take plain tuples built once a call, or are inlined.

numba pickles a bundle's class, by module and name, into the cache index of each kernel that
takes it, and an index naming a class that is gone fails the call instead of recompiling
(numba issue 6018): moving or renaming one of these classes calls for clearing numba's caches
of those kernels (the ``*.nbi`` files).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Codes(NamedTuple):
    """A cube as cubie codes: for each corner ``position * 3 + twist``, each edge ``position * 2 + flip``."""

    corners: np.ndarray  # (8,)
    edges: np.ndarray  # (12,)


class Turns(NamedTuple):
    """The moves of a metric on cubie codes, and the canonical-sequence automaton of a search."""

    ctab: np.ndarray  # (M, 24): a corner code's new code under each move
    etab: np.ndarray  # (M, 24): an edge code's
    next_state: np.ndarray  # (S, M): the automaton's next state; -1 forbids the move


class Pdbs(NamedTuple):
    """Korf's pattern databases and how they are looked up (native/rubik/tables.py)."""

    specs: np.ndarray  # (P, 6): per PDB, kind (0 corners, 1 edges), k, n, mod, kor, offset in ``table``
    tracked: np.ndarray  # (P, 12): per PDB, the cubies it tracks
    table: np.ndarray  # the distances, 4 bits each
    dual: bool  # also look the inverse cube up (its distance is the same)
    sym_pdb: np.ndarray  # (L,): per extra lookup on a rotated cube, the edge PDB it reads
    sym_pre: np.ndarray  # (L, 12): the cube's edge that lands on each tracked edge
    sym_code: np.ndarray  # (L, 12, 24): that edge's code, rotated


class Root(NamedTuple):
    """The position a phase-1 search starts from."""

    axes: np.ndarray  # (3, 4): twist, flip, slice and phase-1 distance on each axis (UD, RL, FB)
    corner: int  # the corner permutation
    corner_dist: int  # its corner distance
    codes: np.ndarray  # (20,): the 8 corner and 12 edge codes (for the inverse)


class Phase1Arrays(NamedTuple):
    """What the phase-1 search reads of the tables (native/rubik/phase1.py ``Phase1Tables``)."""

    twist_mv: np.ndarray  # (N, M) move tables
    flip_mv: np.ndarray
    slice_mv: np.ndarray
    corner_mv: np.ndarray
    clsym: np.ndarray  # flipslice -> class << 4 | symmetry
    twist_conj: np.ndarray  # (2187, 16)
    phase1: np.ndarray  # the phase-1 distances, 4 bits each, or 2 above ``base``
    corners: np.ndarray  # exact corner distances, index corners * 2187 + twist
    axis_moves: np.ndarray  # (3, M): the move as seen on each axis
    inverse: np.ndarray  # the inverse cube's per-cubie tables
    inverse_below: int  # the inverse cube is looked up where 0 < moves left < this
    base: int  # the 2-bit table's base, -1 for 4 bits
