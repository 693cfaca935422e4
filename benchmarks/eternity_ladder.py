"""The hunt's ladder: boards of score >= T per CPU-hour, for T from the target up to the best found.

Runs ``puzzlesat solve eternity BOARD --hints H --score --target T --boards DIR`` as a whole
process (``--runs`` times, seeds 0, 1, ...), each stopped by its ``--timeout``, and counts:

* **all boards**: every board the scans completed at each level, the same board again too (as
  eii's logs count them), read from the run's ``ladder=`` statistic;
* **distinct boards**: the files in DIR, each read back, verified and scored again here (the
  domain's verifier, as ``check --score``), one per placement.

Rates are per CPU-hour: the run's seconds times its workers (the CPU it was given), and beside
them per CPU-hour of CPU the process tree used (user and system), which a machine shared with
other work lowers less.  ``--starter`` keeps only the hint nearest the board's centre (the
starter piece of Eternity II) from the ``--hints`` file; ``-O KEY=VALUE`` (repeated) passes
an option of ``native-rowscan`` to the hunt (its knobs: ``list -v eternity``).

``--yardstick PATH`` counts an external solver's boards the same way, for a column beside
ours: a folder of board files, or one file (a log) holding boards one after the other in the
seed's answer format (``tile rotation`` per cell; other lines are skipped), each verified and
scored by the domain's verifier; ``--yardstick-cpu-hours`` is the CPU it was given.  With
the official 16x16, eii's published ladder (Verhaard's log, issue 49) is printed beside.

Usage:
    python benchmarks/eternity_ladder.py e2_16x16.txt --hints e2_16x16_hints.txt --starter \
        --target 458 --timeout 600 --workers 2
    python benchmarks/eternity_ladder.py e2_16x16.txt --hints e2_16x16_hints.txt --target 458 \
        --timeout 600 --workers 2 --yardstick blackwood_boards/ --yardstick-cpu-hours 0.333
    python benchmarks/eternity_ladder.py e2_16x16.txt --hints e2_16x16_hints.txt --starter \
        --target 460 --timeout 1500 --workers 2 -O preset=blackwood   # Blackwood's setup (docs/eternity.md)
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from puzzlesat import api
from puzzlesat.domains import eternity

ROOT = Path(__file__).resolve().parents[1]
# Verhaard's eii, one PC, 2009 (issue 49): boards logged at each level (every board found, not
# deduplicated) in 43 days, and two 467s in 82 days
EII_HOURS = 43 * 24
EII_LOG = {463: 2_008_484, 464: 109_195, 465: 6_048, 466: 250}
EII_467 = (2, 82 * 24)
OFFICIAL = 480  # the official 16x16's edges: eii's ladder is printed for it only


def starter(hints: Path, rows: int, cols: int) -> str:
    """The hint line nearest the board's centre."""
    lines = [line for line in hints.read_text().splitlines() if line.strip() and not line.startswith("#")]

    def distance(line: str) -> float:
        _, row, col = (int(x) for x in line.split()[:3])
        return (row - (rows - 1) / 2) ** 2 + (col - (cols - 1) / 2) ** 2

    return min(lines, key=distance) + "\n"


def boards_in(instance: eternity.Instance, path: Path) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """(score, placement) of every legal board in a folder of board files or in one log file."""
    files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
    found = []
    pair = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
    for file in files:
        block: list[str] = []
        for line in [*file.read_text(errors="replace").splitlines(), ""]:
            if pair.match(line):
                block.append(line)
            if len(block) == instance.cells or (block and not pair.match(line)):
                solution = eternity.parse_solution(instance, "\n".join(block) + "\n") if block else None
                block = []
                if solution is not None and not eternity.verify(instance, solution, matching=False):
                    found.append((eternity.score(instance, solution), solution.placements))
    return found


def rate(count: int, hours: float | None) -> str:
    """A count per CPU-hour, or the count alone when the hours are not known."""
    return f"{count / hours:,.1f} /CPU-h" if hours else f"{count:,}"


def at_least(counts: Counter[int], level: int) -> int:
    return sum(n for score, n in counts.items() if score >= level)


