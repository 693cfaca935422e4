"""Every strategy's answer and search counts on the shipped instances, one JSON line per run.

A restructuring must not change what the strategies find or how much they search: run this
before and after, and compare the two files (``diff`` or ``--compare OLD NEW``).  Each run is a
fresh ``puzzlesat solve --json --seed 0`` process; wall times are left out, counts are kept.

    python benchmarks/answers.py > before.jsonl
    python benchmarks/answers.py > after.jsonl
    python benchmarks/answers.py --compare before.jsonl after.jsonl

Rubik's ``native-ida`` is left out unless ``--rubik-ida`` is given: its first run builds 1.9 GB
of tables.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import tied  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# counts that do not depend on the machine's speed (a run that hits its time limit is reported as such)
COUNTS = ("nodes", "conflicts", "decisions", "propagations", "branches", "variables", "clauses", "restarts", "horizon")
RUNS: dict[str, tuple[list[str], list[str]]] = {
    # puzzle: (instances, strategies)
    "eternity": (
        ["seed_4x4.txt", "peak_5x5_b3_m6_s0.txt", "peak_6x6_b3_m7_s0.txt"],
        ["native-rowscan", "cpsat-table", "cnf-heule:cadical195", "cnf-heule:kissat404"],
    ),
    "masyu": (
        ["seed_7x7.txt", "gen_10x10_s1.txt"],
        ["cnf-lazy:cadical195", "cnf-rank:cadical195", "cpsat-lazy", "cpsat-circuit", "native-dfs"],
    ),
    "pegsol": (
        ["rect3x3_center.txt", "rect4x4_two_holes.txt", "rect5x5_center.txt", "english33_center.txt"],
        ["native-dfs", "cnf-plan:cadical195", "cpsat-plan"],
    ),
    "blacken": (
        ["seed_7x7.txt", "gen_k8_q10_c4_s1.txt"],
        ["native-bb", "native-bb-par", "cpsat-steps", "cnf-steps:cadical195", "bfs"],
    ),
    # rubik: a short maneuver, written to a temporary file (the shipped positions take minutes)
    "rubik": (["R U F' D2 L"], ["cpsat-bmc", "cnf-bmc:cadical195"]),
}


def run(puzzle: str, instance: str, strategy: str, timeout: float) -> dict[str, object]:
    """One solve in a fresh process; the answer and the counts, without times."""
    path = ROOT / "instances" / puzzle / instance
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", puzzle, "-s", strategy, "--json", "--seed", "0"]
    text = path.read_text() if path.is_file() else instance
    line: dict[str, object] = {"puzzle": puzzle, "instance": instance, "strategy": strategy}
    try:  # no --timeout: a SAT solver under a time limit runs in slices, and its counts vary
        proc = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=timeout, cwd=ROOT, **tied())
    except subprocess.TimeoutExpired:
        line["status"] = "TIMEOUT"
        return line
    if not proc.stdout.strip():
        line["error"] = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return line
    data = json.loads(proc.stdout)
    line.update(status=data["status"], objective=data["objective"], solution=data["solution"])
    line["counts"] = {k: v for k, v in data["stats"].items() if k in COUNTS}
    return line


def compare(old: Path, new: Path) -> int:
    """Print the runs whose answer or counts differ; exit 1 when any does."""

    def read(path: Path) -> dict[tuple[str, str, str], dict[str, object]]:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return {(r["puzzle"], r["instance"], r["strategy"]): r for r in rows}

    before, after = read(old), read(new)
    differ = [key for key in before if before[key] != after.get(key)]
    for key in differ:
        print(f"{' '.join(key)}:\n  before {before[key]}\n  after  {after.get(key)}")
    print(f"{len(before) - len(differ)} of {len(before)} runs identical")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run, whole process (then killed)")
    parser.add_argument("--puzzles", nargs="+", default=list(RUNS), choices=list(RUNS))
    parser.add_argument("--rubik-ida", action="store_true", help="also run rubik native-ida (builds 1.9 GB tables)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="compare two outputs")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    for puzzle in args.puzzles:
        instances, strategies = RUNS[puzzle]
        if puzzle == "rubik" and args.rubik_ida:
            strategies = ["native-ida", *strategies]
        for instance in instances:
            for strategy in strategies:
                print(json.dumps(run(puzzle, instance, strategy, args.timeout)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
