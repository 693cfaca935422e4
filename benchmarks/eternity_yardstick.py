"""A yardstick for the Eternity II score search: another solver's boards, scored by our checker.

Runs a locally built solver (Blackwood's, as jblackwood345's C# or jfbucas's libblackwood; it is
never part of this repository) for ``--seconds``, reads the boards it wrote during the run,
turns each into our answer format, fills the cells it left empty with the tiles it left over
(the best completion, by a small branch and bound), checks it with the puzzle's verifier and
scores it with ``eternity.score``, as ``check --score`` does.  It prints the ladder: for each
level T from ``--from`` up, the boards of score T or more, all and distinct (by placement), and
both per CPU-hour.  CPU time is the user and system time of the solver's session and every
process it started, sampled from ``/proc`` (so a busy machine does not change the rate, only the wall time).

Formats of the solver's boards (``--format``):

- ``url``: libblackwood's ``results/DEPTH`` files, one board a line as a viewer address with
  ``board_pieces=`` (3 digits a cell, 1-based tile, 000 empty) and ``board_edges=`` (4 letters a
  cell, N E S W, its own colour letters); each tile's turn is read off the letters, once the
  letters are matched to our colours.
- ``jblackwood``: the C# solver's files, 16 rows of ``TILE/TURNS`` (1-based tile, clockwise
  quarter turns, ``---/-`` empty), top row first.
- ``seed``: our answer format (a hunt's ``--boards`` folder), for our solver under the same ruler.

    python benchmarks/eternity_yardstick.py $E/e2_16x16.txt --hints starter.txt --seconds 600 \\
        --cwd ../yardstick/libblackwood --boards 'results/*' --format url \\
        --env PUZZLE=E2ncud --env CORES=2 --keep boards/ -- python3 main.py --standalone

Boards already in the files before the run are not counted.  The solver runs in a session of its
own, which is killed whole (SIGTERM, then SIGKILL) at the end or when this script is stopped.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, tied  # noqa: E402

from puzzlesat import load  # noqa: E402
from puzzlesat.domains.eternity import (  # noqa: E402
    Instance,
    Solution,
    format_solution,
    parse_solution,
    placements,
    rotated,
    score,
    verify,
)

Partial = list[tuple[int, int] | None]  # per cell: (tile, turns) or empty
URL = re.compile(r"board_pieces=(\d+)&board_edges=([a-z]+)")
JB_CELL = re.compile(r"(\d+|-+)/(\d|-)")
FILL_NODES = 20_000  # branch-and-bound nodes for one board's empty cells (the first is greedy), then its best
TICK = 0.5  # seconds between two CPU samples


def read_boards(text: str, fmt: str, instance: Instance) -> list[Partial]:
    """The boards of one file's text, in the order written."""
    if fmt == "url":
        return [from_url(pieces, edges, instance) for pieces, edges in URL.findall(text)]
    if fmt == "jblackwood":
        cells = [(int(t) - 1, int(r)) if t[0] != "-" else None for t, r in JB_CELL.findall(text)]
        return [cells] if len(cells) == instance.cells else []
    solution = parse_solution(instance, text)
    return [list(solution.placements)] if solution else []


def from_url(pieces: str, edges: str, instance: Instance) -> Partial:
    """A libblackwood board: tiles from its numbers, turns from its edge letters.

    Its colours are letters of its own numbering; matching a letter to one of our colours wherever
    only one turn of the tile fits (the frame first, grey being ``a`` in both) fixes more letters,
    until every tile's turn is known.
    """
    tiles = [int(pieces[3 * c : 3 * c + 3]) - 1 for c in range(instance.cells)]
    looks = [edges[4 * c : 4 * c + 4] for c in range(instance.cells)]
    ours: dict[str, int] = {"a": 0}
    theirs: dict[int, str] = {0: "a"}
    turns: dict[int, int] = {}

    def fits(colours: tuple[int, ...], letters: str) -> bool:
        return all(ours.get(x, c) == c and theirs.get(c, x) == x for c, x in zip(colours, letters, strict=True))

    todo = [c for c in range(instance.cells) if tiles[c] >= 0]
    while todo:
        left = []
        for cell in todo:
            options = {rotated(instance.tiles[tiles[cell]], r): r for r in range(4)}
            fitting = [(colours, r) for colours, r in options.items() if fits(colours, looks[cell])]
            if not fitting:
                raise ValueError(f"cell {cell}: tile {tiles[cell]} cannot show {looks[cell]}")
            if len(fitting) > 1:
                left.append(cell)
                continue
            colours, turns[cell] = fitting[0]
            for c, x in zip(colours, looks[cell], strict=True):
                ours[x], theirs[c] = c, x
        if len(left) == len(todo):  # only turns that look alike are left: any of them
            for cell in left:
                turns[cell] = next(r for r in range(4) if fits(rotated(instance.tiles[tiles[cell]], r), looks[cell]))
            break
        todo = left
    return [(tiles[c], turns[c]) if tiles[c] >= 0 else None for c in range(instance.cells)]


