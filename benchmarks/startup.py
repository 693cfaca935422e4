"""Start-up of the command line: ``puzzlesat list`` (``-v`` too) and a 4x4 solve, whole processes.

Each command runs ``--runs`` times, alternating with the same command under ``--baseline``
(another checkout's folder put first on ``PYTHONPATH``) when given, so that a drift of the
machine's speed hits both alike; the table gives the median CPU seconds (user + system, the
child's own accounting from ``wait4``) and wall seconds, and the median of the paired ratios.

    python3.11 benchmarks/startup.py --runs 15 --baseline /tmp/puzzlesat-before
    PYTHONPATH=/tmp/sudoku-site python3.11 benchmarks/startup.py   # with a plugin installed
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "list": ["list"],
    "list -v": ["list", "-v"],  # every strategy's declaration, options included
    "solve 4x4": ["solve", "eternity", str(ROOT / "instances/eternity/seed_4x4.txt")],
}


def measure(args: list[str], checkout: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``python -m puzzlesat.cli ARGS`` with ``checkout`` first on the path."""
    path = os.pathsep.join(filter(None, [str(checkout), os.environ.get("PYTHONPATH", "")]))
    env = {**os.environ, "PYTHONPATH": path}
    start = time.perf_counter()
    child = subprocess.Popen(  # run in the checkout: ``-m`` puts the working folder first on the path
        [sys.executable, "-m", "puzzlesat.cli", *args],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(args)} under {checkout}: exit {child.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="runs of each command (default 10), after one warm-up")
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with (its folder holding puzzlesat/)")
    opts = parser.parse_args()
    print("| command | cpu (s) | wall (s) | baseline cpu (s) | baseline wall (s) | cpu ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, args in COMMANDS.items():
        ours: list[tuple[float, float]] = []
        base: list[tuple[float, float]] = []
        for run in range(opts.runs + 1):
            mine = measure(args, ROOT)
            theirs = measure(args, opts.baseline) if opts.baseline else None
            if run:  # the first pair warms the caches
                ours.append(mine)
                if theirs:
                    base.append(theirs)
        cpu, wall = (statistics.median(x[i] for x in ours) for i in (0, 1))
        row = f"| {label} | {cpu:.3f} | {wall:.3f} |"
        if base:
            ratio = statistics.median(a[0] / b[0] for a, b in zip(ours, base, strict=True))
            bcpu, bwall = (statistics.median(x[i] for x in base) for i in (0, 1))
            row += f" {bcpu:.3f} | {bwall:.3f} | {ratio:.3f} |"
        else:
            row += " - | - | - |"
        print(row)


if __name__ == "__main__":
    main()
