"""The cube's two paths on short scrambles: the plain breadth-first search against the IDA*.

Each position is a scramble of ``N`` moves as ``puzzlesat generate rubik --moves N --seed S``
makes it.  In this process it is solved by the plain search alone (:func:`rubik_plain.search`
up to ``--depth``, default the solver's: the optimum, or ``> depth`` when longer) and by the
IDA* alone (``native-ida -O plain_depth=0 -O tables=small``, after a warm-up solve, so that its
kernels are loaded and its tables built: the warm case), the two alternated.  ``--process``
adds whole ``puzzlesat solve`` processes, the default (the plain search first) against
``-O plain_depth=0``, with warm caches (numba's as it is, the tables in a temporary folder
filled by a first run).  Seconds are medians over the seeds; the plain path's cost where it
finds nothing is what a longer position pays before the IDA* starts.

Usage:
    python benchmarks/rubik_plain.py [--lengths 8 9 10 11] [--seeds 5] [--metric htm] [--process]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, tied  # noqa: E402

from puzzlesat.core import Limits, Status  # noqa: E402
from puzzlesat.domains import rubik as rk  # noqa: E402
from puzzlesat.native.rubik import ida as rubik
from puzzlesat.native.rubik import plain as rubik_plain  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def ida(instance: rk.Instance, metric: str, timeout: float) -> tuple[int | None, float]:
    """(optimal length or None, seconds) of the IDA* alone, in this process."""
    opts = {"metric": metric, "tables": "small", "progress": False, "plain_depth": 0}
    start = time.perf_counter()
    res = rubik.solve(instance, Limits(timeout=timeout, options=opts))
    return (res.objective if res.status is Status.OPTIMAL else None), time.perf_counter() - start


def process(path: Path, metric: str, extra: list[str], cache: str, timeout: float) -> float:
    """Wall seconds of a whole ``puzzlesat solve`` process."""
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "rubik", str(path), "--metric", metric, *extra]
    start = time.perf_counter()
    subprocess.run(
        cmd, cwd=ROOT, env={**os.environ, "PUZZLESAT_CACHE": cache}, capture_output=True, timeout=timeout, **tied()
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", type=int, nargs="+", default=[8, 9, 10, 11])
    parser.add_argument("--seeds", type=int, default=5, help="positions per length (seeds 1..N)")
    parser.add_argument("--metric", default="htm", choices=rk.METRICS)
    parser.add_argument("--depth", type=int, default=None, help="the plain search's depth (default the solver's)")
    parser.add_argument("--process", action="store_true", help="also whole processes, default against plain_depth=0")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    metric = args.metric
    depth = rubik_plain.DEPTH[metric] if args.depth is None else args.depth
    rows = []
    with tempfile.TemporaryDirectory(prefix="puzzlesat-plain-") as tmp:
        os.environ["PUZZLESAT_CACHE"] = tmp  # the tables of this run only
        ida(rk.parse("R U F"), metric, args.timeout)  # warm-up: kernels loaded, small tables built
        for length in args.lengths:
            optima, plain_s, ida_s, whole_plain, whole_ida = [], [], [], [], []
            for seed in range(1, args.seeds + 1):
                instance = rk.generate({"moves": length}, seed)
                start = time.perf_counter()
                out = rubik_plain.search(instance.cube, metric, depth)
                plain_s.append(time.perf_counter() - start)
                best, seconds = ida(instance, metric, args.timeout)
                ida_s.append(seconds)
                if out.best is not None and out.best != best:
                    sys.exit(f"--moves {length} --seed {seed}: plain {out.best}, IDA* {best}")
                optima.append(str(best) if out.best is not None else f"{best}>")
                if args.process:
                    path = Path(tmp) / f"{length}-{seed}.txt"
                    path.write_text(rk.write_instance(instance))
                    whole_plain.append(process(path, metric, [], tmp, args.timeout))
                    whole_ida.append(process(path, metric, ["-O", "plain_depth=0"], tmp, args.timeout))
                print(f"c --moves {length} --seed {seed}: optimum {best}, plain {plain_s[-1]:.3f} s", file=sys.stderr)
            row = [str(length), " ".join(optima), f"{statistics.median(plain_s):.3f}", f"{max(plain_s):.3f}"]
            row.append(f"{statistics.median(ida_s):.3f}")
            if args.process:
                row += [f"{statistics.median(whole_plain):.2f}", f"{statistics.median(whole_ida):.2f}"]
            rows.append(row)
    header = ["moves", "optima (> : beyond the plain search)", "plain s", "plain max s", "IDA* s (warm)"]
    if args.process:
        header += ["process, default", "process, plain_depth=0"]
    print_table(f"{metric}: plain search up to {depth} against the IDA*, median over {args.seeds} seeds", header, rows)


if __name__ == "__main__":
    main()
