"""Time a new user's first solves: each shipped instance on empty caches, then warm.

Every run is a whole ``puzzlesat solve PUZZLE FILE`` process with the default strategy, as a
user types it, timed from outside (wall seconds, and the CPU seconds of the process and its
children, which a loaded machine inflates less).  The caches are never the user's: each
instance gets fresh temporary folders for numba's compiled kernels (``NUMBA_CACHE_DIR``, which
numba then uses instead of the ``__pycache__`` folders beside the sources) and for the
tables (``PUZZLESAT_CACHE`` and ``XDG_CACHE_HOME``), so the first run compiles and builds
everything it needs, as after a fresh install, and the warm runs that follow reuse what it
left there.  The folders are deleted at the end; nothing else is touched.

``--tree DIR`` runs the same commands from another checkout too (e.g. ``main`` before a
change: ``git worktree add /tmp/before main``), the two interleaved so that both see the same
load; ``python -c pass`` and ``puzzlesat list`` give the floor any command pays.

``--parts`` adds ``--json`` to the first runs and splits their wall time by the strategy's
own statistics: numba and imports (``compile_time``, or the cube's ``compile_s``: the
solver's imports, numba's among them, and compiling or loading its kernels), the cube's
tables (``tables_s``), the search (the cube's ``search_s``, else the result's ``wall_time``)
and the rest (Python's start-up, the command's imports, reading the instance, the verifier,
printing).

Every instance under ``instances/`` runs (the cube's ``seed_position.txt`` among them, whose
first run builds the 1.85 GB tables); ``--seeds`` keeps the six seed instances of the bar
figures, ``--only NAME...`` the files whose names hold one of the words.

Usage:
    python benchmarks/first_solve.py [--puzzles eternity masyu ...] [--warm 5] [--timeout 120]
    python benchmarks/first_solve.py --seeds --tree /tmp/before
    python benchmarks/first_solve.py --only seed_position --warm 1 --timeout 600
    python benchmarks/first_solve.py --parts --warm 1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, tied  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEEDS = [  # the bar figures' first minute
    ("eternity", "instances/eternity/seed_4x4.txt"),
    ("masyu", "instances/masyu/seed_7x7.txt"),
    ("masyu", "instances/masyu/seed_16x33.txt"),
    ("pegsol", "instances/pegsol/english33_center.txt"),
    ("blacken", "instances/blacken/seed_7x7.txt"),
    ("rubik", "instances/rubik/scramble_8_seed1.txt"),
]
# every shipped instance (README.md and the .sol answers beside them are no instances)
SHIPPED = [(path.parent.name, str(path.relative_to(ROOT))) for path in sorted(ROOT.glob("instances/*/*.txt"))]
FLOOR = [("python -c pass", ["-c", "pass"]), ("puzzlesat list", ["-m", "puzzlesat.cli", "list"])]


def timed(args: list[str], tree: Path, caches: Path, timeout: float) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, exit code, stdout) of ``python ARGS`` run in ``tree``, its caches in ``caches``."""
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(caches / "numba"))
    env.update(PUZZLESAT_CACHE=str(caches / "tables"), XDG_CACHE_HOME=str(caches / "xdg"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = ""
    try:
        done = subprocess.run(
            [sys.executable, *args], cwd=tree, env=env, capture_output=True, timeout=timeout, **tied()
        )
        code, out = done.returncode, done.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        code = -1
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, code, out


def parts(wall: float, out: str) -> list[str]:
    """A ``--json`` run's wall seconds split: numba, tables, search, the rest (see the docstring)."""
    try:
        result = json.loads(out)
    except ValueError:
        return ["?"] * 4
    stats = result.get("stats") or {}
    numba = float(stats.get("compile_time", stats.get("compile_s", 0.0)))
    tables = float(stats.get("tables_s", 0.0))
    search = float(stats.get("search_s", result.get("wall_time") or 0.0))
    return [f"{numba:.2f}", f"{tables:.2f}", f"{search:.2f}", f"{wall - numba - tables - search:.2f}"]


def cell(wall: float, cpu: float, code: int, timeout: float) -> str:
    """``wall (cpu)`` seconds, ``> limit`` for a run stopped at the limit, the exit code when not 0."""
    if code == -1:
        return f"> {timeout:g}"
    return f"{wall:.2f} ({cpu:.2f})" + ("" if code == 0 else f" exit {code}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--puzzles", nargs="+", help="only these puzzles' instances (default: every puzzle)")
    parser.add_argument("--seeds", action="store_true", help="only the six seed instances of the bar figures")
    parser.add_argument("--only", nargs="+", help="only the files whose names hold one of these words")
    parser.add_argument("--warm", type=int, default=5, help="warm runs per instance (their median is shown)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a run is stopped")
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout to time alike")
    parser.add_argument("--parts", action="store_true", help="split the first runs' time (--json statistics)")
    args = parser.parse_args()
    trees = [ROOT, *(tree.resolve() for tree in args.tree)]
    seeds = [
        (p, f)
        for p, f in (SEEDS if args.seeds else SHIPPED)
        if (not args.puzzles or p in args.puzzles) and (not args.only or any(w in Path(f).name for w in args.only))
    ]
    rows: list[list[str]] = []
    split: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="puzzlesat-first-") as tmp:
        for name, floor_args in FLOOR:
            row = [name]
            for t, tree in enumerate(trees):
                runs = [timed(floor_args, tree, Path(tmp) / f"floor{t}", args.timeout) for _ in range(args.warm)]
                row += ["", cell(statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), 0, 0)]
            rows.append(row)
        for index, (puzzle, path) in enumerate(seeds):
            command = ["-m", "puzzlesat.cli", "solve", puzzle, path, *(["--json"] if args.parts else [])]
            row = [f"{puzzle} {Path(path).name}"]
            for t, tree in enumerate(trees):
                caches = Path(tmp) / f"{index}-{t}"  # empty: the first run fills it
                first = timed(command, tree, caches, args.timeout)
                print(f"c {row[0]} tree {t} first: {cell(*first[:3], args.timeout)}", file=sys.stderr)
                row.append(cell(*first[:3], args.timeout))
                if args.parts:
                    split.append(
                        [row[0], "" if t == 0 else str(tree), cell(*first[:3], args.timeout), *parts(*first[::3])]
                    )
                if first[2] == -1:  # stopped before its caches were filled: no warm runs to time
                    row.append("-")
                    continue
                warm = [timed(command, tree, caches, args.timeout) for _ in range(args.warm)]
                wall = statistics.median(r[0] for r in warm)
                cpu = statistics.median(r[1] for r in warm)
                row.append(cell(wall, cpu, max(r[2] for r in warm), args.timeout))
            rows.append(row)
    header = ["command"]
    for t, tree in enumerate(trees):
        label = "this tree" if t == 0 else str(tree)
        header += [f"first, {label}", f"warm median of {args.warm}, {label}"]
    print_table("whole-process seconds, wall (CPU), default strategy, empty caches for the first run", header, rows)
    if args.parts:
        print_table(
            "where the first run's wall seconds go",
            ["command", "tree", "whole, wall (CPU)", "numba, imports", "tables", "search", "rest: start-up, I/O"],
            split,
        )


if __name__ == "__main__":
    main()
