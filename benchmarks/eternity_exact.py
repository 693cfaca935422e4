"""The exact edge-matching search at the specialists' speed: node rate, pruning, split, whole counts.

``--parts rate``: the count kernel on tile bitsets (native/eternity/count_kernel.py) against the
row-scan kernel it replaced for counts (native/eternity/kernel.py) on the same subtrees: partial
boards of ``--depth`` cells taken along the tree of ``--board`` (every ``--stride`` nodes), each
searched to the end by both, interleaved, which must place the same nodes and complete the same
boards (checked).  CPU seconds of this process (``time.process_time``), so that a machine shared
with other work inflates them less than wall seconds; nodes a CPU second, and their ratio.

``--parts pruning``: the colour-count check (``colour_check``, the row-scan kernel) on the same
subtrees: the nodes it saves and the time it costs.

``--parts split``: the count of ``--split-board`` with ``--workers 1`` and 2 (one tree, so both
place the same nodes): wall seconds, the speed-up, and the nodes over the largest worker's share
(the speed-up the split allows when each worker has a core of its own).

``--parts estimate``: the size of the count's tree for each ``--full`` board without searching it:
Knuth's estimator (``--probes`` random paths from the root, each node standing for the product of
the branchings above it), the mean nodes and boards, with a 95% interval from the spread of the
probes (heavy-tailed: a rough figure on big trees), and the hours that many nodes take at a node
rate (``--rate``, M nodes a second for the two workers together).

``--parts trees``: the eight trees a count may walk (native/eternity/count_tree.py: a corner tile
fixed top-left, the board as given or mirrored) of each ``--full`` board, each tree's nodes down
to ``--tree-depth`` cells (0: the whole tree, with its boards) counted by the count kernel, their
CPU seconds, and the tree a count picks (by the nodes of the first two rows).

``--parts full``: ``puzzlesat solve eternity BOARD --count --workers 2`` once, whole process
(time from outside), for each ``--full`` board; its count, nodes and seconds.

The kernels are those a solve loads: the library built by ``puzzlesat kernels build`` when there
is one for these sources, else numba's JIT (the first line says which).  $SHARED below is
../shared/instances/eternity.

Usage:
    python benchmarks/eternity_exact.py [--board B] [--depth 6] [--tasks 8] [--parts rate pruning]
    python benchmarks/eternity_exact.py --parts split --split-board instances/eternity/peak_7x7_b3_m8_s0.txt
    python benchmarks/eternity_exact.py --parts trees --tree-depth 21 --full $SHARED/brendan_set1/brendan_07x07.txt
    python benchmarks/eternity_exact.py --parts full --full ../shared/instances/eternity/brendan_set1/brendan_08x08.txt
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table  # noqa: E402

from puzzlesat import api  # noqa: E402
from puzzlesat.core.kernel_status import EXHAUSTED  # noqa: E402
from puzzlesat.domains.eternity import Instance, parse  # noqa: E402
from puzzlesat.native import aot  # noqa: E402
from puzzlesat.native.eternity.arrays import Table, class_width  # noqa: E402
from puzzlesat.native.eternity.count_search import CountSearch  # noqa: E402
from puzzlesat.native.eternity.search import COUNT_LIMIT, Draws, Lookup, Search  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "instances"  # the public instances, beside the checkout
BRENDAN = "eternity/brendan_set1"


def prefixes(instance: Instance, lookup: Lookup, depth: int, stride: int, count: int) -> list[tuple[int, ...]]:
    """Partial boards of ``depth`` cells (rows of ``lookup``), the one under way after every
    ``stride`` nodes of a walk that skips the subtree of each one taken."""
    search = CountSearch(instance, lookup)
    state = search.state
    found: list[tuple[int, ...]] = []
    while len(found) < count:
        status, _ = search.run(stride, limit=COUNT_LIMIT)
        if status == EXHAUSTED:
            break
        low, top = state.ends
        # the entries of cells past ``depth`` hang from the board's first ``depth`` rows, and lie on top
        below = [entry for entry in range(low, top) if state.stack[3 * entry + 2] & 0xFF > depth]
        if below:
            found.append(tuple(search.placed(depth)))
            state.ends[1] = below[0]  # the subtree skipped: the walk goes on past it
    return found


def candidates(table: Table, lookup: Lookup) -> list[int]:
    """Per row of ``lookup``, its index in the row-scan kernel's candidate order ``table``."""
    width = class_width(lookup.colours)
    where = {}
    for b in range(len(table.off) - 1):
        for j in range(table.off[b], table.off[b + 1]):
            where[b // width, table.tile[j], table.rot[j]] = j
    return [where[row[0], row[2], row[3]] for row in lookup.rows]


def exhaust(search: Search | CountSearch, task: tuple[array, int]) -> tuple[int, int, int, float]:
    """(nodes, boards, refusals, CPU seconds) of one task searched to the end."""
    began = time.process_time()
    search.start(task)
    nodes = 0
    while True:
        status, done = search.run(10**12, limit=COUNT_LIMIT)
        nodes += done
        if status == EXHAUSTED:
            return nodes, search.found, search.pruned, time.process_time() - began


def rate(board: Path, depth: int, stride: int, tasks: int, parts: list[str]) -> None:
    """The ``rate`` and ``pruning`` tables (module docstring)."""
    instance = parse(board.read_text(), str(board))
    lookup = Lookup(instance)
    bits = CountSearch(instance, lookup)
    rows = Search(instance, lookup, Draws(0))
    checked = Search(instance, lookup, None, True, rows.table)
    index = candidates(rows.table, lookup)
    chosen = prefixes(instance, lookup, depth, stride, tasks)
    rate_rows, prune_rows = [], []
    totals = {"rows": [0, 0.0], "bits": [0, 0.0]}
    for prefix in chosen:
        old_task = (array("q", (index[r] for r in prefix)), -1)
        new_task = (array("q", prefix), -1)
        a = exhaust(rows, old_task)
        b = exhaust(bits, new_task)
        assert a[:2] == b[:2], (prefix, a, b)  # the same tree: the same nodes and boards
        totals["rows"][0] += a[0]
        totals["rows"][1] += a[3]
        totals["bits"][0] += b[0]
        totals["bits"][1] += b[3]
        label = " ".join(map(str, (lookup.rows[r][2] for r in prefix[-3:])))
        rate_rows.append(
            [f"...{label}", f"{a[0]:,}", str(a[1]), f"{a[3]:.2f}", f"{b[3]:.2f}",
             f"{a[0] / a[3] / 1e6:.1f}", f"{b[0] / b[3] / 1e6:.1f}", f"{a[3] / b[3]:.2f}x"]
        )  # fmt: skip
        if "pruning" in parts:
            c = exhaust(checked, old_task)
            assert c[1] == a[1]
            prune_rows.append([f"...{label}", f"{a[0]:,}", f"{c[0]:,}", f"{1 - c[0] / a[0]:.1%}", f"{c[2]:,}",
                               f"{a[3]:.2f}", f"{c[3]:.2f}"])  # fmt: skip
    (n_old, s_old), (n_new, s_new) = totals["rows"], totals["bits"]
    rate_rows.append(["all", f"{n_old:,}", "", f"{s_old:.2f}", f"{s_new:.2f}",
                      f"{n_old / s_old / 1e6:.1f}", f"{n_new / s_new / 1e6:.1f}", f"{s_old / s_new:.2f}x"])  # fmt: skip
    title = f"{board.name}: {len(chosen)} subtrees below {depth} cells, CPU seconds, M nodes a CPU second"
    head = ["subtree (last tiles)", "nodes", "boards", "row scan s", "bitsets s", "row scan M/s", "bitsets M/s"]
    print_table(title, [*head, "speed-up"], rate_rows)
    if prune_rows:
        head = ["subtree", "nodes", "nodes checked", "saved", "refused", "s", "s checked"]
        print_table(f"colour_check on the same subtrees (row-scan kernel), {board.name}", head, prune_rows)


def split(board: Path) -> None:
    """The ``split`` table (module docstring)."""
    instance = api.load("eternity", board)
    table = []
    results = {}
    for workers in (1, 2):
        began = time.perf_counter()
        result = api.solve(instance, "native-rowscan", count=True, workers=workers)
        results[workers] = (result, time.perf_counter() - began)
    (one, t1), (two, t2) = results[1], results[2]
    assert (one.count, one.stats["nodes"]) == (two.count, two.stats["nodes"])
    shares = [int(n) for n in str(two.stats.get("worker_nodes", "0")).split("/")]
    largest = max(shares) + two.stats["nodes"] - sum(shares)  # the caller's first 0.2 s goes with it
    table.append([board.name, str(one.count), f"{one.stats['nodes']:,}", f"{t1:.2f}", f"{t2:.2f}", f"{t1 / t2:.2f}x",
                  f"{two.stats['nodes'] / largest:.2f}x"])  # fmt: skip
    title = f"count with 1 and 2 workers (wall seconds, load average {os.getloadavg()[0]:.1f})"
    print_table(
        title, ["board", "count", "nodes", "1 worker s", "2 workers s", "speed-up", "nodes / largest share"], table
    )


def estimate(boards: list[Path], probes: int, rate_m: float) -> None:
    """The ``estimate`` table (module docstring)."""
    import random
    import statistics

    table = []
    for path in boards:
        instance = parse(path.read_text(), str(path))
        lookup = Lookup(instance)
        lists: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}
        for k, key, tile, _, east, south in lookup.rows:
            piece = lookup.piece[tile] if lookup.twin_tiles[tile] else -1 - tile  # twins: one child per look
            lists.setdefault((k, key), []).append((tile, east, south, piece))
        colours, cols, classes = lookup.colours, instance.cols, lookup.classes
        rng = random.Random(0)
        tree, boards_found = [], []
        for _ in range(probes):
            used: set[int] = set()
            south = [0] * instance.cells
            weight, nodes, west = 1, 0, 0
            for d in range(instance.cells):
                north = south[d - cols] if d >= cols else 0
                children = {
                    (piece, e, s_): (tile, e, s_)
                    for tile, e, s_, piece in lists.get((classes[d], west * colours + north), ())
                    if tile not in used
                }
                if not children:
                    break
                weight *= len(children)
                nodes += weight
                tile, west, south[d] = rng.choice(list(children.values()))
                used.add(tile)
            tree.append(nodes)
            boards_found.append(weight if len(used) == instance.cells else 0)
        mean, spread = statistics.fmean(tree), 1.96 * statistics.pstdev(tree) / probes**0.5
        table.append([path.name, f"{mean:.3g} ± {spread:.2g}", f"{statistics.fmean(boards_found):.3g}",
                      f"{mean / (rate_m * 1e6) / 3600:.2f}"])  # fmt: skip
    title = f"the count's tree estimated from {probes:,} random paths (Knuth), hours at {rate_m:g} M nodes/s"
    print_table(title, ["board", "nodes (95%)", "boards", "hours"], table)


