"""Move tables, canonical-sequence automata and cached pattern databases for the cube.

Table sets (all 4-bit, one array per metric and set):

- ``full``: Korf's corner PDB (8 corners with twist: 8! * 3^7 = 88,179,840 entries) and two
  6-edge PDBs (edges UR..DF and DL..BR with flip: 12!/6! * 2^6 = 42,577,920 entries each);
  86.7 MB per metric.
- ``small``: two 4-corner PDBs (136,080 entries each) and three 4-edge PDBs (190,080 each);
  built in a second or two, for tests and shallow positions.

Tables are built on first use (progress reported, :mod:`puzzlesat.core.progress`) and kept in
the cache folder like every set of the cube (:mod:`.cache`: one lock, resumable builds, digests
and stamps checked when loaded, rebuilt if damaged).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlesat.core import progress
from puzzlesat.core.cache import cache_dir
from puzzlesat.domains.rubik import Cube, move_cubes
from puzzlesat.native.rubik.symmetry import rotations
from puzzlesat.native.table_build import BuildStopped, Progress, Workspace

VERSION = 2  # 1: a note with the digest alone, no stamps, no lock
TABLE_SETS: dict[str, tuple[tuple[int, tuple[int, ...]], ...]] = {
    # (kind 0 = corners / 1 = edges, tracked cubies)
    "full": ((0, tuple(range(8))), (1, (0, 1, 2, 3, 4, 5)), (1, (6, 7, 8, 9, 10, 11))),
    "small": ((0, (0, 1, 2, 3)), (0, (4, 5, 6, 7)), (1, (0, 1, 2, 3)), (1, (4, 5, 6, 7)), (1, (8, 9, 10, 11))),
}


@dataclass
class MoveSet:
    """The moves of one metric as position tables, with the canonical-sequence automaton.

    Attributes:
        metric: ``htm`` (18 moves, face*3 + turns-1) or ``qtm`` (12, face*2 + (0 cw, 1 ccw)).
        cdest, cadd, edest, eadd: where a move sends the cubie at each position, and the
            orientation it adds.
        ctab, etab: the same on codes ``position * mod + orientation`` (0..23).
        next_state: ``(S, M)``; state 0 is the start, -1 forbids the move.
        moves: ``(face, turns)`` of each move index.
    """

    metric: str
    cdest: np.ndarray
    cadd: np.ndarray
    edest: np.ndarray
    eadd: np.ndarray
    ctab: np.ndarray
    etab: np.ndarray
    next_state: np.ndarray
    moves: tuple[tuple[int, int], ...]


def move_set(metric: str) -> MoveSet:
    """Build the move tables of a metric (cheap: 18 cubes).

    HTM sequences are canonical when no face turns twice in a row and opposite faces turn
    in the order U before D, R before L, F before B.  QTM adds: a face may turn twice in a
    row only as ``X X`` (a half turn), never ``X' X'`` or three times.
    """
    if metric == "htm":
        moves = tuple((f, t) for f in range(6) for t in (1, 2, 3))
    else:
        moves = tuple((f, t) for f in range(6) for t in (1, 3))
    nm = len(moves)
    cdest = np.zeros((nm, 8), np.int64)
    cadd = np.zeros((nm, 8), np.int64)
    edest = np.zeros((nm, 12), np.int64)
    eadd = np.zeros((nm, 12), np.int64)
    for m, (face, turns) in enumerate(moves):
        cube = move_cubes()[face * 3 + turns - 1]
        for i in range(8):
            cdest[m, cube.cp[i]] = i
            cadd[m, cube.cp[i]] = cube.co[i]
        for i in range(12):
            edest[m, cube.ep[i]] = i
            eadd[m, cube.ep[i]] = cube.eo[i]
    # states: 0 start, 1 + m after move m, and for QTM 1 + nm + m after the pair m m
    states = 1 + nm * (2 if metric == "qtm" else 1)
    next_state = np.full((states, nm), -1, np.int64)
    for s in range(states):
        last = None if s == 0 else (s - 1) % nm
        doubled = s > nm
        for m, (face, turns) in enumerate(moves):
            if last is None:
                next_state[s, m] = 1 + m
                continue
            lface, lturns = moves[last]
            if face == lface - 3:
                continue
            if face == lface:
                if metric == "qtm" and not doubled and lturns == 1 and turns == 1:
                    next_state[s, m] = 1 + nm + m
                continue
            next_state[s, m] = 1 + m
    ctab = np.zeros((nm, 24), np.int64)
    etab = np.zeros((nm, 24), np.int64)
    for m in range(nm):
        for code in range(24):
            p, o = divmod(code, 3)
            ctab[m, code] = cdest[m, p] * 3 + (o + cadd[m, p]) % 3 if p < 8 else code
            p, o = divmod(code, 2)
            etab[m, code] = edest[m, p] * 2 + (o + eadd[m, p]) % 2
    return MoveSet(metric, cdest, cadd, edest, eadd, ctab, etab, next_state, moves)


def symmetric_lookups(name: str, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Extra edge-PDB lookups on conjugated cubes, chosen so their edge sets overlap little.

    Returns:
        ``(sym_pdb, sym_pre, sym_code)`` for :func:`.kernels.heuristic`.
    """
    edge_pdbs = [j for j, (kind, _) in enumerate(TABLE_SETS[name]) if kind == 1]
    chosen: list[tuple[int, Cube]] = []
    covered = [frozenset(TABLE_SETS[name][j][1]) for j in edge_pdbs]
    candidates = [(j, s) for s in rotations()[1:] for j in edge_pdbs]
    while len(chosen) < count and candidates:

        def overlap(item: tuple[int, Cube]) -> tuple[int, int]:
            j, s = item
            cubies = frozenset(s.ep[e] for e in TABLE_SETS[name][j][1])
            return max(len(cubies & c) for c in covered), -j

        candidates.sort(key=overlap)
        j, s = candidates.pop(0)
        cubies = frozenset(s.ep[e] for e in TABLE_SETS[name][j][1])
        if cubies in covered:
            continue
        covered.append(cubies)
        chosen.append((j, s))
    sym_pdb = np.array([j for j, _ in chosen], np.int64)
    sym_pre = np.zeros((len(chosen), 12), np.int64)
    sym_code = np.zeros((len(chosen), 12, 24), np.int64)
    for lk, (_, s) in enumerate(chosen):
        inv = s.inverse()
        for e2 in range(12):
            sym_pre[lk, e2] = s.ep[e2]
        for e in range(12):
            for p in range(12):
                i = inv.ep[p]
                for o in range(2):
                    sym_code[lk, e, 2 * p + o] = 2 * i + (o + inv.eo[e] + s.eo[i]) % 2
    return sym_pdb, sym_pre, sym_code


