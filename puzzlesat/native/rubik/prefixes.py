"""Symmetric cubes: one prefix per symmetry class, and the automaton that lets the search
below a prefix go on with any shortest solution (:class:`PrefixReduction`)."""

from __future__ import annotations

import numpy as np

from puzzlesat.domains.rubik import Cube, move_cubes
from puzzlesat.native.rubik.symmetry import Symmetry, all_symmetries, move_index
from puzzlesat.native.rubik.tables import MoveSet


class PrefixReduction:
    """The first moves to search for a cube that some symmetries fix (the superflip: all 48).

    A symmetry ``S`` that fixes the cube maps every solution to a solution of the same
    length, and the cube after prefix ``p`` to the cube after ``S(p)``: both are equally far
    from solved.  So of the prefixes whose positions (from solved) are images of each other,
    one is enough (:meth:`representatives`, the first in the list), provided the search
    below it may go on with any shortest solution of its position.  Such a solution may
    begin with a turn of the face opposite the prefix's last one in the order the canonical
    sequences forbid (``D`` then ``U``): :meth:`automaton` opens that junction.  Not used
    for ``--all`` (the images of each solution would be missing).
    """

    def __init__(self, syms: list[Symmetry], moveset: MoveSet):
        cubes = move_cubes()
        moves = moveset.moves
        self.moveset = moveset
        self.images = np.array([[move_index(s(cubes[f * 3 + t - 1]), moves) for f, t in moves] for s in syms], np.int64)
        self._automata: dict[int, np.ndarray] = {}  # prefix length -> automaton
        self._kept: dict[tuple[int, ...], np.ndarray] = {}  # rows' shape -> the rows kept

    @classmethod
    def of(cls, cube: Cube, moveset: MoveSet) -> PrefixReduction | None:
        """The reduction for ``cube``, or None when no symmetry but the identity fixes it."""
        syms = [s for s in all_symmetries() if s(cube) == cube]
        return cls(syms, moveset) if len(syms) > 1 else None

    def _positions(self, rows: np.ndarray) -> np.ndarray:
        """Each row's position from solved, packed into 16 bytes (5-bit cubie codes)."""
        corners = np.broadcast_to(np.arange(8) * 3, (len(rows), 8)).copy()
        edges = np.broadcast_to(np.arange(12) * 2, (len(rows), 12)).copy()
        ms = self.moveset
        for j in range(rows.shape[1]):
            corners = ms.ctab[rows[:, j, None], corners]
            edges = ms.etab[rows[:, j, None], edges]
        packed = np.zeros((len(rows), 2), np.int64)
        for c in range(8):
            packed[:, 0] |= corners[:, c] << (5 * c)
        for e in range(12):
            packed[:, 1] |= edges[:, e] << (5 * e)
        return packed.view(np.dtype((np.void, 16))).ravel()

    def representatives(self, rows: np.ndarray) -> np.ndarray:
        """The rows (canonical prefixes of one length) to search: of each class of rows whose
        positions are images of each other under the symmetries, the first."""
        if rows.shape[1] == 0:
            return rows
        key = rows.shape
        if key not in self._kept:
            self._kept[key] = self._representatives(rows)
        return rows[self._kept[key]]

    def _representatives(self, rows: np.ndarray) -> np.ndarray:
        n = len(rows)
        keys = np.concatenate([self._positions(rows)] + [self._positions(im[rows]) for im in self.images])
        _, ids = np.unique(keys, return_inverse=True)
        first = np.full(ids.max() + 1, n, np.int64)
        np.minimum.at(first, ids[:n], np.arange(n))
        # a row's class: the first row at any image of its position (each image has a row)
        rep = first[ids.reshape(-1, n)].min(axis=0)
        return np.flatnonzero(rep == np.arange(n))

    def automaton(self, plen: int) -> np.ndarray:
        """The canonical automaton (``next_state``, state 0 the start) with the states of
        the first ``plen`` moves copied, so that right after them a turn of the face
        opposite the last one is allowed in either order."""
        if plen not in self._automata:
            self._automata[plen] = _junction_automaton(self.moveset.next_state, self.moveset.moves, plen)
        return self._automata[plen]


def _junction_automaton(next_state: np.ndarray, moves: tuple[tuple[int, int], ...], plen: int) -> np.ndarray:
    """See :meth:`PrefixReduction.automaton`.  States: 0 the start; ``(k, s)`` for state ``s``
    after ``k < plen`` moves; the open junction ``J(s)``; then the original states."""
    if plen == 0:
        return next_state
    n_states, nm = next_state.shape
    inner = 1 + (plen - 1) * (n_states - 1) + (n_states - 1)  # the original state s is inner + s - 1

    def prefix_state(k: int, s: int) -> int:  # the state after k moves (1 <= k <= plen) in state s
        if k == plen:
            return 1 + (plen - 1) * (n_states - 1) + s - 1  # J(s)
        return 1 + (k - 1) * (n_states - 1) + s - 1

    out = np.full((inner + n_states - 1, nm), -1, np.int64)
    for m in range(nm):
        if next_state[0, m] >= 0:
            out[0, m] = prefix_state(1, next_state[0, m])
    for s in range(1, n_states):
        last_face = moves[(s - 1) % nm][0]
        for m in range(nm):
            t = next_state[s, m]
            for k in range(1, plen):
                if t >= 0:
                    out[prefix_state(k, s), m] = prefix_state(k + 1, t)
            if t < 0 and moves[m][0] == last_face - 3:  # the opposite face, in the forbidden order
                t = 1 + m
            if t >= 0:
                out[prefix_state(plen, s), m] = inner + t - 1
            if next_state[s, m] >= 0:
                out[inner + s - 1, m] = inner + next_state[s, m] - 1
    return out