def trees(boards: list[Path], depth: int) -> None:
    """The ``trees`` table (module docstring)."""
    from puzzlesat.core import Limits
    from puzzlesat.native.eternity import count_tree

    for path in boards:
        instance = parse(path.read_text(), str(path))
        picked, _ = count_tree.pick(instance, Limits(), True, False, time.perf_counter())
        cut = depth or instance.cells
        table, sizes = [], {}
        for tree in count_tree.trees(instance):
            search = count_tree.first_rows(instance, tree, True, cut)
            began = time.process_time()
            status, nodes = search.run(10**15, limit=COUNT_LIMIT)
            assert status == EXHAUSTED
            sizes[tree] = nodes
            boards_found = str(search.found * search.labelings) if cut == instance.cells else ""
            table.append([tree.name, f"{nodes:,}", boards_found, f"{time.process_time() - began:.2f}",
                          "picked" if tree == picked else ""])  # fmt: skip
        first = sizes[count_tree.trees(instance)[0]]
        for row, nodes in zip(table, sizes.values(), strict=True):
            row.insert(2, f"{nodes / first:.3f}")
        title = f"{path.name}: the trees' nodes down to {cut} cells (load average {os.getloadavg()[0]:.1f})"
        print_table(title, ["tree", "nodes", "/ first", "boards", "CPU s", ""], table)


