"""Nodes a ``--score`` restart spends before it gets past each hint and past the head.

Every restart of the row scan fills the board afresh in a new random candidate order.  Up to
the depth where its schedule first allows an unmatched edge (the head: the first 65% of the
board), every edge must match, and a hint there asks the cells west and north of it for tiles
that fit it too.  When the cells before it leave no such tile, the scan backtracks, and every
cell placed between those two neighbours and the hint (a row's worth, row by row) has its
choices tried again before the ones that matter; the restart may spend its whole budget there.
For each restart this script counts the nodes until the scan first places a tile past each hint
of the head and past the head, at most ``restart_nodes`` (a restart that never got there).
Variants (knobs of the score search, as in ``score_hits.py``) run side by side.

    python benchmarks/score_head.py e2_16x16.txt --hints e2_16x16_hints.txt --restarts 60 \\
        --variants "hint_ahead=0" "hint_ahead=1" "hint_ahead=2"
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, variant_children  # noqa: E402
from eternity import variant_knobs  # noqa: E402


def measure(board: str, hints: str | None, settings: str, restarts: int, seed: int) -> dict[str, object]:
    """One variant's restarts, in this process (the child's side): per mark, the nodes of each restart."""
    import numpy as np

    from puzzlesat import api
    from puzzlesat.core.kernel_status import BUDGET
    from puzzlesat.native.eternity import score as es

    knobs = variant_knobs(settings)
    instance = api.load("eternity", board, **({"hints": hints} if hints else {})).data
    search = es.ScoreSearch(instance, np.random.default_rng(seed), es.schedules(knobs)[0], knobs)
    budget = knobs.restart_nodes
    cells = instance.cells
    head = search.schedule.start(cells)
    depth = np.argsort(search.cands.cell)
    marks = sorted(int(depth[hint.cell]) for hint in instance.hints if depth[hint.cell] < head) + [head]
    nodes: list[list[int]] = [[] for _ in marks]
    for _ in range(restarts):
        bound = np.array([cells], dtype=np.int64)  # any board: the head allows no error anyway
        scan = es.Scan(search.cands, search.rng, search.schedule.allowed(cells, cells - 1))
        spent, passed = 0, 0
        while passed < len(marks) and spent < budget:
            status, done = scan.run(1000, bound)
            spent += done
            while passed < len(marks) and scan.state.depth[0] > marks[passed]:
                nodes[passed].append(spent)
                passed += 1
            if status != BUDGET:
                break
        for stuck in nodes[passed:]:
            stuck.append(budget)
    return {"marks": marks, "nodes": nodes, "budget": budget}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board")
    parser.add_argument("--hints")
    parser.add_argument("--restarts", type=int, default=60)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--variants", nargs="+", default=[""], help="module settings of eternity_score")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.board, args.hints, args.child, args.restarts, args.seed)))
        return
    argv = [args.board, "--restarts", str(args.restarts), "--seed", str(args.seed)]
    argv += ["--hints", args.hints] if args.hints else []
    rows = []
    for variant, got in variant_children(__file__, argv, args.variants):
        for i, (mark, spent) in enumerate(zip(got["marks"], got["nodes"], strict=True)):
            what = "the head" if i == len(got["marks"]) - 1 else "a hint"
            stuck = sum(n >= got["budget"] for n in spent) / len(spent)
            median, mean = sorted(spent)[len(spent) // 2], sum(spent) / len(spent)
            rows.append(
                [
                    variant or "as is",
                    f"{what} (depth {mark})",
                    f"{median / 1e6:.2f}",
                    f"{mean / 1e6:.2f}",
                    f"{stuck:.0%}",
                ]
            )
    title = f"nodes until a restart gets past each hint of the head and past the head, {args.restarts} restarts: "
    title += f"{Path(args.board).name}{' + ' + Path(args.hints).name if args.hints else ''}"
    print_table(title, ["settings", "past", "median M", "mean M", "never (whole restart)"], rows)


if __name__ == "__main__":
    main()
