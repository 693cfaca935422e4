"""The first cube solves of a new user: whole-process time with an empty table cache.

Each run solves the shipped 8-move scramble (``puzzlesat solve rubik
instances/rubik/scramble_8_seed1.txt``, the default strategy and tables) in a fresh process
whose ``PUZZLESAT_CACHE`` is a new empty folder, and prints the wall and CPU time of the
process, the tables it used and what the cache holds afterwards.  numba's own compile cache
is left as it is (warm after the first run of the same code).

Usage:
    python benchmarks/rubik_first_solve.py [--runs 5] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import tied  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def first_solve(path: Path) -> tuple[float, float, str, float]:
    """One solve with an empty cache: wall seconds, CPU seconds, tables used, MB left in the cache."""
    with tempfile.TemporaryDirectory(prefix="puzzlesat-cache-") as cache:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "puzzlesat.cli", "solve", "rubik", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PUZZLESAT_CACHE": cache},
            timeout=3600,
            **tied(),
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{path}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        tables = re.search(r"tables=(\S+)", done.stderr)
        size = sum(p.stat().st_size for p in Path(cache).rglob("*") if p.is_file()) / 1e6
        return wall, cpu, tables.group(1) if tables else "?", size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, default=[ROOT / "instances/rubik/scramble_8_seed1.txt"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for path in args.files:
        walls = []
        for run in range(args.runs):
            wall, cpu, tables, size = first_solve(path)
            walls.append(wall)
            print(
                f"{path.name} run {run + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, tables={tables}, cache {size:.1f} MB"
            )
        print(f"{path.name}: median {statistics.median(walls):.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f})")


if __name__ == "__main__":
    main()