def complete(instance: Instance, board: Partial) -> Solution:
    """The board with its empty cells filled by its unused tiles, most matched edges first found."""
    cells = list(board)
    empty = [c for c, p in enumerate(cells) if p is None]
    if not empty:
        return Solution(tuple(p for p in cells if p is not None))
    used = {p[0] for p in cells if p is not None}
    options = placements(instance)
    cols = instance.cols
    best: list[tuple[int, list[tuple[int, int]]]] = [(-1, [])]
    nodes = 0

    def neighbours(cell: int) -> list[tuple[int, int, int]]:
        r, c = divmod(cell, cols)
        out = []
        for side, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
            if 0 <= r + dr < instance.rows and 0 <= c + dc < cols:
                out.append((side, (r + dr) * cols + c + dc, (side + 2) % 4))
        return out

    def gain(cell: int, tile: int, turn: int) -> int:
        mine = rotated(instance.tiles[tile], turn)
        total = 0
        for side, other, back in neighbours(cell):
            placed = cells[other]
            if placed is not None and rotated(instance.tiles[placed[0]], placed[1])[back] == mine[side]:
                total += 1
        return total

    # the edges an empty cell can still match: to tiles already placed, and to empty cells before it
    open_edges = [sum(1 for _, o, _ in neighbours(cell) if cells[o] is not None or o < cell) for cell in empty]

    def search(k: int, got: int, chosen: list[tuple[int, int]]) -> None:
        nonlocal nodes
        nodes += 1
        if k == len(empty):
            if got > best[0][0]:
                best[0] = (got, list(chosen))
            return
        if got + sum(open_edges[k:]) <= best[0][0] or nodes > FILL_NODES:
            return
        cell = empty[k]
        ranked = sorted(((gain(cell, t, r), t, r) for t, r in options[cell] if t not in used), key=lambda x: -x[0])
        for g, t, r in ranked:
            used.add(t)
            cells[cell] = (t, r)
            chosen.append((t, r))
            search(k + 1, got + g, chosen)
            chosen.pop()
            cells[cell] = None
            used.discard(t)

    search(0, 0, [])
    if best[0][0] < 0:
        raise ValueError("the tiles left over do not fit the empty cells")
    for cell, placed in zip(empty, best[0][1], strict=True):
        cells[cell] = placed
    return Solution(tuple(p for p in cells if p is not None))


class Sampler:
    """CPU seconds (user + system) of a solver's processes, from ``/proc``: those of its session
    and their descendants (a worker may start a session of its own)."""

    def __init__(self, session: int) -> None:
        self.session = session
        self.seen: dict[tuple[int, int], float] = {}  # (pid, start time) -> last CPU seconds
        self.last: set[tuple[int, int]] = set()  # (pid, start time) of the last sample
        self.tick = os.sysconf("SC_CLK_TCK")

    def sample(self) -> None:
        stats = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    stats[int(entry.name)] = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
        # fields[1] is the parent, fields[3] the session, 11 and 12 the CPU ticks, 19 the start
        ours = {pid for pid, fields in stats.items() if int(fields[3]) == self.session}
        grown = True
        while grown:
            more = {pid for pid, fields in stats.items() if int(fields[1]) in ours} - ours
            ours |= more
            grown = bool(more)
        self.last = {(pid, int(stats[pid][19])) for pid in ours}
        for pid, start in self.last:
            fields = stats[pid]
            self.seen[(pid, start)] = (int(fields[11]) + int(fields[12])) / self.tick

    def kill_left(self) -> None:
        """SIGKILL every process of the last sample still there (one that left the session)."""
        for pid, start in self.last:
            try:
                if int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]) == start:
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                continue

    @property
    def seconds(self) -> float:
        return sum(self.seen.values())


