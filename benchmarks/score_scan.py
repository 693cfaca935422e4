"""Speed of the ``--score`` row scan (nodes per second of its kernel), source trees side by side.

Each measurement is a fresh process importing puzzlesat from one source tree (``--trees``,
e.g. main's checkout and a branch's): the greedy dive and ``--restarts`` row-scan restarts
of ``--nodes`` each (:meth:`~puzzlesat.native.eternity.score.ScoreSearch.scan`), with the
first schedule and the same seed, after the kernels are compiled.  The trees take turns,
``--reps`` rounds, so a machine busy with other work slows both alike; the table gives the
median nodes per second and its ratio to the first tree's.  Equal searches place the same
nodes and find the same boards: the nodes, errors and a digest of the best board are printed
beside each time, and a difference is flagged.

Usage:
    python benchmarks/score_scan.py e2_16x16.txt --hints starter.txt --trees ../main . [--restarts 10] [--reps 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, tied  # noqa: E402


def measure(board: str, hints: str | None, seed: int, restarts: int, nodes: int) -> dict[str, object]:
    """One tree's run, in this process (the child's side)."""
    import numpy as np

    from puzzlesat import api
    from puzzlesat.domains import eternity
    from puzzlesat.native.eternity import score as es

    instance = api.load("eternity", board).data
    if hints:
        instance = eternity.with_hints(instance, Path(hints).read_text(), hints)
    es.kernels().warm_up()
    began = time.perf_counter()
    search = es.ScoreSearch(instance, np.random.default_rng(seed), es.SCHEDULES[0])
    for _ in range(restarts):
        search.scan(lambda: None, restart_nodes=nodes, one_restart=True)
    seconds = time.perf_counter() - began
    digest = hashlib.sha1(np.ascontiguousarray(search.best.board).tobytes()).hexdigest()[:12]
    return {"nodes": search.nodes, "seconds": seconds, "errors": search.best.errors, "board": digest}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board")
    parser.add_argument("--hints")
    parser.add_argument("--trees", nargs="+", default=["."], help="source trees to import puzzlesat from, in turn")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--restarts", type=int, default=10)
    parser.add_argument("--nodes", type=int, default=20_000_000, help="row-scan nodes per restart")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.board, args.hints, args.seed, args.restarts, args.nodes)))
        return
    trees = [str(Path(t).resolve()) for t in args.trees]
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in trees}
    argv = [args.board, "--seed", str(args.seed), "--restarts", str(args.restarts), "--nodes", str(args.nodes)]
    argv += ["--hints", args.hints] if args.hints else []
    for rep in range(args.reps):
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": tree}
            out = subprocess.run(
                [sys.executable, __file__, *argv, "--child"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                **tied(),
            )
            got = json.loads(out.stdout)
            got["rate"] = got["nodes"] / got["seconds"]
            runs[tree].append(got)
            print(f"c rep {rep} {tree}: {got['rate'] / 1e6:.1f} M nodes/s {got}", file=sys.stderr)
    outcome = {t: {(r["nodes"], r["errors"], r["board"]) for r in got} for t, got in runs.items()}
    rates = {t: statistics.median(r["rate"] for r in got) for t, got in runs.items()}
    rows = [
        [t, f"{rates[t] / 1e6:.1f}", f"{rates[t] / rates[trees[0]]:.2f}", ", ".join(map(str, sorted(outcome[t])))]
        for t in trees
    ]
    same = len(set().union(*outcome.values())) == 1
    title = f"row-scan nodes per second, seed {args.seed}, {args.restarts} x {args.nodes} nodes"
    header = ["tree", "M nodes/s", "ratio", "(nodes, errors, board)"]
    print_table(title + ("" if same else " (THE SEARCHES DIFFER)"), header, rows)


if __name__ == "__main__":
    main()
