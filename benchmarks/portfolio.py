"""The portfolio against every single strategy, whole process, side by side in one run.

Each run is a fresh ``puzzlesat solve`` process (``-s STRATEGY`` or ``--portfolio``) timed from
outside from its start to its exit, so every figure pays interpreter start-up, imports and
numba's cache as a user does; the runs of one instance take turns, ``--repeats`` rounds, and
the median of each counts.

Default: held-out generated 7x7 edge-matching boards (seeds no tuning used), most of them
solved in under a second.  Target: on the boards whose best single strategy needs under
:data:`SUB_SECOND` seconds of its own time, the portfolio's median time within 1.3x the best
single strategy's.

``--sharing [DIR]``: what sharing the best answer buys under ``--score``: on three 5x5 boards
with a pinned tile (:data:`PINNED`), small enough for CP-SAT to prove the optimum, the time to
the proof of each member alone (CP-SAT with one and two workers, the row scan with two)
against the race of both, sharing and not; with DIR (holding the public ``e2_16x16.txt``),
also the official 16x16 with the starter piece, 60 s on 2 cores, the score of each member
alone against the two races.

``--proof-costs``: why sharing pays there, CPU seconds in this process (see :func:`proof_costs`).

``--mixed PUZZLE``: a set of that puzzle's instances on which different formulations win
(:data:`MIXED`; ``--only`` some of them, ``--singles`` other strategies), the portfolio
against the virtual best (each instance's fastest strategy, known only in hindsight) and
against every single strategy, with each one's solved count and PAR-2.

    python benchmarks/portfolio.py                  # ~5 minutes on 2 cores
    python benchmarks/portfolio.py --quick          # a smoke run in a few seconds
    python benchmarks/portfolio.py --mixed pegsol   # the mixed set, ~10 minutes
    python benchmarks/portfolio.py --mixed masyu --shared /work/shared/instances
    python benchmarks/portfolio.py --sharing        # the pinned boards, ~10 minutes on a quiet machine
    python benchmarks/portfolio.py --sharing /work/shared/instances/eternity   # and the 16x16
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import tied  # noqa: E402

from puzzlesat.core import get_puzzle  # noqa: E402

SUB_SECOND = 1.0  # seconds of the best single strategy's own solve time
HELD_OUT = [(7, 3, 5, seed) for seed in range(101, 109)]
HEAD_SINGLES = ("native-rowscan", "cnf-heule:cadical195")  # eternity's members, each alone
QUICK = [(4, 2, 2, 1)]
FINAL = ("SOLVED", "OPTIMAL", "INFEASIBLE")
PROVEN = ("OPTIMAL", "INFEASIBLE")  # an optimisation's answers that count: SOLVED there is not proven the best


Source = dict[str, Any] | Path  # generator options (seed 0), or an instance file
SHIPPED = Path(__file__).resolve().parents[1] / "instances"


def pegsol_set(shared: Path) -> list[tuple[str, Source]]:
    """Pegsol boards where the native search wins (classic boards, small rectangles) and where the
    SAT plan wins (large rectangles, docs/pegsol.md), generated."""
    del shared
    boards: list[tuple[str, Source]] = [(name, {"board": name}) for name in ("english", "french", "german", "diamond")]
    boards += [(f"rect{r}x{c}", {"board": "rect", "rows": r, "cols": c}) for r, c in ((6, 5), (7, 6), (8, 7), (9, 8))]
    return boards


def masyu_set(shared: Path) -> list[tuple[str, Source]]:
    """Public Masyu puzzles from 6x6 to 40x58 (janko.at, puzzle-masyu.com's hardest), where they
    are present, and the shipped ones (generated, 7x7 to 30x30)."""
    public = shared / "masyu"
    names = (
        "janko_02_6x6",
        "puzsq_9833_10x10",
        "pmasyu_20x20_hard_1521295",
        "pmasyu_25x25_hard_unsolvedbyjosh_21528",
        "pmasyu_30x30_hard_Jan_31_2023",
        "pmasyu_40x40_hard_Jan_01_2023",
        "janko_270_31x45",
        "janko_760_40x58",
    )
    boards: list[tuple[str, Source]] = [(n, public / f"{n}.txt") for n in names if (public / f"{n}.txt").is_file()]
    shipped = ("seed_7x7", "gen_10x10_s1", "seed_16x33", "gen_20x20_s1", "gen_30x30_s1")  # generating: minutes
    boards += [(n, SHIPPED / "masyu" / f"{n}.txt") for n in shipped]
    return boards


def blacken_set(shared: Path) -> list[tuple[str, Source]]:
    """Generated blacken boards of the classes of docs/blacken.md where the native branch and
    bound wins (several components) and where the step models win (one component), seed 1."""
    del shared
    classes = ((8, 10, 4), (10, 12, 5), (10, 15, 5), (12, 20, 1), (12, 20, 2))
    return [(f"k{k}_q{q}_c{c}", {"size": k, "whites": q, "components": c, "seed": 1}) for k, q, c in classes]


def rubik_set(shared: Path) -> list[tuple[str, Source]]:
    """Scrambles of 4 to 13 moves: shallow enough for the bounded models to answer, deep enough
    for the native search's tables to matter (nothing here builds the large tables)."""
    del shared
    return [(f"scramble{m}", {"moves": m}) for m in (4, 6, 7, 8, 9, 10, 11, 12, 13)]


MIXED: dict[str, Callable[[Path], list[tuple[str, Source]]]] = {
    "pegsol": pegsol_set,
    "masyu": masyu_set,
    "blacken": blacken_set,
    "rubik": rubik_set,
}


def solve_once(puzzle: str, path: Path, how: list[str], timeout: float) -> dict[str, Any]:
    """One whole ``puzzlesat solve`` process: its wall time, status, own solve time and winner."""
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", puzzle, str(path), *how, "--json"]
    cmd += ["--timeout", str(timeout)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30, **tied())
    except subprocess.TimeoutExpired:
        return {"status": "TIMEOUT", "wall": timeout, "own": None, "strategy": ""}
    wall = time.perf_counter() - start
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"status": "ERROR", "wall": wall, "own": None, "strategy": proc.stderr.strip()[-80:]}
    return {"status": data["status"], "wall": wall, "own": data.get("wall_time"), "strategy": data.get("strategy", "")}