@dataclass
class Tables:
    """A set of PDBs in one nibble array, with the specs the kernels read."""

    name: str
    metric: str
    specs: np.ndarray
    tracked: np.ndarray
    table: np.ndarray
    build_seconds: float = 0.0
    loaded_from: str = ""

    @property
    def nbytes(self) -> int:
        """Size of the table array."""
        return int(self.table.nbytes)


def _specs(name: str) -> tuple[np.ndarray, np.ndarray, int]:
    rows = []
    tracked = np.zeros((len(TABLE_SETS[name]), 12), np.int64)
    offset = 0
    for j, (kind, cubies) in enumerate(TABLE_SETS[name]):
        n, mod = (8, 3) if kind == 0 else (12, 2)
        k = len(cubies)
        kor = k - 1 if k == n else k
        size = math.perm(n, k) * mod**kor
        rows.append((kind, k, n, mod, kor, offset))
        tracked[j, :k] = cubies
        offset += size + (size & 1)
    return np.array(rows, np.int64), tracked, offset


MAPPED: tuple[str, ...] = ()  # arrays mapped from their files when loaded (the others are read whole)
NOTE_NEEDS: tuple[str, ...] = ()  # what a set's note holds besides its digests and build time


def file_keys(name: str) -> tuple[str, ...]:
    """The arrays of a set kept in the cache (:mod:`.cache`)."""
    return ("table",)


