"""Time every edge-matching strategy on generated puzzles at the hardness peak.

The peak (expected number of solutions about 1) lies near g+1 to g+2 inner colours with 3-4
frame colours; seeds alternate between those settings.  Each run is a fresh process killed at
the time limit; the time shown is the strategy's own (imports and numba compilation apart).
``--baseline PROGRAM`` also times an external solver that reads the seed format on stdin,
e.g. the seed's sequential C backtracker compiled locally (``gcc -O2 eternity.c``).

``--score BOARD`` measures the best-score search instead: ``solve --score`` on BOARD (with
``--hints``) once per seed, each in a fresh process stopped by its ``--timeout``, every board
checked by the verifier and scored again here, printed beside the published single-core
figures for the official 16x16 with the starter piece.

Usage:
    python benchmarks/eternity.py [--sizes 6 7 8] [--seeds 5] [--timeout 300] [--baseline ./eternity_seq]
    python benchmarks/eternity.py --quick
    python benchmarks/eternity.py --score e2_16x16.txt --hints starter.txt [--seeds 5] [--timeout 60] [--workers 1]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, run_command, run_strategy, summary  # noqa: E402

from puzzlesat import api  # noqa: E402
from puzzlesat.domains import eternity  # noqa: E402

STRATEGIES = ["native-rowscan", "cpsat-table", "cnf-heule:cadical195", "cnf-heule:kissat404"]


def peak_instance(size: int, seed: int) -> eternity.Instance:
    """A generated puzzle at the hardness peak; the seed picks the colour counts too."""
    options = {"size": size, "frame_colours": 3 + seed % 2, "inner_colours": size + 1 + (seed // 2) % 2}
    return eternity.generate(options, seed)


# Official 16x16, starter piece (and three pinned corners), 60 s on one core, Rust solvers: a
# public benchmark quoted in issue 16; the record is Blackwood's 470 (2021), not a 60 s figure.
PUBLISHED = [
    ("beam-search producer", "453-456"),
    ("adaptive large neighbourhood search", "451-455"),
    ("Verhaard-style backtracker", "437-451"),
    ("Blackwood-style backtracker", "431-440"),
    ("record (Blackwood 2021, weeks of CPU)", "470"),
]


def score_runs(board: Path, hints: str | None, seeds: int, timeout: float, workers: int) -> None:
    """The best score of ``solve --score`` per seed (verified and counted here), then the table."""
    instance = api.load("eternity", board, **({"hints": hints} if hints else {}))
    total = eternity.max_score(instance.data)
    scores = []
    for seed in range(seeds):
        cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(board), "--score"]
        cmd += ["--timeout", str(timeout), "--seed", str(seed), "--workers", str(workers)]
        cmd += ["--hints", hints] if hints else []
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * 2 + 60)
        solution = eternity.parse_solution(instance.data, proc.stdout) if proc.stdout.strip() else None
        if solution is None or eternity.verify(instance.data, solution, matching=False):
            print(f"c seed {seed}: no legal board (exit {proc.returncode}): {proc.stderr.strip()}", file=sys.stderr)
            continue
        scores.append(eternity.score(instance.data, solution))
        stats = proc.stderr.strip().splitlines()[-2] if proc.stderr.count("\n") > 1 else proc.stderr.strip()
        print(f"c seed {seed}: {scores[-1]}/{total}  {stats}", file=sys.stderr)
    label = f"{board.name}{' + ' + Path(hints).name if hints else ''}, {timeout:g} s, {workers} worker(s)"
    rows = [
        [
            "native-rowscan --score (this machine)",
            f"median {statistics.median(scores):g}, {min(scores)}-{max(scores)} over {len(scores)} seeds"
            if scores
            else "no board",
        ]
    ]
    rows += [[name, figure] for name, figure in PUBLISHED]
    print_table(f"best score of {total}: {label}", ["search", "score"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 7, 8])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--strategies", nargs="+", default=STRATEGIES)
    parser.add_argument("--baseline", help="external program reading the seed format on stdin")
    parser.add_argument("--quick", action="store_true", help="a smoke run: size 4, one seed, 20 s limit")
    parser.add_argument("--score", type=Path, metavar="BOARD", help="measure the best-score search on BOARD")
    parser.add_argument("--hints", help="with --score: a hints file")
    parser.add_argument("--workers", type=int, default=1, help="with --score: processes per run")
    args = parser.parse_args()
    if args.score:
        score_runs(args.score, args.hints, args.seeds, args.timeout, args.workers)
        return
    if args.quick:
        args.sizes, args.seeds, args.timeout = [4], 1, 20
    names = args.strategies + ([f"baseline:{Path(args.baseline).name}"] if args.baseline else [])
    rows = []
    ratios: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            results: dict[str, tuple[list[str], list[float]]] = {n: ([], []) for n in names}
            for seed in range(args.seeds):
                path = Path(tmp) / f"peak_{size}_{seed}.txt"
                path.write_text(eternity.write_instance(peak_instance(size, seed)))
                for name in args.strategies:
                    status, seconds = run_strategy("eternity", path, name, args.timeout, seed=seed)
                    results[name][0].append(status)
                    results[name][1].append(seconds)
                    print(f"c {size}x{size} seed {seed} {name}: {status} {seconds:.3f}s", file=sys.stderr)
                if args.baseline:
                    status, seconds = run_command([args.baseline], path, args.timeout)
                    results[names[-1]][0].append(status)
                    results[names[-1]][1].append(seconds)
                    print(f"c {size}x{size} seed {seed} baseline: {status} {seconds:.3f}s", file=sys.stderr)
            rows.append([f"{size}x{size}", *(summary(results[n][1], results[n][0]) for n in names)])
            if args.baseline and "native-rowscan" in results:
                ratios[size] = statistics.median(results[names[-1]][1]) / max(
                    1e-6, statistics.median(results["native-rowscan"][1])
                )
    print_table(
        f"edge matching at the hardness peak: median / worst seconds (solved), limit {args.timeout:g} s",
        ["board", *names],
        rows,
    )
    for size, ratio in ratios.items():
        print(f"\n{size}x{size}: baseline median / native-rowscan median = {ratio:.1f}x")


if __name__ == "__main__":
    main()