def full(boards: list[Path]) -> None:
    """The ``full`` table (module docstring)."""
    table = []
    for path in boards:
        cmd = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(path), "--count", "--workers", "2"]
        began = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - began
        stats = dict(part.split("=", 1) for part in done.stderr.split() if "=" in part)
        table.append([path.name, done.stdout.strip(), f"{int(stats.get('nodes', 0)):,}", f"{wall:.1f}",
                      stats.get("worker_nodes", "")])  # fmt: skip
    title = f"whole counts, --workers 2 (load average {os.getloadavg()[0]:.1f} at the end)"
    print_table(title, ["board", "count", "nodes", "seconds", "nodes per worker"], table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", type=Path, default=SHARED, help="the public instances (../shared/instances)")
    parser.add_argument("--board", type=Path, help="default: SHARED/eternity/brendan_set1/brendan_07x07.txt")
    parser.add_argument("--depth", type=int, default=6, help="cells placed in each subtree's partial board")
    parser.add_argument("--stride", type=int, default=2_000_000, help="nodes between two subtrees taken")
    parser.add_argument("--tasks", type=int, default=8, help="subtrees")
    parser.add_argument(
        "--parts", nargs="+", default=["rate", "pruning"], help="rate pruning split estimate trees full"
    )
    parser.add_argument("--split-board", type=Path, default=ROOT / "instances" / "eternity" / "peak_7x7_b3_m8_s0.txt")
    parser.add_argument("--probes", type=int, default=100_000, help="random paths for --parts estimate")
    parser.add_argument("--rate", type=float, default=100.0, help="M nodes a second for --parts estimate")
    parser.add_argument(
        "--full", nargs="+", type=Path, help="boards for --parts full, estimate, trees (default: Brendan's 7x7)"
    )
    parser.add_argument("--tree-depth", type=int, default=0, help="cells of each tree for --parts trees (0: all)")
    args = parser.parse_args()
    brendan = args.shared / BRENDAN
    args.board = args.board or brendan / "brendan_07x07.txt"
    args.full = args.full or [brendan / "brendan_07x07.txt"]
    print(f"kernels: {type(aot.kernels('eternity')).__name__}, load average {os.getloadavg()[0]:.1f}")
    if "rate" in args.parts or "pruning" in args.parts:
        rate(args.board, args.depth, args.stride, args.tasks, args.parts)
    if "split" in args.parts:
        split(args.split_board)
    if "estimate" in args.parts:
        estimate(args.full, args.probes, args.rate)
    if "trees" in args.parts:
        trees(args.full, args.tree_depth)
    if "full" in args.parts:
        full(args.full)


if __name__ == "__main__":
    main()
