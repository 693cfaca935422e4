"""Time every peg-solitaire strategy on the English complements, rectangles and shared boards.

Sets: ``english`` (the seed's complement game on the 33-hole board from each of its 33 start
holes, one row each), ``rect`` (generated rectangles, and the boards shipped in
instances/pegsol/), ``course`` and ``ipc`` (../shared/instances/pegsol: the course's tests and
the 36 planning-competition boards; skipped when absent).  Runs happen in this process under
each strategy's own time limit; the time is the strategy's wall time (imports and numba
compilation apart).  ``best`` is the fastest final answer of the row, i.e. what the portfolio
race would return, less its process start-up.

``--encodings`` compares instead the encoding variants of ``cnf-plan:cadical195`` (strategy
names with ``@KEY=VALUE`` options, as ``compare`` takes them, see :data:`ENCODINGS`) on the
English complements, one start hole per symmetry class, and on the 5x5 and 4x4 complements
with ``no_proofs`` (impossible: only an UNSAT answer settles them); the conflicts are
CaDiCaL's, summed over the parallel form's horizons.

The large native searches (``native-dfs`` only, ``--big-timeout`` each, with its statistics:
nodes, nodes/s, endgame, pagoda cuts, symmetries): ``german`` (the 45-hole central game),
``bigrect`` (the 9x8 and 9x9 central complements, then the same with ``cnf-plan:cadical195``,
which settles them), and ``ablation`` (the German game, the 7x6 complement and the French
problem 0:2>3:4 with each pruning switched off in turn).  The catalogs:
``catalog-english`` and ``catalog-french`` (``puzzlesat.catalog`` with ``--jobs``, wall time
and the counts).

Usage:
    python benchmarks/pegsol.py [--sets english rect course ipc] [--strategies native-dfs ...]
                                [--timeout 10]
    python benchmarks/pegsol.py --encodings [--variants NAME ...] [--timeout 20]
    python benchmarks/pegsol.py --sets german bigrect --big-timeout 300
    python benchmarks/pegsol.py --sets catalog-english catalog-french --jobs 2
    python benchmarks/pegsol.py --quick
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, summary  # noqa: E402

from puzzlesat.core import Limits, Status, run_strategy  # noqa: E402
from puzzlesat.domains import pegsol  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "instances" / "pegsol"
STRATEGIES = ["native-dfs", "cnf-plan:cadical195", "cpsat-plan"]
FINAL = (Status.SOLVED, Status.INFEASIBLE)


# cnf-plan's encoding variants: a label, and the options in the strategy's name
ENCODINGS = {
    "parallel (default)": "",
    "parallel, one horizon at a time": "@window=1",
    "parallel, no parity": "@parity=0",
    "parallel, parity at every step": "@parity=2",
    "parallel, no symmetry": "@symmetry=0",
    "parallel + pagoda": "@pagoda=1",
    "sequential, ordering only (the old default)": "@parallel=0@parity=0@symmetry=0",
    "sequential": "@parallel=0",
    "sequential, lex normal form": "@parallel=0@ordering=2",
    "sequential + count": "@parallel=0@count=1",
    "sequential + pagoda": "@parallel=0@pagoda=1",
    "sequential, no ordering": "@parallel=0@ordering=0",
}
# one start hole per symmetry class of the English board
ENGLISH_CLASSES = ["0,2", "0,3", "1,2", "1,3", "2,2", "2,3", "3,3"]


def encodings(variants: list[str], timeout: float) -> None:
    """The encoding table: each variant on the English complements and the impossible boards."""
    english = [(h, pegsol.generate({"board": "english", "hole": h}, 0)) for h in ENGLISH_CLASSES]
    impossible = [(f"{n}x{n}", pegsol.generate({"board": "rect", "rows": n, "cols": n}, 0)) for n in (5, 4)]
    rows = []
    for label in variants:
        name = "cnf-plan:cadical195" + ENCODINGS[label]
        cells = [label, name[len("cnf-plan:cadical195") :] or "-"]
        times: list[float] = []
        statuses: list[str] = []
        for set_name, items, options in (("english", english, {}), ("impossible", impossible, {"no_proofs": True})):
            conflicts = 0
            for hole, inst in items:
                result = run_strategy(pegsol.PUZZLE, inst, name, Limits(timeout=timeout, options=options))
                status = result.status.value if result.status in FINAL else "TIMEOUT"
                seconds = result.wall_time if status != "TIMEOUT" else timeout
                conflicts += int(result.stats.get("conflicts", 0))
                print(
                    f"c {label} {set_name} {hole}: {status} {seconds:.2f}s {result.stats}", file=sys.stderr, flush=True
                )
                if set_name == "english":
                    times.append(seconds)
                    statuses.append(status)
                else:
                    cells.append(f"{seconds:.2f} {status[:5]}")
            if set_name == "english":
                cells.insert(2, summary(times, statuses))
                cells.insert(3, f"{sum(t < 10 for t, s in zip(times, statuses, strict=True) if s != 'TIMEOUT')}/7")
                cells.insert(4, str(conflicts))
            else:
                cells.append(str(conflicts))
        rows.append(cells)
    print_table(
        f"cnf-plan:cadical195 encodings (limit {timeout:g} s a run)",
        [
            "variant",
            "options",
            "English median / worst",
            "English < 10 s",
            "English conflicts",
            "5x5 no-proofs",
            "4x4 no-proofs",
            "impossible conflicts",
        ],
        rows,
    )


def instances(name: str, quick: bool) -> list[tuple[str, pegsol.Instance]]:
    """The (label, instance) pairs of one set."""
    if name == "english":
        holes = [(3, 3), (2, 0)] if quick else pegsol.generate({"board": "english"}, 0).cells
        return [(f"english {r},{c}", pegsol.generate({"board": "english", "hole": f"{r},{c}"}, 0)) for r, c in holes]
    if name == "rect":
        sizes = (
            [(3, 4, "0,1")]
            if quick
            else [
                (3, 4, "0,1"),
                (3, 6, "0,0"),
                (4, 4, "1,1"),
                (5, 5, "2,2"),
                (6, 3, "1,0"),
                (6, 4, "3,2"),
                (6, 6, "3,2"),
                (6, 6, "0,0"),
                (5, 6, "2,2"),
                (7, 6, "3,3"),
            ]
        )
        out = [(f"rect {r}x{c} {h}", pegsol.generate({"rows": r, "cols": c, "hole": h}, 0)) for r, c, h in sizes]
        if not quick:
            for path in sorted((ROOT / "instances" / "pegsol").glob("*.txt")):
                out.append((path.stem, pegsol.parse(path.read_text(), str(path))))
        return out
    folder = SHARED if name == "course" else SHARED / "ipc_pegsol"
    pattern = "*.in" if name == "course" else "[0-9]*.txt"
    paths = sorted(folder.glob(pattern)) if folder.is_dir() else []
    if quick:
        paths = paths[:1]
    return [(path.stem, pegsol.parse(path.read_text(), str(path))) for path in paths]


BIG = {
    "german": [
        ("german 45 central", lambda: pegsol.parse((ROOT / "instances/pegsol/german45_center.txt").read_text()))
    ],
    "bigrect": [
        (f"rect {r}x{c} central complement", lambda r=r, c=c: pegsol.generate({"rows": r, "cols": c}, 0))
        for r, c in ((9, 8), (9, 9))
    ],
}
ABLATION = [{}, {"no_symmetry": True}, {"no_pagoda": True}, {"no_meet": True}]


def big_searches(set_name: str, timeout: float) -> None:
    """native-dfs alone on the large boards, with its statistics; ``ablation`` switches each
    pruning off in turn."""
    cases = [(label, make, {}) for label, make in BIG.get(set_name, [])]
    if set_name == "ablation":
        seven = ("rect 7x6 central complement", lambda: pegsol.generate({"rows": 7, "cols": 6}, 0))
        french = ("french 0:2>3:4", lambda: pegsol.generate({"board": "french", "hole": "0,2", "goal": "3,4"}, 0))
        cases = [(label, make, opts) for label, make in (BIG["german"][0], seven, french) for opts in ABLATION]
    rows = []
    for label, make, opts in cases:
        inst = make()
        began = time.perf_counter()
        result = run_strategy(pegsol.PUZZLE, inst, "native-dfs", Limits(timeout=timeout, options=dict(opts)))
        seconds = result.wall_time or time.perf_counter() - began
        stats = result.stats
        print(f"c {set_name} {label} {opts}: {result.status.value} {seconds:.2f}s {stats}", file=sys.stderr, flush=True)
        rows.append(
            [
                label,
                ", ".join(opts) or "all on",
                result.status.value,
                f"{seconds:.1f}",
                str(stats.get("nodes", "")),
                str(stats.get("nodes_per_second", "")),
                f"{stats.get('endgame_jumps', '-')} / {stats.get('endgame_positions', '-')}",
                str(stats.get("pagodas", "")),
                str(stats.get("symmetries", "")),
            ]
        )
    print_table(
        f"{set_name}: native-dfs (limit {timeout:g} s)",
        [
            "instance",
            "switched off",
            "status",
            "seconds",
            "nodes",
            "nodes/s",
            "endgame jumps / positions",
            "pagodas",
            "symmetries",
        ],
        rows,
    )


def sat_plans(set_name: str, timeout: float) -> None:
    """The default SAT plan on the same large boards: it settles the rectangles native-dfs does not."""
    rows = []
    for label, make in BIG[set_name]:
        result = run_strategy(pegsol.PUZZLE, make(), "cnf-plan:cadical195", Limits(timeout=timeout))
        stats = result.stats
        print(f"c {set_name} {label} cnf-plan: {result.status.value} {result.wall_time:.2f}s {stats}", file=sys.stderr)
        cells = [str(stats.get(key, "")) for key in ("horizon", "variables", "clauses", "conflicts")]
        rows.append([label, result.status.value, f"{result.wall_time:.1f}", *cells])
    print_table(
        f"{set_name}: cnf-plan:cadical195 (limit {timeout:g} s)",
        ["instance", "status", "seconds", "parallel steps", "variables", "clauses", "conflicts"],
        rows,
    )


def catalogs(board: str, jobs: int, timeout: float) -> None:
    """A whole catalog through the library, timed, with its counts."""
    import puzzlesat

    began = time.perf_counter()
    cat = puzzlesat.catalog("pegsol", board=board, jobs=jobs, timeout=timeout, stream=sys.stderr)
    wall = time.perf_counter() - began
    counts = cat.summary()
    rows = [[key, str(value)] for key, value in counts.items()]
    rows.append(["wall seconds", f"{wall:.0f}"])
    print_table(f"catalog {board} (--jobs {jobs}, --timeout {timeout:g})", ["count", "value"], rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    small = ["english", "rect", "course", "ipc"]
    large = ["german", "bigrect", "ablation", "catalog-english", "catalog-french"]
    parser.add_argument("--sets", nargs="+", default=small, choices=small + large)
    parser.add_argument("--big-timeout", type=float, default=300.0, help="seconds for each large native search")
    parser.add_argument("--jobs", type=int, default=2, help="catalog problems at once")
    parser.add_argument("--catalog-timeout", type=float, default=60.0, help="seconds per catalog problem and strategy")
    parser.add_argument("--strategies", nargs="+", default=STRATEGIES)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--encodings", action="store_true", help="compare cnf-plan's encoding variants instead")
    parser.add_argument("--variants", nargs="+", default=list(ENCODINGS), choices=list(ENCODINGS))
    args = parser.parse_args()
    if args.encodings:
        encodings(args.variants, args.timeout)
        return 0
    if args.quick:
        args.sets, args.timeout = ["rect"], 3.0
    for set_name in args.sets:
        if set_name.startswith("catalog-"):
            catalogs(set_name[len("catalog-") :], args.jobs, args.catalog_timeout)
            continue
        if set_name in large:
            big_searches(set_name, args.big_timeout)
            if set_name == "bigrect":
                sat_plans(set_name, args.big_timeout)
            continue
        rows = []
        per_strategy: dict[str, tuple[list[float], list[str]]] = {s: ([], []) for s in args.strategies}
        best_times: list[float] = []
        best_statuses: list[str] = []
        for label, inst in instances(set_name, args.quick):
            cells = [label, str(inst.moves_needed)]
            best: tuple[float, str] | None = None
            for strategy in args.strategies:
                start = time.perf_counter()
                result = run_strategy(pegsol.PUZZLE, inst, strategy, Limits(timeout=args.timeout))
                seconds = result.wall_time or time.perf_counter() - start
                status = result.status.value if result.status in FINAL else "TIMEOUT"
                if status == "TIMEOUT":
                    seconds = max(seconds, args.timeout)
                per_strategy[strategy][0].append(seconds)
                per_strategy[strategy][1].append(status)
                cells.append(f"{seconds:.3f} {status[:3]}")
                if result.status in FINAL and (best is None or seconds < best[0]):
                    best = (seconds, status)
                print(
                    f"c {set_name} {label} {strategy}: {status} {seconds:.3f}s {result.stats}",
                    file=sys.stderr,
                    flush=True,
                )
            best_times.append(best[0] if best else args.timeout)
            best_statuses.append(best[1] if best else "TIMEOUT")
            cells.append(f"{best[0]:.3f} {best[1][:3]}" if best else "-")
            rows.append(cells)
        if not rows:
            print(f"\n(set {set_name}: no instances found)")
            continue
        print_table(
            f"{set_name}: seconds per instance (limit {args.timeout:g} s)",
            ["instance", "jumps", *args.strategies, "best"],
            rows,
        )
        summary_rows = [[s, summary(*per_strategy[s])] for s in args.strategies]
        summary_rows.append(["best", summary(best_times, best_statuses)])
        under = sum(t < 1.0 for t, s in zip(best_times, best_statuses, strict=True) if s != "TIMEOUT")
        print_table(
            f"{set_name}: median / worst seconds (answered/total); best under 1 s: {under}/{len(rows)}",
            ["strategy", "median / worst"],
            summary_rows,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
