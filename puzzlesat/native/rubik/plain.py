"""The cube's plain path: optimal solutions of short scrambles by bidirectional breadth-first search in numpy.

On a fresh install the IDA* (:mod:`puzzlesat.native.rubik.ida`) first compiles its numba kernels
(about 10 s) and builds its smallest tables (about 1 s); a scramble of a few moves needs
neither.  This search expands, a whole level at a time, every canonical move sequence (the
IDA*'s automaton, :func:`rubik_tables.move_set`: no face twice in a row, opposite faces in
one order, in QTM a half turn as ``X X``) from the position (forward) and from the solved
cube (backward).  A level is one row of 24 bytes per sequence: the code of each corner
(``position * 3 + twist``) and edge (``24 + position * 2 + flip``) and 4 bytes of padding,
so that a move is one table lookup on the whole level and a row is three 64-bit words.
Levels are not deduplicated (canonical sequences reach few positions twice: 43,254
sequences of 4 moves reach 43,239 positions), and keeping every sequence makes the search
complete, as follows.

The position after the canonical sequence ``a`` from the scramble equals the position after
the canonical ``t`` from solved exactly when ``a`` followed by ``t`` inverted solves the
cube.  Lengths ``L`` are tried from 0 up (in QTM those of the corner permutation's parity),
forward level ``ceil(L / 2)`` against backward level ``floor(L / 2)``: each level sorted
once by its rows' middle word, the forward words looked up among the backward ones with
``searchsorted``, the other two words compared.  A canonical solution of length ``L`` is
always met that way (its first ``ceil(L / 2)`` moves are a forward row, and the rest
inverted, in canonical form, a backward row), so the first length with a match is the
optimum, proven by the exhausted shorter ones as the IDA* proves it.  A match is rebuilt
from each level's parent and move columns and put in canonical form (:func:`canonical`);
``--all`` gets every canonical solution, as the IDA* finds them.

Costs (HTM, one core; QTM levels grow more slowly): level 4 holds 43,254 rows, level 5
577,368 (14 MB), and every length up to 10 is searched in 0.2 to 0.4 s (the figures:
docs/rubik.md); level 6 would hold 7.8 M rows.  The IDA* takes over beyond :data:`DEPTH`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlesat.domains.rubik import Cube, parity
from puzzlesat.native.rubik.tables import MoveSet, move_set

# the longest solutions searched here by default, per metric: levels 5 and 6 hold about as
# many rows (577,368 HTM, 878,880 QTM); the IDA* takes over beyond
DEPTH = {"htm": 10, "qtm": 12}
ROW = 24  # bytes of a row: 8 corner codes, 12 edge codes, padding
PAD = 48  # the padding bytes' value, which every move leaves alone


def row_of(cube: Cube) -> np.ndarray:
    """The cube's row: where each cubie is (see the module docstring)."""
    row = np.full(ROW, PAD, np.uint8)
    for i in range(8):
        row[cube.cp[i]] = 3 * i + cube.co[i]
    for i in range(12):
        row[8 + cube.ep[i]] = 24 + 2 * i + cube.eo[i]
    return row


def move_tables(moves: MoveSet) -> np.ndarray:
    """``[move, code]``: the code a cubie's code becomes under the move (corners, edges, padding)."""
    nm = len(moves.moves)
    table = np.full((nm, 256), PAD, np.uint8)
    table[:, :24] = moves.ctab
    table[:, 24:48] = moves.etab + 24
    return table


@dataclass
class Level:
    """The sequences of one length from one start: their rows, automaton states, and how each was reached."""

    rows: np.ndarray  # (n, ROW) uint8
    states: np.ndarray  # (n,) int8: the automaton's state after the sequence
    parent: np.ndarray  # (n,) int32: the row of the level before that it extends
    move: np.ndarray  # (n,) int8: its last move


@dataclass
class Sorted:
    """A level's rows as three 64-bit words each (corners, 8 edges, 4 edges and padding), and
    their order by the middle word."""

    words: np.ndarray  # (n, 3) uint64
    order: np.ndarray  # (n,) the rows by their middle word
    keys: np.ndarray  # (n,) the middle words in that order

    @classmethod
    def of(cls, level: Level) -> Sorted:
        """Sort a level."""
        words = level.rows.view(np.uint64)
        order = np.argsort(words[:, 1])
        return cls(words, order, words[order, 1])