def run(args: argparse.Namespace) -> tuple[float, float]:
    """Run the solver for ``args.seconds``; its (wall, CPU) seconds."""
    env = dict(os.environ, **dict(kv.split("=", 1) for kv in args.env))
    log = open(args.log, "w") if args.log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    start = time.monotonic()
    proc = subprocess.Popen(
        args.command,
        cwd=args.cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        **tied(),
    )
    sampler = Sampler(proc.pid)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        while time.monotonic() - start < args.seconds and proc.poll() is None:
            sampler.sample()
            time.sleep(TICK)
        sampler.sample()
    finally:
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                continue
        sampler.kill_left()
        for s, handler in old.items():
            signal.signal(s, handler)
        if log is not subprocess.DEVNULL:
            log.close()
    return time.monotonic() - start, sampler.seconds


def board_files(args: argparse.Namespace) -> list[str]:
    base = args.cwd or "."
    return sorted({p for pattern in args.boards for p in glob.glob(os.path.join(base, pattern), recursive=True)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instance", help="the 16x16 instance (e2_16x16.txt)")
    parser.add_argument("--hints", help="the hints the solver was given (every board must keep them)")
    parser.add_argument("--seconds", type=float, default=600.0, help="how long the solver runs")
    parser.add_argument("--cwd", help="the solver's working folder (board globs are relative to it)")
    parser.add_argument("--boards", action="append", default=[], help="glob of the solver's board files")
    parser.add_argument("--format", choices=("url", "jblackwood", "seed"), default="url")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the solver's environment")
    parser.add_argument("--log", help="file for the solver's stdout and stderr")
    parser.add_argument("--keep", help="folder for the converted boards (our format, check --score reads them)")
    parser.add_argument("--from", dest="lowest", type=int, default=458, help="lowest level of the ladder")
    parser.add_argument("--read-only", action="store_true", help="read the board files as they are; run nothing")
    parser.add_argument("--cpu-seconds", type=float, help="with --read-only: the CPU time the boards took")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.command = argv[cut + 1 :]  # the solver and its arguments, after --
    if not args.boards:
        parser.error("--boards GLOB is needed")
    instance = load("eternity", args.instance, **({"hints": args.hints} if args.hints else {})).data

    def snapshot() -> dict[str, list[Partial]]:
        return {p: read_boards(Path(p).read_text(errors="replace"), args.format, instance) for p in board_files(args)}

    before = {} if args.read_only else snapshot()
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if args.read_only:
        wall, cpu = 0.0, args.cpu_seconds or 0.0
    else:
        if not args.command:
            parser.error("give the solver's command after --")
        wall, cpu = run(args)
    new: list[tuple[str, Partial]] = []
    for path, boards in snapshot().items():
        new.extend((path, b) for b in boards[len(before.get(path, [])) :])

    scores: list[int] = []
    keys: dict[tuple[tuple[int, int], ...], int] = {}
    rejected = 0
    filled = Counter[int]()
    for k, (path, partial) in enumerate(new):
        empty = sum(p is None for p in partial)
        try:
            solution = complete(instance, partial)
        except ValueError as exc:
            print(f"c {path}: board {k} rejected: {exc}", file=sys.stderr)
            rejected += 1
            continue
        problems = verify(instance, solution, matching=False)
        if problems:
            print(f"c {path}: board {k} rejected: {problems[0]}", file=sys.stderr)
            rejected += 1
            continue
        s = score(instance, solution)
        scores.append(s)
        filled[empty] += 1
        keys.setdefault(solution.placements, s)
        print(f"c {path}: board {k}: {instance.cells - empty} placed, {empty} filled, score {s}", file=sys.stderr)
        if args.keep:
            Path(args.keep).mkdir(parents=True, exist_ok=True)
            name = Path(args.keep, f"{s}-{stamp}-{k:05d}.txt")  # a new file: no earlier run's board lost
            name.write_text(f"# {path} board {k}, {empty} cells filled here\n" + format_solution(instance, solution))

    hours = cpu / 3600.0
    print(
        f"c wall {wall:.0f} s, CPU {cpu:.0f} s, boards read {len(new)}, rejected {rejected}, "
        f"cells filled per board {dict(sorted(filled.items()))}, best {max(scores, default=0)}",
        file=sys.stderr,
    )
    distinct = list(keys.values())
    top = max(scores, default=args.lowest)
    rows = []
    for t in range(args.lowest, max(top, args.lowest) + 1):
        n, d = sum(s >= t for s in scores), sum(s >= t for s in distinct)
        rows.append(
            [str(t), str(n), str(d), f"{n / hours:.1f}" if hours else "-", f"{d / hours:.1f}" if hours else "-"]
        )
    print_table(
        f"ladder: boards of score >= T, {cpu:.0f} CPU s over {wall:.0f} s wall",
        ["T", "boards", "distinct", "per_cpu_hour", "distinct_per_cpu_hour"],
        rows,
    )


if __name__ == "__main__":
    main()
