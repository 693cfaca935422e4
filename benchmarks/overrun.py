"""How far past ``--timeout`` each strategy answers, with CPU hogs beside it (issue 51, part 8).

Each run is a fresh process that loads an instance and times ``puzzlesat.solve(...,
timeout=T)`` from the call to the answer (imports of the solver libraries and numba's
compilation included, the interpreter's start-up not).  The bar: at most ``1 s + 5 %`` over
the limit.  ``--hogs N`` starts N busy processes for the whole benchmark (stopped at its end,
and killed with it), so the runs compete for the cores as on a busy machine.  ``--tree DIR``
runs every case in another checkout too (e.g. ``main`` before a change: ``git archive main |
tar -x -C /tmp/before``), right after this tree's run, so that both see the same load.

    python3.11 benchmarks/overrun.py [--timeout 10] [--hogs 1] [--quick] [--tree DIR] [--only TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _runner import tied

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/instances")

# (puzzle, instance, strategies): instances hard enough that every strategy meets its limit; a
# strategy may carry its solve options after a space, as JSON (the score search)
CASES = [
    ("masyu", SHARED / "masyu" / "janko_139_20x36.txt", ["native-dfs", "cnf-rank:cadical300", "cnf-lazy:cadical195"]),
    ("masyu", SHARED / "masyu" / "janko_139_20x36.txt", ["cpsat-lazy", "cpsat-circuit", "cnf-rank:kissat404"]),
    ("eternity", ROOT / "instances" / "eternity" / "peak_8x8_b3_m9_s0.txt", ["native-rowscan"]),
    ("eternity", SHARED / "eternity" / "e2_16x16.txt", ["cpsat-table", "cnf-heule:cadical195", "cnf-heule:kissat404"]),
    ("eternity", SHARED / "eternity" / "e2_16x16.txt", ['native-rowscan {"score": true}']),
    ("pegsol", ROOT / "instances" / "pegsol" / "german45_center.txt", ["native-dfs", "cnf-plan:cadical195"]),
    ("blacken", ROOT / "instances" / "blacken" / "gen_k12_q25_c5_s1.txt", ["native-bb", "cpsat-steps"]),
]
QUICK = [("masyu", ROOT / "instances" / "masyu" / "gen_30x30_s1.txt", ["native-dfs", "cnf-rank:cadical195"])]

CHILD = """
import json, sys, time
from pathlib import Path
import puzzlesat as ps
instance = ps.load(sys.argv[1], Path(sys.argv[2]))
strategy, _, options = sys.argv[3].partition(" ")
start = time.perf_counter()
try:
    result = ps.solve(instance, strategy, timeout=float(sys.argv[4]), **json.loads(options or "{}"))
    status = result.status.value
except Exception as exc:
    status = "raised " + type(exc).__name__
print(json.dumps({"status": status, "seconds": time.perf_counter() - start}))
"""

HOG = "while True: pass"


def run(puzzle: str, path: Path, strategy: str, timeout: float, tree: Path = ROOT) -> tuple[str, float]:
    """(status, seconds from the call of solve to its answer) of one run in a fresh process, with
    the package of ``tree``."""
    cmd = [sys.executable, "-c", CHILD, puzzle, str(path), strategy, str(timeout)]
    env = dict(os.environ, PYTHONPATH=str(tree))
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout * 3 + 60, cwd=tree, env=env, **tied()
        )
        data = json.loads(done.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return "KILLED", float("inf")
    except (json.JSONDecodeError, IndexError):
        return "ERROR", float("nan")
    return str(data["status"]), float(data["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--hogs", type=int, default=1, help="busy processes beside the runs")
    parser.add_argument("--quick", action="store_true", help="one small case, a 3 s limit (a smoke test)")
    parser.add_argument("--tree", type=Path, help="another checkout to run each case in as well (before a change)")
    parser.add_argument("--only", default="", help="the strategies whose name holds this text (all by default)")
    args = parser.parse_args()
    trees = [ROOT] if args.tree is None else [ROOT, args.tree.resolve()]
    timeout = 3.0 if args.quick else args.timeout
    hogs = [subprocess.Popen([sys.executable, "-c", HOG], **tied()) for _ in range(args.hogs)]
    try:
        print(f"limit {timeout:g} s, {args.hogs} CPU hog(s); bar: answered within {timeout * 1.05 + 1:.2f} s")
        print("| puzzle | instance | strategy | tree | status | seconds | over the limit | within the bar |")
        print("|---|---|---|---|---|---:|---:|---|")
        for puzzle, path, strategies in QUICK if args.quick else CASES:
            if not path.is_file():
                print(f"| {puzzle} | {path.name} | (not here) | | | | | |")
                continue
            for strategy in (s for s in strategies if args.only in s):
                for tree in trees:
                    status, seconds = run(puzzle, path, strategy, timeout, tree)
                    ok = "yes" if seconds <= timeout * 1.05 + 1 else "NO"
                    label = "this" if tree == ROOT else str(tree)
                    over = f"{seconds - timeout:+.2f}"
                    row = [puzzle, path.name, strategy, label, status, f"{seconds:.2f}", over, ok]
                    print("| " + " | ".join(row) + " |", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


if __name__ == "__main__":
    main()