def median_run(runs: list[dict[str, Any]], timeout: float, final: tuple[str, ...] = FINAL) -> dict[str, Any]:
    """The median wall time of a configuration's rounds (an unsolved round counts as twice the limit)."""
    walls = [r["wall"] if r["status"] in final else timeout * 2 for r in runs]
    mid = sorted(range(len(runs)), key=lambda i: walls[i])[len(runs) // 2]
    return {**runs[mid], "wall": statistics.median(walls), "solved": sum(r["status"] in final for r in runs)}


def measure(
    puzzle: str, instances: list[tuple[str, Path]], singles: list[str], timeout: float, repeats: int
) -> list[dict[str, Any]]:
    """Every single strategy and the portfolio on every instance, in turns, ``repeats`` rounds."""
    rows = []
    final = PROVEN if get_puzzle(puzzle).optimisation else FINAL
    configs = [(s, ["-s", s]) for s in singles] + [("portfolio", ["--portfolio"])]
    for name, path in instances:
        runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in configs}
        for _ in range(repeats):
            for label, how in configs:
                runs[label].append(solve_once(puzzle, path, how, timeout))
        row = {"name": name, **{label: median_run(r, timeout, final) for label, r in runs.items()}}
        rows.append(row)
        cells = " ".join(f"{label}={row[label]['wall']:.2f}" for label, _ in configs)
        print(f"# {name}: {cells}", file=sys.stderr)
    return rows


def fmt(run: dict[str, Any], timeout: float) -> str:
    """A median time, or ``t/o`` when most rounds did not finish (they count as twice the limit)."""
    return f"{run['wall']:.2f}" if run["wall"] < 2 * timeout else f"t/o ({timeout:g})"