def build(
    name: str, metric: str, ws: Workspace, quiet: bool = False, stop_at: float | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Build a table set by breadth-first search from the solved cube, one level at a time on
    every core (:mod:`.pdb_build`), in the work folder ``ws`` (a stopped build goes on from its last kept level).

    Raises :class:`BuildStopped` once ``stop_at`` (a :func:`time.monotonic` time) has passed,
    after keeping the work done."""
    from puzzlesat.native.rubik import kernels as k
    from puzzlesat.native.rubik.pdb_build import bfs_level

    specs, tracked, total = _specs(name)
    ms = move_set(metric)
    table = ws.array("table", (total + 1) // 2, np.uint8, 0xFF)
    solved_c = np.arange(8, dtype=np.int64)
    solved_e = np.arange(12, dtype=np.int64)
    zeros8 = np.zeros(8, np.int64)
    zeros12 = np.zeros(12, np.int64)
    sizes = [math.perm(int(r[2]), int(r[1])) * int(r[3]) ** int(r[4]) for r in specs]
    grand = sum(sizes)
    label = f"c building rubik {metric} {name} tables"
    first, depth0 = ws.state.get("level", (0, 0))
    bar = Progress(label, quiet, sum(sizes[:first]) / grand)
    if not quiet:
        again = "resuming the build of" if ws.resumed else "building"
        progress.line(f"c {again} the rubik {metric} {name} tables (once; kept in {cache_dir()})")
    for j in range(first, len(specs)):
        kind, kk, n, mod, kor, offset = (int(x) for x in specs[j])
        size = sizes[j]
        depth = depth0 if j == first else 0
        if depth == 0:
            pos, ori = (solved_c, zeros8) if kind == 0 else (solved_e, zeros12)
            k._set_nibble(table, offset + k.pdb_index(pos, ori, tracked[j], kk, n, mod, kor), 0)
        part = table[offset // 2 : (offset + size + 1) // 2]  # (offsets are even)
        nibbles = np.concatenate((part & 15, part >> 4))
        filled = int(np.count_nonzero(nibbles != 15))
        deepest = int(nibbles[nibbles != 15].max())  # a kept table may be levels ahead of its note
        del nibbles
        dest, add = (ms.cdest, ms.cadd) if kind == 0 else (ms.edest, ms.eadd)
        while filled < size:
            backward = filled > size // 2
            found = bfs_level(table, offset, size, depth, tracked[j], kk, n, mod, kor, dest, add, backward)
            if found == 0 and depth >= deepest:
                break
            filled += found
            depth += 1
            ws.state["level"] = (j, depth)
            ws.state["share"] = (sum(sizes[:j]) + filled) / grand
            bar.update((sum(sizes[:j]) + filled) / grand, f"pdb {j + 1}/{len(specs)} depth {depth}")
            if stop_at is not None and time.monotonic() >= stop_at:
                ws.keep()
                bar.close()
                raise BuildStopped(f"the rubik {name} tables", bar.share)
            if ws.due():
                ws.keep()
        ws.state["level"] = (j + 1, 0)
    bar.update(1.0, "built", force=True)  # the bar ends full, however fast the levels came
    bar.close()
    return {"table": table}, {}


def assemble(name: str, metric: str, arrays: dict[str, np.ndarray], meta: dict[str, Any], loaded_from: str) -> Tables:
    """The set's :class:`Tables` from its arrays and note (:mod:`.cache` reads them)."""
    specs, tracked, _ = _specs(name)
    return Tables(name, metric, specs, tracked, arrays["table"], float(meta["build_seconds"]), loaded_from)


def describe(tables: Tables) -> dict[str, Any]:
    """Size and origin of a table set, for stats."""
    return {
        "tables": tables.name,
        "table_mb": round(tables.nbytes / 1e6, 1),
        "table_build_s": round(tables.build_seconds, 1),
    }
