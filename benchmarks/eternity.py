"""Time every edge-matching strategy on generated puzzles at the hardness peak.

The peak (expected number of solutions about 1) lies near g+1 to g+2 inner colours with 3-4
frame colours; seeds alternate between those settings.  Each run is a fresh process killed at
the time limit; the time shown is the strategy's own (imports and numba compilation apart).
``--baseline PROGRAM`` also times an external solver that reads the seed format on stdin,
e.g. the seed's sequential C backtracker compiled locally (``gcc -O2 eternity.c``).

``--whole-process`` times each strategy as a user meets it instead: the whole ``puzzlesat
solve`` process from outside (start-up, imports, numba's cache load), as the baseline is
timed.  ``--seed-start N`` draws the boards from seeds N, N+1, ... (seeds 0-2 at sizes 5-8
are the shipped ``instances/eternity/peak_*`` boards; held-out boards take others), and with
``--score`` (alone, with ``--variants`` or ``--ray``) starts the search's seeds at N.  ``--cpu``
counts CPU seconds (user and system, the process and its children) instead of wall seconds
for whole processes and the baseline: a machine busy with other work inflates them less.
A whole process loads the kernel built by ``puzzlesat kernels build`` when there is one
(else numba's); with ``PYTHONDONTWRITEBYTECODE`` set, run ``python -m compileall puzzlesat``
first, or each process compiles puzzlesat's sources again, as a user's never does.

``--score BOARD`` measures the best-score search instead: ``solve --score`` on BOARD (with
``--hints``) once per seed, each in a fresh process stopped by its ``--timeout``, every board
checked by the verifier and scored again here, printed beside the published single-core
figures for the official 16x16 with the starter piece.

``--variants A B ...`` with ``--score`` runs side by side, for each seed at the same time,
the search with some of its knobs (Options of native-rowscan, ``-O``) set: ``key=value``
pairs separated by spaces (``"restart_nodes=5000000 scan_share=1"``; an empty string for the
search as it is): an A/B test under the same load.  One variant with ``--workers 2`` is an
hour run with a knob changed and nothing edited on disk.

``--exact`` measures native-rowscan's exact search on the shipped peak boards instead
(``instances/eternity/``): the speed-up of ``--workers 2`` over one process on the 7x7 boards
(a count, which searches the whole tree, so both place the same nodes), the pruning options
on the 6x6 and 7x7 boards (counts: nodes and seconds), and the 8x8 boards solved with
``--workers 2``.

``--ray`` compares native-rowscan on Ray (``--backend ray``, a local Ray instance started
once in this process, or ``--address``) with the local pool: the count of each 7x7 peak board
(``twins=0``) with ``--workers 2`` locally and 1 and 2 Ray workers, and with ``--score BOARD``
the score each reaches in ``--timeout`` seconds per seed.

Usage:
    python benchmarks/eternity.py [--sizes 6 7 8] [--seeds 5] [--timeout 300] [--baseline ./eternity_seq]
    python benchmarks/eternity.py --quick
    python benchmarks/eternity.py --sizes 7 --seeds 11 --seed-start 100 --whole-process \
        --strategies native-rowscan --baseline /tmp/eternity_seq
    python benchmarks/eternity.py --score e2_16x16.txt --hints starter.txt [--seeds 5] [--timeout 60] [--workers 1]
    python benchmarks/eternity.py --score e2_16x16.txt --hints starter.txt --variants "" "restart_nodes=5000000"
    python benchmarks/eternity.py --score e2_16x16.txt --hints hints.txt --variants "tail_columns=5" --workers 2
    python benchmarks/eternity.py --exact [--parts speedup pruning 8x8] [--timeout 300]
    python benchmarks/eternity.py --ray [--address HOST:PORT] [--score e2_16x16.txt --hints starter.txt --seeds 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, run_command, run_strategy, summary, tied  # noqa: E402

from puzzlesat import api  # noqa: E402
from puzzlesat.domains import eternity  # noqa: E402
from puzzlesat.native.eternity.knobs import Knobs  # noqa: E402

STRATEGIES = ["native-rowscan", "cpsat-table", "cnf-heule:cadical195", "cnf-heule:kissat404"]


def timed_command(cmd: list[str], stdin_path: Path, timeout: float, cpu: bool) -> tuple[str, float]:
    """:func:`run_command`, its seconds of CPU (user + system, children included) with ``cpu``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    status, seconds = run_command(cmd, stdin_path, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu and status != "TIMEOUT":
        seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return status, seconds


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


def variant_options(variant: str) -> dict[str, str]:
    """A variant's knobs of the score search (Options of native-rowscan), ``key=value`` pairs
    separated by spaces (``restart_nodes=5000000 scan_share=1``), checked as ``-O`` checks them.

    >>> variant_options("restart_nodes=5000000 schedules=0.31:2.5")
    {'restart_nodes': '5000000', 'schedules': '0.31:2.5'}
    """
    from puzzlesat.core.options import parse_pairs, resolve
    from puzzlesat.native.eternity.knobs import OPTIONS

    given = parse_pairs(variant.split())
    resolve(OPTIONS, given, "a variant of the score search")
    return given


def variant_knobs(variant: str) -> Knobs:
    """A variant's knobs (:func:`variant_options`) as the search takes them."""
    return Knobs.from_options(variant_options(variant))


def score_variants(
    board: Path, hints: str | None, seeds: range, timeout: float, variants: list[str], workers: int
) -> None:
    """Each seed's runs of every variant at the same time, each verified and scored here; the table."""
    instance = api.load("eternity", board, **({"hints": hints} if hints else {}))
    total = eternity.max_score(instance.data)
    scores: dict[str, list[int]] = {v: [] for v in variants}
    for seed in seeds:
        argv = ["solve", "eternity", str(board), "--score", "--timeout", str(timeout), "--seed", str(seed)]
        argv += ["--workers", str(workers)] + (["--hints", hints] if hints else [])
        procs = {
            v: subprocess.Popen(
                [sys.executable, "-m", "puzzlesat.cli", *argv]
                + [f"-O{key}={value}" for key, value in variant_options(v).items()],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                **tied(),
            )
            for v in variants
        }
        for variant, proc in procs.items():
            out, err = proc.communicate(timeout=timeout * 2 + 60)
            solution = eternity.parse_solution(instance.data, out) if out.strip() else None
            if solution is None or eternity.verify(instance.data, solution, matching=False):
                print(f"c seed {seed} [{variant}]: no legal board: {err.strip()[-300:]}", file=sys.stderr)
                continue
            scores[variant].append(eternity.score(instance.data, solution))
            stats = next((line for line in err.splitlines() if "native-rowscan" in line), "")
            print(f"c seed {seed} [{variant or 'as is'}]: {scores[variant][-1]}/{total}  {stats}", file=sys.stderr)
    rows = [
        [v or "as is", ", ".join(map(str, got)), f"{statistics.median(got):g}" if got else "-"]
        for v, got in scores.items()
    ]
    label = f"{board.name}{' + ' + Path(hints).name if hints else ''}, {timeout:g} s, {workers} worker(s) each"
    label += ", side by side" if len(variants) > 1 else ""
    print_table(f"best score of {total}: {label}", ["settings", "scores by seed", "median"], rows)


def score_runs(board: Path, hints: str | None, seeds: range, timeout: float, workers: int) -> None:
    """The best score of ``solve --score`` per seed (verified and counted here), then the table."""
    instance = api.load("eternity", board, **({"hints": hints} if hints else {}))
    total = eternity.max_score(instance.data)
    scores = []
    for seed in seeds:
        cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(board), "--score"]
        cmd += ["--timeout", str(timeout), "--seed", str(seed), "--workers", str(workers)]
        cmd += ["--hints", hints] if hints else []
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * 2 + 60, **tied())
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