@dataclass
class Tree:
    """Every canonical sequence from one start, level by level (:meth:`grow`)."""

    moves: MoveSet
    table: np.ndarray
    levels: list[Level] = field(default_factory=list)
    sorted_levels: dict[int, Sorted] = field(default_factory=dict)

    @classmethod
    def of(cls, cube: Cube, moves: MoveSet, table: np.ndarray) -> Tree:
        """Level 0: the cube itself."""
        root = Level(row_of(cube)[None, :], np.zeros(1, np.int8), np.full(1, -1, np.int32), np.full(1, -1, np.int8))
        return cls(moves, table, [root])

    def level(self, depth: int) -> Level:
        """The sequences of ``depth`` moves, grown as far as needed."""
        while len(self.levels) <= depth:
            self.levels.append(self.grow(self.levels[-1]))
        return self.levels[depth]

    def sorted_level(self, depth: int) -> Sorted:
        """Level ``depth``, sorted (once)."""
        if depth not in self.sorted_levels:
            self.sorted_levels[depth] = Sorted.of(self.level(depth))
        return self.sorted_levels[depth]

    def grow(self, last: Level) -> Level:
        """Every canonical one-move extension of the level's sequences."""
        allowed = self.moves.next_state[last.states]  # (n, moves): the state after each move, -1 if forbidden
        size = int(np.count_nonzero(allowed >= 0))
        out = Level(
            np.empty((size, ROW), np.uint8), np.empty(size, np.int8), np.empty(size, np.int32), np.empty(size, np.int8)
        )
        at = 0
        for m in range(allowed.shape[1]):
            parent = np.flatnonzero(allowed[:, m] >= 0)
            end = at + len(parent)
            out.rows[at:end] = self.table[m][last.rows[parent]]
            out.states[at:end] = allowed[parent, m]
            out.parent[at:end] = parent
            out.move[at:end] = m
            at = end
        return out

    def sequence(self, depth: int, index: int) -> list[int]:
        """The moves of row ``index`` of level ``depth``, first move first."""
        out = []
        for d in range(depth, 0, -1):
            level = self.levels[d]
            out.append(int(level.move[index]))
            index = int(level.parent[index])
        return out[::-1]


def meetings(forward: Sorted, backward: Sorted) -> np.ndarray:
    """The (forward, backward) row indices of the equal rows of two levels, as a (k, 2) array."""
    low = np.searchsorted(backward.keys, forward.keys, "left")
    high = np.searchsorted(backward.keys, forward.keys, "right")
    counts = high - low
    hit = np.flatnonzero(counts)
    if not len(hit):
        return np.zeros((0, 2), np.int64)
    counts = counts[hit]
    firsts = np.repeat(low[hit] - np.cumsum(counts) + counts, counts)  # each pair's range start, less its rank
    f = forward.order[np.repeat(hit, counts)]
    b = backward.order[firsts + np.arange(len(f))]
    fw, bw = forward.words, backward.words
    same = (fw[f, 0] == bw[b, 0]) & (fw[f, 2] == bw[b, 2])
    return np.stack([f[same], b[same]], axis=1)


def canonical(sequence: list[int], moves: MoveSet) -> tuple[int, ...] | None:
    """The sequence in canonical form: each run of turns about one axis sorted by face (they
    commute), and in QTM ``X' X'`` written ``X X``; None when it has none of its length (a face
    turns twice where one turn or, in QTM, ``X X`` would do)."""
    faces = [moves.moves[m][0] for m in sequence]
    clockwise = {face: m for m, (face, turns) in enumerate(moves.moves) if turns == 1}
    out: list[int] = []
    i = 0
    while i < len(sequence):
        j = i
        while j < len(sequence) and faces[j] % 3 == faces[i] % 3:
            j += 1
        for k in sorted(range(i, j), key=lambda k: faces[k]):
            m = sequence[k]
            if moves.metric == "qtm" and out and out[-1] == m and moves.moves[m][1] == 3:
                out[-1] = m = clockwise[faces[k]]
            out.append(m)
        i = j
    state = 0
    for m in out:
        state = int(moves.next_state[state, m])
        if state < 0:
            return None
    return tuple(out)


def inverse_moves(moves: MoveSet) -> list[int]:
    """For each move index, the index of the move that undoes it."""
    index = {mv: k for k, mv in enumerate(moves.moves)}
    return [index[(face, 4 - turns)] for face, turns in moves.moves]


