"""The arrays the peg-solitaire search kernel takes (native/pegsol/kernel.py), in three bundles.

numba takes a NamedTuple of arrays as one argument, so the wrapper (native/pegsol/dfs.py) builds
these once per search and every call names three bundles instead of some twenty arrays.  The
kernel reads the arrays out of them once a call: a bundle handed on at every node would cost
a reference count per array.

numba pickles a bundle's class, by module and name, into the cache index of each kernel that
takes it, and an index naming a class that is gone fails the call instead of recompiling
(numba issue 6018): moving or renaming one of these classes calls for clearing numba's caches
of those kernels (the ``*.nbi`` files).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Game(NamedTuple):
    """What the search never changes: the board's bit layout, the goal, the symmetries."""

    chunks: int  # bytes a position spans
    full: np.ndarray  # the board's cells (two words)
    steps: np.ndarray  # per direction (N, E, S, W), its step in bits
    from_masks: np.ndarray  # per direction, the cells a jump that way may start from (two words)
    jump_masks: np.ndarray  # per direction * 128 + cell, the from, over and to bits of that jump
    goal_lo: np.uint64  # the goal position
    goal_hi: np.uint64
    depth_goal: int  # jumps in every solution
    sym_tables: np.ndarray  # [S, 16, 256, 2]: the symmetries that fix the goal (identity left out)
    sym_depth: int  # positions at most this deep are keyed by their canonical form


class Tree(NamedTuple):
    """The search's state along the current line of play, and its table of dead positions."""

    board: np.ndarray  # [depth, 2]: the position at each depth ([0] = start)
    moves: np.ndarray  # [depth, 8]: the jumps not yet tried at each depth, two words per direction
    pagoda: np.ndarray  # [depth, K]: each pagoda's value of the position at each depth
    entered: np.ndarray  # per depth, the node count when the search entered it
    chosen: np.ndarray  # per depth, the jump played, as cell * 4 + direction
    state: np.ndarray  # [depth, table entries, nodes so far]; depth -1 starts at the root
    table: np.ndarray  # the dead positions, slots a power of 2, >= 4


class Cuts(NamedTuple):
    """The cuts beyond the table: pagodas, the meet in the middle, this search's share of the tree."""

    weights: np.ndarray  # [K, 128] integer pagoda weights per cell (K may be 0)
    goal_values: np.ndarray  # each pagoda's value on the goal
    meet_depth: int  # -1 for no meet in the middle
    endgame: np.ndarray  # the exact set of positions that win from ``meet_depth``
    share: np.ndarray  # [k, n]: the first jumps whose code is k modulo n