PEAKS = Path(__file__).resolve().parents[1] / "instances" / "eternity"
PRUNING = {
    "plain": ("twins=0", "colour_check=0"),
    "twins": ("twins=1", "colour_check=0"),
    "colour_check": ("twins=0", "colour_check=1"),
    "both": ("twins=1", "colour_check=1"),
}


def run_rowscan(path: Path, timeout: float, *flags: str, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """native-rowscan in a fresh ``solve --json`` process: its JSON result, or status TIMEOUT."""
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "-s", "native-rowscan", "--json"]
    cmd += [*flags, *(x for o in options for x in ("-O", o))]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30, **tied())
    except subprocess.TimeoutExpired:
        return {"status": "TIMEOUT", "wall_time": timeout, "stats": {}}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        result = dict(json.loads(done.stdout))
    except json.JSONDecodeError:
        return {"status": "ERROR", "wall_time": 0.0, "stats": {}, "message": done.stderr.strip()[-200:]}
    result["cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime  # the workers' included
    return result


def exact(parts: list[str], timeout: float) -> None:
    """The ``--exact`` figures: workers' speed-up, pruning options, 8x8 boards with two workers."""
    if "speedup" in parts:
        rows = []
        for path in sorted(PEAKS.glob("peak_7x7_*.txt")):
            runs = {w: run_rowscan(path, timeout, "--count", "--workers", str(w), options=("twins=0",)) for w in (1, 2)}
            one, two = runs[1], runs[2]
            nodes = [int(r["stats"].get("nodes", 0)) for r in (one, two)]
            ratio = float(one["wall_time"]) / max(1e-6, float(two["wall_time"]))
            shares = [int(n) for n in str(two["stats"].get("worker_nodes", "0")).split("/")]
            rows.append(
                [
                    path.stem,
                    f"{one['count']}",
                    f"{nodes[0]:,} / {nodes[1]:,}",
                    f"{one['wall_time']:.2f} / {two['wall_time']:.2f}",
                    f"{one['cpu']:.1f} / {two['cpu']:.1f}",
                    f"{ratio:.2f}x",
                    f"{nodes[1] / max(1, max(shares)):.2f}x",
                ]
            )
            print(f"c {path.stem}: {rows[-1]} shares {shares}", file=sys.stderr)
        print_table(
            "count (the whole tree, twins=0): one process / --workers 2",
            ["board", "count", "nodes", "seconds", "CPU seconds", "speed-up", "nodes / largest share"],
            rows,
        )
    if "pruning" in parts:
        rows = []
        for path in sorted(PEAKS.glob("peak_[67]x*.txt")):
            row = [path.stem]
            for name, options in PRUNING.items():
                result = run_rowscan(path, timeout, "--count", options=options)
                stats = result["stats"]
                row.append(f"{int(stats.get('nodes', 0)):,} / {float(result['wall_time']):.2f} s")
                print(
                    f"c {path.stem} {name}: {result['status']} count={result.get('count')} {row[-1]}", file=sys.stderr
                )
            rows.append(row)
        print_table("count: nodes / seconds of each pruning", ["board", *PRUNING], rows)
    if "8x8" in parts:
        rows = []
        for path in sorted(PEAKS.glob("peak_8x8_*.txt")):
            result = run_rowscan(path, timeout, "--workers", "2", "--timeout", str(timeout))
            stats = result["stats"]
            rows.append(
                [
                    path.stem,
                    str(result["status"]),
                    f"{float(result['wall_time']):.1f}",
                    f"{int(stats.get('nodes', 0)):,}",
                    str(stats.get("worker_nodes", "")),
                ]
            )
            print(f"c {path.stem}: {rows[-1]}", file=sys.stderr)
        print_table(
            f"8x8 peak boards, --workers 2, limit {timeout:g} s",
            ["board", "status", "seconds", "nodes", "nodes per worker"],
            rows,
        )


def on_ray(board: Path | None, hints: str | None, seeds: range, timeout: float, address: str | None) -> None:
    """The ``--ray`` figures: local pool against 1 and 2 Ray workers (exact counts, then scores)."""
    from puzzlesat.core import ray as ray_backend

    began = time.perf_counter()
    ray_backend.connect(address, num_cpus=2)
    print(f"c ray: connected in {time.perf_counter() - began:.1f} s", file=sys.stderr)
    setups = [("local pool, 2 workers", "local", 2), ("ray, 1 worker", "ray", 1), ("ray, 2 workers", "ray", 2)]
    rows = []
    for path in sorted(PEAKS.glob("peak_7x7_*.txt")):
        instance = api.load("eternity", path)
        row = [path.stem]
        for name, backend, workers in setups:
            began = time.perf_counter()
            result = api.solve(instance, count=True, twins=False, workers=workers, backend=backend)
            whole = time.perf_counter() - began
            ready = float(result.stats.get("ready_at", 0.0))  # Ray: every worker started and compiled
            row.append(f"{result.wall_time - ready:.2f} / {whole:.2f} s")
            print(f"c {path.stem} {name}: {result.status.value} count={result.count} {row[-1]}", file=sys.stderr)
        rows.append(row)
    print_table(
        "count (twins=0): seconds searching once every worker is ready / whole call (Ray: worker start-up included)",
        ["board", *(name for name, _, _ in setups)],
        rows,
    )
    if board is None:
        return
    instance = api.load("eternity", board, **({"hints": hints} if hints else {}))
    total = eternity.max_score(instance.data)
    scores: dict[str, list[int]] = {name: [] for name, _, _ in setups}
    for seed in seeds:
        for name, backend, workers in setups:
            result = api.solve(instance, score=True, timeout=timeout, seed=seed, workers=workers, backend=backend)
            assert result.solution is not None and not eternity.verify(instance.data, result.solution, matching=False)
            scores[name].append(eternity.score(instance.data, result.solution))
            nodes = result.stats.get("nodes")
            print(f"c seed {seed} {name}: {scores[name][-1]}/{total} nodes={nodes}", file=sys.stderr)
    print_table(
        f"best score of {total} in {timeout:g} s ({board.name}{' + ' + Path(hints).name if hints else ''})",
        ["setup", "scores by seed", "median"],
        [[name, ", ".join(map(str, got)), f"{statistics.median(got):g}"] for name, got in scores.items()],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 7, 8])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--strategies", nargs="+", default=STRATEGIES)
    parser.add_argument("--baseline", help="external program reading the seed format on stdin")
    parser.add_argument("--quick", action="store_true", help="a smoke run: size 4, one seed, 20 s limit")
    parser.add_argument("--seed-start", type=int, default=0, help="first seed of boards (held-out: 100) or runs")
    parser.add_argument("--whole-process", action="store_true", help="time whole solve processes from outside")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds of whole processes and the baseline")
    parser.add_argument("--score", type=Path, metavar="BOARD", help="measure the best-score search on BOARD")
    parser.add_argument("--hints", help="with --score: a hints file")
    parser.add_argument("--workers", type=int, default=1, help="with --score: processes per run")
    parser.add_argument("--variants", nargs="+", help="with --score: settings to run side by side (A/B)")
    parser.add_argument(
        "--exact", action="store_true", help="native-rowscan's workers and pruning on the shipped boards"
    )
    parser.add_argument("--parts", nargs="+", default=["speedup", "pruning", "8x8"], help="with --exact: which figures")
    parser.add_argument("--ray", action="store_true", help="the local pool against Ray workers")
    parser.add_argument("--address", help="with --ray: join this Ray cluster instead of starting one")
    args = parser.parse_args()
    seeds = range(args.seed_start, args.seed_start + args.seeds)
    if args.ray:
        on_ray(args.score, args.hints, seeds, args.timeout, args.address)
        return
    if args.score and args.variants:
        score_variants(args.score, args.hints, seeds, args.timeout, args.variants, args.workers)
        return
    if args.score:
        score_runs(args.score, args.hints, seeds, args.timeout, args.workers)
        return
    if args.exact:
        exact(args.parts, args.timeout)
        return
    if args.quick:
        args.sizes, seeds, args.timeout = [4], seeds[:1], 20
    names = args.strategies + ([f"baseline:{Path(args.baseline).name}"] if args.baseline else [])
    rows = []
    ratios: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            results: dict[str, tuple[list[str], list[float]]] = {n: ([], []) for n in names}
            for seed in seeds:
                path = Path(tmp) / f"peak_{size}_{seed}.txt"
                path.write_text(eternity.write_instance(peak_instance(size, seed)))
                for name in args.strategies:
                    if args.whole_process:
                        solve = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", "-", "-s", name]
                        status, seconds = timed_command([*solve, "--seed", str(seed)], path, args.timeout, args.cpu)
                    else:
                        status, seconds = run_strategy("eternity", path, name, args.timeout, seed=seed)
                    results[name][0].append(status)
                    results[name][1].append(seconds)
                    print(f"c {size}x{size} seed {seed} {name}: {status} {seconds:.3f}s", file=sys.stderr)
                if args.baseline:
                    status, seconds = timed_command([args.baseline], path, args.timeout, args.cpu)
                    results[names[-1]][0].append(status)
                    results[names[-1]][1].append(seconds)
                    print(f"c {size}x{size} seed {seed} baseline: {status} {seconds:.3f}s", file=sys.stderr)
            rows.append([f"{size}x{size}", *(summary(results[n][1], results[n][0]) for n in names)])
            if args.baseline and "native-rowscan" in results:
                ratios[size] = statistics.median(results[names[-1]][1]) / max(
                    1e-6, statistics.median(results["native-rowscan"][1])
                )
    print_table(
        f"edge matching at the hardness peak: median / worst seconds (solved), limit {args.timeout:g} s"
        + (", whole processes" if args.whole_process else "")
        + (", CPU seconds" if args.cpu else ""),
        ["board", *names],
        rows,
    )
    for size, ratio in ratios.items():
        print(f"\n{size}x{size}: baseline median / native-rowscan median = {ratio:.1f}x")


if __name__ == "__main__":
    main()