def head_start_table(rows: list[dict[str, Any]], singles: list[str], timeout: float) -> int:
    """The sub-second bar: the portfolio against the best single strategy, whole process."""
    print(f"| board | {' | '.join(singles)} | best single | portfolio | won by | portfolio / best |")
    print("|---|" + "---:|" * len(singles) + "---:|---:|---|---:|")
    ratios = []
    for row in rows:
        best = min(singles, key=lambda s: row[s]["wall"])
        port = row["portfolio"]
        ratio = port["wall"] / row[best]["wall"]
        own = row[best]["own"]
        if own is not None and own < SUB_SECOND and row[best]["solved"]:
            ratios.append(ratio)
        cells = " | ".join(fmt(row[s], timeout) for s in singles)
        who = port["strategy"] if port["wall"] < 2 * timeout else "-"
        print(f"| {row['name']} | {cells} | {best} | {fmt(port, timeout)} | {who} | {ratio:.2f} |")
    print()
    median = statistics.median(ratios) if ratios else float("nan")
    print(
        f"sub-second boards (best single's own time < {SUB_SECOND:g} s): {len(ratios)}; "
        f"median portfolio / best single, whole process: {median:.2f} (target <= 1.3)"
    )
    return 0


def mixed_table(rows: list[dict[str, Any]], singles: list[str], timeout: float) -> int:
    """The portfolio against the virtual best and every single strategy."""
    print(f"| instance | {' | '.join(singles)} | virtual best | portfolio | won by |")
    print("|---|" + "---:|" * len(singles) + "---:|---:|---|")
    par2: dict[str, float] = {s: 0.0 for s in [*singles, "virtual best", "portfolio"]}
    solved: dict[str, int] = dict.fromkeys(par2, 0)
    for row in rows:
        winner = min(singles, key=lambda s: row[s]["wall"])
        vbs = row[winner]
        for label, run in [*((s, row[s]) for s in singles), ("virtual best", vbs), ("portfolio", row["portfolio"])]:
            ok = bool(run["solved"])
            solved[label] += ok
            par2[label] += run["wall"] if ok else 2 * timeout
        cells = " | ".join(
            f"**{fmt(row[s], timeout)}**" if s == winner and vbs["solved"] else fmt(row[s], timeout) for s in singles
        )
        port = row["portfolio"]
        who = port["strategy"] if port["wall"] < 2 * timeout else "-"
        print(f"| {row['name']} | {cells} | {fmt(vbs, timeout)} ({winner}) | {fmt(port, timeout)} | {who} |")
    n = len(rows)
    labels = [*singles, "virtual best", "portfolio"]
    print(f"| solved | {' | '.join(f'{solved[s]}/{n}' for s in labels)} | |")
    print(f"| PAR-2 (s) | {' | '.join(f'{par2[s] / n:.2f}' for s in labels)} | |")
    return 0


ETERNITY = Path(__file__).resolve().parents[1] / "instances" / "eternity"
# 5x5 boards with one tile pinned where no perfect board exists, small enough for CP-SAT to prove
# the optimum: (board, pin, optimum). The row scan finds the optimum of the second and third
# within a second or a few (CP-SAT: seconds to half a minute), and proves none of them soon;
# refuting one more edge takes CP-SAT 0.06-3 s
PINNED = (
    ("peak_5x5_b3_m6_s0.txt", "1 2 2 1", "38/40"),
    ("peak_5x5_b3_m7_s2.txt", "2 3 3 2", "35/40"),
    ("peak_5x5_b4_m6_s1.txt", "1 2 2 1", "36/40"),
)
STARTER = "139 8 7 2\n"  # the starter piece, 1-based as in the official hints file
RACE = """
import json, sys, time
import puzzlesat as ps
from puzzlesat.core import Limits
from puzzlesat.portfolio import race
path, hints, members, timeout, share = sys.argv[1:6]
inst = ps.load("eternity", path, hints=hints)
res = race.race(inst.puzzle, inst.data, members.split(","), Limits(timeout=float(timeout), options={"score": True}),
                share=share == "1")
print(json.dumps({"status": res.result.status.value, "objective": res.result.objective,
                  "strategy": res.result.strategy, "wall_time": res.wall_time}))
"""


