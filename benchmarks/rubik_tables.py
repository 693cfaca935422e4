"""Rubik's cube: what the phase-1 table sets hold, and what the corner parity would add.

Usage:
    python benchmarks/rubik_tables.py                          # phase1 and phase1x12, HTM
    python benchmarks/rubik_tables.py --metric qtm --tables phase1 phase1x6 --samples 0

For each table set: its entries (one per symmetry class and twist; a position's share is
about its class's, since few classes are symmetric), the share at each distance and the mean.
A 2-bit set stores its distances above a base only (``rubik_phase1.pack2``).

Then, for the first set with exact (4-bit) entries, the corner permutation's parity: a
table over the phase-1 coordinate and that parity (twice the entries) would read one move
more where no shortest path into the phase-1 goal ends with the cube's parity even.  Sampled
over uniformly random cubes, by phase-1 distance: the share the parity would raise.  (In QTM
the parity adds nothing a search can use: every move changes it, so it only rounds a bound up
to the parity the bound already has.)
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzlesat.domains import rubik as rk  # noqa: E402
from puzzlesat.native.rubik import cache as rubik_cache  # noqa: E402
from puzzlesat.native.rubik import phase1 as p1  # noqa: E402

ROWS_AT_ONCE = 1 << 17  # class rows unpacked per step (about 290 MB)


def histogram(tables: p1.Phase1Tables) -> np.ndarray:
    """Entries per stored value (4 bits: the distance; 2 bits: the code), the rows' pads left out."""
    per_byte = 2 if tables.base < 0 else 4
    bits = 8 // per_byte
    rows = tables.phase1.reshape(-1, p1.ROW // per_byte)
    counts = np.zeros(1 << bits, np.int64)
    for first in range(0, rows.shape[0], ROWS_AT_ONCE):
        chunk = np.asarray(rows[first : first + ROWS_AT_ONCE])
        values = np.stack([(chunk >> (bits * k)) & ((1 << bits) - 1) for k in range(per_byte)], axis=2)
        counts += np.bincount(values.reshape(chunk.shape[0], -1)[:, : p1.ROW - 1].ravel(), minlength=1 << bits)
    return counts


def describe(tables: p1.Phase1Tables) -> str:
    """One table row: the set, its entries, the share at each distance, the mean."""
    counts = histogram(tables)
    total = int(counts.sum())
    if tables.base < 0:
        labels = [str(d) for d in range(len(counts))]
        mean = f"{(counts * np.arange(len(counts))).sum() / total:.3f}"
    else:  # codes 0-3: at most the base, base + 1, base + 2, base + 3 or more
        b = tables.base
        labels = [f"<={b}", str(b + 1), str(b + 2), f">={b + 3}"]
        mean = "-"
    shares = ", ".join(f"{label}: {100 * c / total:.2f} %" for label, c in zip(labels, counts, strict=True) if c)
    return f"| {tables.name} | {tables.metric} | {total:,} | {shares} | {mean} |"


class ParityProbe:
    """Whether some shortest phase-1 path from a cube ends in the goal with even parity."""

    def __init__(self, tables: p1.Phase1Tables) -> None:
        self.t = tables
        self.odd = [power % 2 for _, power in rk.metric_moves(tables.metric)]  # quarter turns

    def reaches(self, twist: int, flip: int, slc: int, d: int, odd: int, dead: set[tuple[int, int, int, int]]) -> bool:
        """A path of ``d`` moves to the goal with ``odd`` quarter turns mod 2, each move one closer."""
        if d == 0:
            return odd == 0
        if (twist, flip, slc, odd) in dead:
            return False
        t = self.t
        for m, q in enumerate(self.odd):
            nt, nf, ns = int(t.twist_mv[twist, m]), int(t.flip_mv[flip, m]), int(t.slice_mv[slc, m])
            if self.t.entry(nt, nf, ns) == d - 1 and self.reaches(nt, nf, ns, d - 1, odd ^ q, dead):
                return True
        dead.add((twist, flip, slc, odd))
        return False

    def raised(self, cube: rk.Cube) -> tuple[int, bool]:
        """The cube's phase-1 distance, and whether its parity would add one move to it."""
        twist, flip, slc, _ = p1.coordinates(cube)
        slc = int(self.t.slice_reduced[slc])
        d = self.t.entry(twist, flip, slc)
        return d, not self.reaches(twist, flip, slc, d, rk.parity(cube.cp), set())


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--metric", choices=rk.METRICS, default="htm")
    parser.add_argument("--tables", nargs="+", default=["phase1", "phase1x12"], choices=sorted(p1.TABLE_SETS))
    parser.add_argument("--samples", type=int, default=3000, help="random cubes for the parity (0: skip)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| tables | metric | entries | share by distance | mean |\n|---|---|---|---|---|")
    loaded = [rubik_cache.load(name, args.metric) for name in args.tables]  # phase-1 sets
    for tables in loaded:
        print(describe(tables))
    exact = [t for t in loaded if t.base < 0]
    if args.samples <= 0 or args.metric != "htm" or not exact:
        return 0
    probe, rng = ParityProbe(exact[0]), random.Random(args.seed)
    by_distance: dict[int, list[int]] = {}
    for _ in range(args.samples):
        d, up = probe.raised(rk.random_cube(rng))
        by_distance.setdefault(d, [0, 0])[up] += 1
    print(f"\n{exact[0].name}, {args.samples} random cubes: | distance | cubes | parity adds 1 |\n|---|---|---|")
    for d, (same, up) in sorted(by_distance.items()):
        print(f"| {d} | {same + up} | {100 * up / (same + up):.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