def run(args: argparse.Namespace, hints: Path, seed: int, folder: Path) -> tuple[Counter[int], float, float]:
    """One hunt: (all boards by score, CPU-hours given, CPU-hours used)."""
    cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(args.board), "--hints", str(hints)]
    cmd += ["--score", "--target", str(args.target), "--boards", str(folder), "--timeout", str(args.timeout)]
    cmd += ["--workers", str(args.workers), "--seed", str(seed)]
    for option in args.option:
        cmd += ["-O", option]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / 3600
    if proc.returncode not in (0, 3):
        sys.exit(f"seed {seed}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    match = re.search(r" ladder=(\S+)", proc.stderr)
    found: Counter[int] = Counter()
    for item in match.group(1).split(",") if match and match.group(1) != "none" else []:
        score, counts = item.split(":")
        found[int(score)] += int(counts.split("/")[0])
    line = next((x for x in proc.stderr.splitlines() if x.startswith("c native-rowscan")), "")
    print(f"seed {seed}: {wall:.0f} s wall, {used * 3600:.0f} s CPU: {line}", file=sys.stderr)
    return found, args.timeout * args.workers / 3600, used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("board", type=Path)
    parser.add_argument("--hints", type=Path, required=True)
    parser.add_argument("--starter", action="store_true", help="only the hint nearest the centre")
    parser.add_argument("--target", type=int, default=458)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0, help="the first run's seed")
    parser.add_argument("--boards", type=Path, help="keep the boards here (default: a temporary folder)")
    parser.add_argument("-O", "--option", action="append", default=[], help="KEY=VALUE for native-rowscan")
    parser.add_argument("--yardstick", type=Path, help="an external solver's boards: a folder or a log")
    parser.add_argument("--yardstick-cpu-hours", type=float, default=None)
    parser.add_argument("--yardstick-name", default="yardstick")
    args = parser.parse_args()

    board = api.load("eternity", args.board).data
    with tempfile.TemporaryDirectory() as scratch:
        hints = args.hints
        if args.starter:
            hints = Path(scratch) / "starter.txt"
            hints.write_text(starter(args.hints, board.rows, board.cols))
        instance = api.load("eternity", args.board, hints=str(hints)).data
        folder = args.boards or Path(scratch) / "boards"
        found: Counter[int] = Counter()
        given = used = 0.0
        for seed in range(args.seed, args.seed + args.runs):
            counts, hours, cpu = run(args, hints, seed, folder)
            found += counts
            given += hours
            used += cpu
        distinct = Counter(score for score, _ in {(s, p) for s, p in boards_in(instance, folder)})
    yard_all: Counter[int] = Counter()
    yard_distinct: Counter[int] = Counter()
    if args.yardstick:
        theirs = boards_in(instance, args.yardstick)
        yard_all = Counter(score for score, _ in theirs)
        yard_distinct = Counter(score for score, _ in set(theirs))
    top = max([*found, *distinct, *yard_all, args.target])
    total = eternity.max_score(instance)
    hint_text = "the starter piece" if args.starter else f"{len(instance.hints)} hints"
    print(
        f"\n{args.board.name} with {hint_text}: hunt at {args.target}, {args.runs} run(s) of {args.timeout:g} s on "
        f"{args.workers} workers = {given:.3f} CPU-hours given, {used:.3f} used\n"
    )
    head = "| score >= T | ours: all / CPU-h | ours: distinct / CPU-h | all / CPU-h used |"
    rule = "|---:|---:|---:|---:|"
    if args.yardstick:
        head += f" {args.yardstick_name}: all | distinct |"
        rule += "---:|---:|"
    official = total == OFFICIAL
    if official:
        head += " eii (published): all / PC-hour |"
        rule += "---:|"
    print(head)
    print(rule)
    for level in range(args.target, top + 1):
        row = (
            f"| {level} | {at_least(found, level) / given:,.1f} | {at_least(distinct, level) / given:,.1f} "
            f"| {at_least(found, level) / max(used, 1e-9):,.1f} |"
        )
        if args.yardstick:
            hours = args.yardstick_cpu_hours
            row += "".join(f" {rate(at_least(c, level), hours)} |" for c in (yard_all, yard_distinct))
        if official:
            eii = sum(n for score, n in EII_LOG.items() if score >= level) / EII_HOURS
            if level == 467:
                eii = EII_467[0] / EII_467[1]
            row += f" {eii:,.2f} |" if level >= 463 else " - |"
        print(row)


if __name__ == "__main__":
    main()
