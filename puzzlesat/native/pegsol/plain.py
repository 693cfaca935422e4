"""The depth-first search of native/pegsol/kernel.py in plain Python, for the first nodes of a search.

Compiling the search kernel costs seconds on a fresh install, and loading it from the cache
about half a second (numba's import included); the English central game is solved in about
17,000 nodes, which Python searches in a fraction of that.  :class:`Search` runs the kernel's
``search`` on the wrapper's arrays and leaves them as the kernel would (same nodes, same
boards, pending jumps, dead-position table and counters), so a search starts here and goes
on in the kernel where this one stopped.  A position is one Python int (bit ``i`` = cell
``i`` of the bounding box) instead of two words.  It serves the first searches only: no
pagoda cuts and no meet in the middle (the wrapper adds those after far more nodes), and the
table keeps its first size (the wrapper hands over before it grows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND

if TYPE_CHECKING:
    from puzzlesat.native.pegsol.arrays import Game, Tree

_M64 = (1 << 64) - 1
_MUL_LO = 0x9E3779B97F4A7C15
_MUL_HI = 0xC2B2AE3D27D4EB4F
_USED = 1 << 63
_WORK_SHIFT = 56
_NOT_WORK = _M64 ^ (127 << _WORK_SHIFT)


class Search:
    """The kernel's constants as Python ints, and its dead-position table as a list.

    Args:
        game: the kernel's :class:`~puzzlesat.native.pegsol.arrays.Game`.
        share: ``[k, n]``: the first jumps whose code is k modulo n.
        table: the kernel's table (read here once; :meth:`flush` writes it back).
    """

    def __init__(self, game: Game, share: Any, table: Any) -> None:
        self.chunks = int(game.chunks)
        self.full = int(game.full[0]) | int(game.full[1]) << 64
        self.steps = [int(s) for s in game.steps]
        self.from_masks = [int(lo) | int(hi) << 64 for lo, hi in game.from_masks.tolist()]
        self.jump_masks = [int(lo) | int(hi) << 64 for lo, hi in game.jump_masks.tolist()]
        self.goal = int(game.goal_lo) | int(game.goal_hi) << 64
        self.depth = int(game.depth_goal)
        self.sym_depth = int(game.sym_depth)
        self.share = (int(share[0]), int(share[1]))
        sym_tables = game.sym_tables
        # all the images of a byte at once: lane s (128 bits) of packed[i][v] is the image
        # under symmetry s of byte value v at byte position i
        count = sym_tables.shape[0]
        self.lanes = count
        packed = [[0] * 256 for _ in range(self.chunks)]
        words = sym_tables.tolist()
        for s in range(count):
            for i in range(self.chunks):
                row = packed[i]
                for v, (lo, hi) in enumerate(words[s][i]):
                    row[v] |= (lo | hi << 64) << (128 * s)
        self.packed = packed
        self.table = table.tolist()
        self.mask = len(self.table) // 2 - 1

    def canonical(self, p: int) -> int:
        """The least image of a position (the kernel's order: high word first, i.e. as an int)."""
        if not self.lanes:
            return p
        images = 0
        rest = p
        for row in self.packed:
            images |= row[rest & 255]
            rest >>= 8
        best = p
        lane = (1 << 128) - 1
        for _ in range(self.lanes):
            image = images & lane
            if image < best:
                best = image
            images >>= 128
        return best

    def _bucket(self, p: int) -> int:
        """The first word of the position's 4-slot bucket (the kernel's hash)."""
        h = ((p & _M64) * _MUL_LO & _M64) ^ ((p >> 64) * _MUL_HI & _M64)
        h ^= h >> 29
        h = h * _MUL_LO & _M64
        return ((h >> 29) & self.mask & ~3) * 2

    def find(self, p: int) -> bool:
        """Whether the table holds a position."""
        table = self.table
        lo = p & _M64
        h = (lo * _MUL_LO & _M64) ^ ((p >> 64) * _MUL_HI & _M64)  # _bucket, inlined: the hot call
        h ^= h >> 29
        base = ((h * _MUL_LO & _M64) >> 29 & self.mask & ~3) * 2
        tag = (p >> 64) | _USED
        for k in range(base, base + 8, 2):
            if table[k + 1] & _NOT_WORK == tag and table[k] == lo:
                return True
        return False

    def insert(self, p: int, work: int) -> int:
        """The kernel's ``insert``; returns 1 when the position took an empty slot."""
        table = self.table
        base = self._bucket(p)
        lo, hi = p & _M64, p >> 64
        tagged = hi | _USED | work << _WORK_SHIFT
        least = base
        least_work = 256
        for k in range(base, base + 8, 2):
            word = table[k + 1]
            if word == 0:
                table[k] = lo
                table[k + 1] = tagged
                return 1
            if word & ((1 << _WORK_SHIFT) - 1) == hi and table[k] == lo:
                if word >> _WORK_SHIFT & 127 < work:
                    table[k + 1] = tagged
                return 0
            held = word >> _WORK_SHIFT & 127
            if held < least_work:
                least_work = held
                least = k
        table[least] = lo
        table[least + 1] = tagged
        return 0

    def generate(self, p: int) -> list[int]:
        """The jumping pegs of each direction (one int each)."""
        empty = self.full & ~p
        (n, e, s, w), (mn, me, ms, mw) = self.steps, self.from_masks  # steps: -W, 1, W, -1
        return [
            p & p << -n & empty << -2 * n & mn,
            p & p >> e & empty >> 2 * e & me,
            p & p >> s & empty >> 2 * s & ms,
            p & p << -w & empty << -2 * w & mw,
        ]

    def flush(self, table: Any) -> None:
        """Write the table back into the kernel's array."""
        table[:] = self.table

    def run(self, tree: Tree, budget: int, order: Any) -> tuple[int, int]:
        """The kernel's ``search`` (no pagodas, no meeting depth) on the wrapper's search state (updated in place).

        Returns:
            (status, nodes), as the kernel returns them.
        """
        scan = int(order[0])
        directions = [int(x) for x in order[1:5]]
        rank = order[5:].tolist()
        depth_goal, sym_depth, share_k, share_n = self.depth, self.sym_depth, self.share[0], self.share[1]
        jump_masks, canonical, find, generate = self.jump_masks, self.canonical, self.find, self.generate
        board, moves, entered, chosen, state = tree.board, tree.moves, tree.entered, tree.chosen, tree.state
        rows = board.tolist()
        boards = [lo | hi << 64 for lo, hi in rows]
        pending = [[row[2 * k] | row[2 * k + 1] << 64 for k in range(4)] for row in moves.tolist()]
        enter = entered.tolist()
        picks = chosen.tolist()
        d, entries, before = (int(x) for x in state)
        nodes = 0
        if d < 0:
            d = 0
            pending[0] = generate(boards[0])
            enter[0] = before
        while True:
            if nodes >= budget:
                status = BUDGET
                break
            p = boards[d]
            if d == depth_goal:
                if p == self.goal:
                    status = FOUND
                    break
                d -= 1
                continue
            jumps = pending[d]
            union = jumps[0] | jumps[1] | jumps[2] | jumps[3]
            if not union:
                work = (before + nodes - enter[d] + 1).bit_length()
                entries += self.insert(canonical(p) if d <= sym_depth else p, work)
                d -= 1
                if d < 0:
                    status = EXHAUSTED
                    break
                continue
            if scan == 2:
                cell, best, x = -1, 1 << 40, union
                while x:
                    low = x & -x
                    c = low.bit_length() - 1
                    x ^= low
                    if rank[c] < best:
                        best, cell = rank[c], c
            elif scan == 1:
                cell = union.bit_length() - 1
            else:
                cell = (union & -union).bit_length() - 1
            bit = 1 << cell
            direction = 0
            for direction in directions:
                if jumps[direction] & bit:
                    break
            jumps[direction] ^= bit
            if d == 0 and (cell * 4 + direction) % share_n != share_k:
                continue
            child = p ^ jump_masks[direction * 128 + cell]
            if find(canonical(child) if d + 1 <= sym_depth else child):
                continue
            picks[d] = cell * 4 + direction
            nodes += 1
            d += 1
            boards[d] = child
            enter[d] = before + nodes
            if d < depth_goal:
                pending[d] = generate(child)
        board[:] = [(b & _M64, b >> 64) for b in boards]
        moves[:] = [[w for j in row for w in (j & _M64, j >> 64)] for row in pending]
        entered[:] = enter
        chosen[:] = picks
        state[:] = (d, entries, before + nodes)
        return status, nodes