def score_run(path: Path, hints: Path, how: list[str], timeout: float) -> dict[str, Any]:
    """One whole process under ``--score``: a single strategy (``-s``) or a race (``race:MEMBERS:SHARE``)."""
    if how[0].startswith("race:"):
        _, members, share = how[0].split(":")
        cmd = [sys.executable, "-c", RACE, str(path), str(hints), members, str(timeout), share]
    else:
        cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--hints", str(hints)]
        cmd += ["--score", "--json", "--timeout", str(timeout), *how]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60, **tied())
    wall = time.perf_counter() - start
    try:
        data = json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"status": "ERROR", "wall": wall, "objective": None, "strategy": proc.stderr.strip()[-80:]}
    return {"status": data["status"], "wall": wall, "objective": data.get("objective"), "strategy": data["strategy"]}


def proof_costs() -> int:
    """Why sharing pays on the pinned boards, in this process, CPU seconds: CP-SAT (one worker)
    finding and proving the optimum from nothing, CP-SAT refuting one edge more than the optimum
    (what a member proves once the race holds the best board), and when the row scan (one
    worker, 10 s) finds its best board."""
    import puzzlesat as ps
    from puzzlesat.domains.eternity import max_score
    from puzzlesat.models.eternity import build_score_model

    print("| board | optimum | CP-SAT finds and proves it | CP-SAT refutes one edge more | row scan finds it (wall) |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="puzzlesat-bench-") as scratch:
        pin = Path(scratch) / "pin.txt"
        for board, placed, _ in PINNED:
            pin.write_text(placed + "\n")
            inst = ps.load("eternity", ETERNITY / board, hints=str(pin))
            total = max_score(inst.data)
            found, optimum = _cpsat_seconds(build_score_model(inst.data, {})[0])
            refuted, _ = _cpsat_seconds(build_score_model(inst.data, {}, int(optimum) + 1)[0])
            scan = ps.solve(inst, "native-rowscan", timeout=10, workers=1, score=True)
            at = scan.stats.get("best_at")
            best = total - (scan.objective if scan.objective is not None else total)
            hit = f"{at:.2f}" if best == optimum else f"not in 10 s ({best}/{total})"
            print(
                f"| {board[:-4]} `{placed}` | {int(optimum)}/{total} | {found:.2f} | {refuted:.2f} | {hit} |",
                flush=True,
            )
    return 0


def _cpsat_seconds(model: Any) -> tuple[float, float]:
    """CPU seconds of one CP-SAT worker on a model, and its objective (the score)."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    began = time.process_time()
    solver.solve(model)
    return time.process_time() - began, solver.objective_value


PROOF_LIMIT = 60.0  # seconds a run may take to prove a pinned board's optimum


def sharing(folder: Path | None, repeats: int) -> int:
    """The two sharing tables (module docstring)."""
    from puzzlesat.domains.eternity import max_score

    configs = [
        ("cpsat-table, 2 workers", ["-s", "cpsat-table", "--workers", "2"]),
        ("cpsat-table, 1 worker", ["-s", "cpsat-table", "--workers", "1"]),
        ("native-rowscan, 2 workers", ["-s", "native-rowscan", "--workers", "2"]),
        ("race, sharing", ["race:native-rowscan,cpsat-table:1"]),
        ("race, apart", ["race:native-rowscan,cpsat-table:0"]),
    ]
    with tempfile.TemporaryDirectory(prefix="puzzlesat-bench-") as scratch:
        for board, placed, optimum in PINNED:
            pin = Path(scratch) / "pin.txt"
            pin.write_text(placed + "\n")
            print(
                f"| {board[:-4]}, tile pinned `{placed}` (optimum {optimum}) | "
                + " | ".join(f"round {k + 1}" for k in range(repeats))
                + " | median |"
            )
            print("|---|" + "---:|" * (repeats + 1))
            rows: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in configs}
            for _ in range(repeats):  # the configurations take turns
                for label, how in configs:
                    rows[label].append(score_run(ETERNITY / board, pin, how, PROOF_LIMIT))
            for label, runs in rows.items():
                walls = [r["wall"] if r["status"] == "OPTIMAL" else float("inf") for r in runs]
                cells = " | ".join(
                    f"{w:.2f}" if w != float("inf") else r["status"] for w, r in zip(walls, runs, strict=True)
                )
                print(f"| {label} | {cells} | {statistics.median(walls):.2f} |", flush=True)
            print()
        if folder is None:
            return 0
        official = folder / "e2_16x16.txt"
        if not official.is_file():
            print(f"# {official} absent: no 16x16 table", file=sys.stderr)
            return 0
        total = max_score(get_puzzle("eternity").parse(official.read_text(), str(official)))
        starter = Path(scratch) / "starter.txt"
        starter.write_text(STARTER)
        print()
        print("| 16x16 + starter, 60 s, 2 cores | score | won by |")
        print("|---|---:|---|")
        for label, how in configs:
            run = score_run(official, starter, how, 60)
            score = "-" if run["objective"] is None else f"{total - run['objective']}/{total}"
            print(f"| {label} | {score} | {run['strategy']} |", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one tiny board")
    parser.add_argument("--mixed", choices=sorted(MIXED), default=None, help="the mixed set of this puzzle")
    parser.add_argument(
        "--sharing",
        type=Path,
        nargs="?",
        const=Path(),
        default=None,
        metavar="DIR",
        help="the sharing tables (DIR: e2_16x16.txt; without it the pinned 5x5 boards only)",
    )
    parser.add_argument("--only", type=lambda text: text.split(","), default=None, help="--mixed: these instances")
    parser.add_argument("--proof-costs", action="store_true", help="why sharing pays on the pinned 5x5 boards")
    parser.add_argument(
        "--shared", type=Path, default=Path("../shared/instances"), help="the public instances (--mixed masyu)"
    )
    parser.add_argument(
        "--singles", type=lambda text: text.split(","), default=None, help="single strategies (default: the portfolio)"
    )
    parser.add_argument("--timeout", type=float, default=None, help="seconds per run (default 20, mixed 60)")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per instance (default 3, mixed 1)")
    args = parser.parse_args(argv)

    began = time.monotonic()
    if args.proof_costs:
        return proof_costs()
    if args.sharing is not None:
        return sharing(None if args.sharing == Path() else args.sharing, args.repeats or 3)
    with tempfile.TemporaryDirectory(prefix="puzzlesat-bench-") as folder:
        if args.mixed:
            puzzle = get_puzzle(args.mixed)
            timeout = args.timeout or 60.0
            repeats = args.repeats or 1
            instances = []
            for name, source in MIXED[args.mixed](args.shared):
                if args.only and name not in args.only:
                    continue
                path = source if isinstance(source, Path) else Path(folder) / f"{name}.txt"
                if not isinstance(source, Path):
                    options = {k: v for k, v in source.items() if k != "seed"}
                    path.write_text(puzzle.write_instance(puzzle.generate(options, source.get("seed", 0))))
                instances.append((name, path))
        else:
            puzzle = get_puzzle("eternity")
            timeout = args.timeout or 20.0
            repeats = args.repeats or (1 if args.quick else 3)
            instances = []
            for size, frame, inner, seed in QUICK if args.quick else HELD_OUT:
                name = f"g{size}_f{frame}_i{inner}_s{seed}"
                inst = puzzle.generate({"size": size, "frame_colours": frame, "inner_colours": inner}, seed)
                path = Path(folder) / f"{name}.txt"
                path.write_text(puzzle.write_instance(inst))
                instances.append((name, path))
        singles = list(dict.fromkeys(args.singles or (puzzle.portfolio if args.mixed else HEAD_SINGLES)))
        print(
            f"# {puzzle.name}: {len(instances)} instances, singles {', '.join(singles)} and the default portfolio, "
            f"timeout {timeout:g}s, {repeats} round(s), whole processes",
            file=sys.stderr,
        )
        rows = measure(puzzle.name, instances, singles, timeout, repeats)
    code = (mixed_table if args.mixed else head_start_table)(rows, singles, timeout)
    print(f"# took {time.monotonic() - began:.0f}s", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
