"""Two plain searches on the domain: a breadth-first optimum for small boards, and randomized greedy answers."""

from __future__ import annotations

import random

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.blacken.instance import BLACK, DIRECTIONS, EMPTY, WHITE, Board, Cell, Instance

# the positions breadth-first search may hold (a few hundred MB of Python bytes objects)
BFS_POSITIONS = 2_000_000


def bfs_optimum(instance: Instance, max_states: int = BFS_POSITIONS) -> tuple[Cell, ...] | None:
    """A shortest answer by breadth-first search over positions: the reference for tests.

    Returns:
        The moves, or None when the search passed ``max_states`` positions first.

    Raises:
        InvalidInstanceError: no sequence of moves turns every stone black.
    """
    k = instance.size
    start = bytearray(k * k)
    for r, c in instance.whites:
        start[r * k + c] = WHITE
    if WHITE not in start:
        return ()
    steps = list(DIRECTIONS)

    def inside(r: int, c: int) -> bool:
        return 0 <= r < k and 0 <= c < k

    parent: dict[bytes, tuple[bytes, int] | None] = {bytes(start): None}
    frontier = [bytes(start)]
    while frontier:
        following = []
        for state in frontier:
            cells: set[int] = set()
            for i, v in enumerate(state):
                if v == WHITE:
                    r, c = divmod(i, k)
                    cells.update(
                        (r + dr) * k + c + dc
                        for dr, dc in steps
                        if inside(r + dr, c + dc) and state[(r + dr) * k + c + dc] == EMPTY
                    )
            for move in sorted(cells):
                child = bytearray(state)
                child[move] = BLACK
                r0, c0 = divmod(move, k)
                for dr, dc in steps:
                    r, c, run = r0 + dr, c0 + dc, []
                    while inside(r, c) and state[r * k + c] == WHITE:
                        run.append(r * k + c)
                        r, c = r + dr, c + dc
                    if run and inside(r, c) and state[r * k + c] == BLACK:
                        for i in run:
                            child[i] = BLACK
                key = bytes(child)
                if key in parent:
                    continue
                parent[key] = (state, move)
                if WHITE not in child:
                    path = []
                    link = parent[key]
                    while link is not None:
                        path.append(divmod(link[1], k))
                        link = parent[link[0]]
                    return tuple(path[::-1])
                following.append(key)
                if len(parent) > max_states:
                    return None
        frontier = following
    raise InvalidInstanceError("no sequence of moves turns every stone black")


def greedy(instance: Instance, seed: int = 0, tries: int = 20) -> tuple[Cell, ...] | None:
    """A quick answer: play the move flipping most (ties at random), best of ``tries`` runs."""
    rng = random.Random(seed)
    best: tuple[Cell, ...] | None = None
    for attempt in range(tries):
        board = Board(instance)
        moves: list[Cell] = []
        while board.whites_left:
            legal = board.legal_moves()
            if not legal or (best is not None and len(moves) >= len(best)):
                break
            scored = [(len(board.flips(m)), rng.random() if attempt else 0.0, m) for m in legal]
            move = max(scored)[2]
            board.push(move)
            moves.append(move)
        if board.whites_left == 0 and (best is None or len(moves) < len(best)):
            best = tuple(moves)
    return best
