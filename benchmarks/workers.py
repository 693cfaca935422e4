"""The native searches that run on worker processes, timed whole: pegsol ``native-dfs --workers``,
blacken ``native-bb-par`` (``head_start=0``: its serial first second off, so the workers search)
and eternity ``native-rowscan --workers --count`` on the 7x7 peak boards (the whole tree, shared
by work stealing).

Each line is one solve through ``run_strategy`` (start-up of the workers included, compile
time apart): status, wall time and nodes.  To compare two checkouts of the package, run this
script from each, one after the other, and compare the totals.

    python benchmarks/workers.py [--workers 2] [--timeout 60] [--repeat 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from puzzlesat.core import Limits, run_strategy  # noqa: E402
from puzzlesat.domains import blacken as bl  # noqa: E402
from puzzlesat.domains import eternity as et  # noqa: E402
from puzzlesat.domains import pegsol as pg  # noqa: E402

PEGSOL = ("rect6x4_hole_3_2.txt", "rect6x6_hole_3_2.txt", "english33_center.txt")
BLACKEN = ("gen_k8_q10_c4_s1.txt", "gen_k10_q15_c5_s1.txt", "gen_k10_q15_c5_s2.txt", "gen_k10_q15_c5_s3.txt")
ETERNITY = ("peak_7x7_b3_m8_s0.txt", "peak_7x7_b3_m9_s2.txt", "peak_7x7_b4_m8_s1.txt")
STRATEGIES = {"pegsol": (pg, "native-dfs"), "blacken": (bl, "native-bb-par"), "eternity": (et, "native-rowscan")}
OPTIONS = {"pegsol": {"no_proofs": True}, "blacken": {"head_start": 0.0}, "eternity": {"count": True, "twins": False}}


def cases() -> list[tuple[str, str, object]]:
    """(puzzle, label, instance) for every solve timed."""
    out: list[tuple[str, str, object]] = [("pegsol", "5x5 complement", pg.generate({"rows": 5, "cols": 5}, 0))]
    out += [("pegsol", n, pg.parse((ROOT / "instances/pegsol" / n).read_text())) for n in PEGSOL]
    out += [("blacken", n, bl.parse((ROOT / "instances/blacken" / n).read_text())) for n in BLACKEN]
    out += [("eternity", n, et.parse((ROOT / "instances/eternity" / n).read_text())) for n in ETERNITY]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    total = 0.0
    for puzzle, label, instance in cases():
        module, strategy = STRATEGIES[puzzle]
        for _ in range(args.repeat):
            limits = Limits(timeout=args.timeout, workers=args.workers, options=OPTIONS[puzzle])
            started = time.perf_counter()
            result = run_strategy(module.PUZZLE, instance, strategy, limits)
            wall = time.perf_counter() - started
            total += wall
            nodes = result.stats.get("nodes", "")
            print(
                f"{puzzle:8} {label:24} {strategy:14} {result.status.value:10} {wall:7.2f} s  nodes {nodes}", flush=True
            )
    print(f"total {total:.2f} s")


if __name__ == "__main__":
    main()