@dataclass
class Outcome:
    """What the plain search settled.

    Attributes:
        found: the canonical solutions found, as move indices into ``moves``.
        best: the optimal length, or None when no solution is at most ``searched`` long.
        searched: every length up to this one was searched to the end.
        step: 1 in HTM, 2 in QTM (the lengths of one parity).
        moves: ``(face, turns)`` of each move index.
        rows: the rows generated, in both directions.
        seconds: the search's time.
    """

    found: list[tuple[int, ...]]
    best: int | None
    searched: int
    step: int
    moves: tuple[tuple[int, int], ...]
    rows: int
    seconds: float

    @property
    def next_length(self) -> int:
        """The shortest length not searched yet."""
        return self.searched + self.step

    def settles(self, extra: int, max_depth: int) -> bool:
        """Nothing is left for the IDA*: every length up to ``max_depth`` was searched, or
        every solution asked for (``extra`` moves longer than the optimum at most) found."""
        return self.next_length > max_depth or (self.best is not None and self.next_length > self.best + extra)

    def message(self, extra: int, max_depth: int) -> str:
        """Why the answer is not all that was asked for ("" when it is)."""
        if self.best is None and self.next_length > max_depth:
            return f"no solution within {max_depth} moves (--max-depth)"
        if self.best is None:
            return f"time limit during depth {self.next_length}; no solution shorter than {self.next_length}"
        if not self.settles(extra, max_depth):
            return "time limit or solution cap reached while collecting extra solutions"
        return ""

    def stats(self) -> dict[str, float | int | str]:
        """The search's statistics, as the IDA* reports its own (``path=plain``: no tables, nothing compiled)."""
        return {
            "path": "plain",
            "rows": self.rows,
            "lower_bound": self.next_length if self.best is None else self.best,
            "tables_s": 0.0,
            "compile_s": 0.0,
            "search_s": round(self.seconds, 3),
        }


def first(
    cube: Cube, metric: str, options: dict[str, Any], max_depth: int, extra: int, deadline: float | None
) -> Outcome:
    """The search the IDA* starts with: lengths up to ``plain_depth`` (default :data:`DEPTH`; 0:
    none) and ``max_depth``; ``extra`` -1 for one optimal solution (:func:`search`)."""
    given = options.get("plain_depth")
    depth = DEPTH[metric] if given is None else int(given) or -1
    return search(cube, metric, min(depth, max_depth), extra, deadline)


def search(cube: Cube, metric: str, depth: int, extra: int = -1, deadline: float | None = None) -> Outcome:
    """Search the lengths up to ``depth`` (the module docstring).

    Args:
        cube: the position.
        metric: ``htm`` or ``qtm``.
        depth: the longest solution looked for (below 0: none).
        extra: -1 for one optimal solution; else every canonical solution up to ``extra``
            moves longer than the optimum (0: every optimal one).
        deadline: stop before a length begun after this :func:`time.perf_counter` time.
    """
    start = time.perf_counter()
    moves = move_set(metric)
    table = move_tables(moves)
    undo = inverse_moves(moves)
    forward = Tree.of(cube, moves, table)
    backward = Tree.of(Cube.solved(), moves, table)
    step = 2 if metric == "qtm" else 1
    length = parity(cube.cp) if metric == "qtm" else 0
    found: set[tuple[int, ...]] = set()
    best: int | None = None
    searched = length - step
    while length <= depth and (best is None or length <= best + extra):
        if deadline is not None and time.perf_counter() > deadline:
            break
        ahead, behind = (length + 1) // 2, length // 2
        pairs = meetings(forward.sorted_level(ahead), backward.sorted_level(behind))
        for f, b in pairs.tolist():
            tail = [undo[m] for m in reversed(backward.sequence(behind, b))]
            solution = canonical(forward.sequence(ahead, f) + tail, moves)
            if solution is not None:
                found.add(solution)
                if extra < 0:
                    break
        searched = length
        if found and best is None:
            best = length
        if best is not None and extra < 0:
            break
        length += step
    rows = sum(len(level.move) for tree in (forward, backward) for level in tree.levels)
    solutions = sorted(found, key=lambda s: (len(s), s))
    return Outcome(solutions, best, searched, step, moves.moves, rows, time.perf_counter() - start)
