"""Per-restart hit rate of the ``--score`` row scan at a fixed target: the quantity behind its plateau.

A run of the best-score search is a string of restarts, each a fresh random candidate order
searched for ``restart_nodes`` nodes for a board that beats the best so far.  Its final score
is the best of thousands of restarts, so it moves with the chance ``p`` that one restart
reaches a given score, and ``p`` is what a change to the search changes.  This script
measures ``p`` directly: every restart starts with the bound and schedule the search would
use with a best board one below ``target``, tightens them with each board it finds (as the
search does) until its nodes are spent, and the table counts the restarts that reached
``target`` and each of the three scores above it (``start_slack`` is 0, so the target sets
where the restarts start, unless a variant sets it: ``start_slack=3`` starts them three errors
below the target, as the search does below its best).  Each variant (knobs of the score
search, as in ``eternity.py --variants``) runs in a process of its own; with two
cores, run two variants at a time.  Restarts, not seconds, are the budget, so a busy machine
changes only how long it takes; variants whose restarts differ in length (``restart_nodes``)
compare by hits per G nodes, which the table gives.  ``--cuts`` replays shorter restarts from
the same ones (each restart's nodes at each board it found are kept): restart sizes compared on
the same restarts, which spares a run per size.

    python benchmarks/score_hits.py e2_16x16.txt --hints starter.txt --target 458 --restarts 300 \\
        --variants "tail_columns=5" "tail_columns=4"
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table, variant_children  # noqa: E402
from eternity import variant_knobs  # noqa: E402


def measure(board: str, hints: str | None, settings: str, target: int, restarts: int, seed: int) -> dict[str, object]:
    """One variant's restarts, in this process (the child's side): per restart its nodes and the
    (nodes into it, score) of each board it found that reached the target."""
    import numpy as np

    from puzzlesat import api
    from puzzlesat.domains import eternity
    from puzzlesat.native.eternity import score as es

    # the target sets where the restarts start, unless the variant sets a slack
    knobs = variant_knobs(f"start_slack=0 {settings}")
    instance = api.load("eternity", board, **({"hints": hints} if hints else {})).data
    top = eternity.max_score(instance)
    errors = top - target  # a hit has at most this many unmatched edges
    search = es.ScoreSearch(instance, np.random.default_rng(seed), es.schedules(knobs)[0], knobs)
    found: list[tuple[int, int]] = []
    before = 0

    def improved(board: np.ndarray, got: int) -> None:
        assert es.board_errors(instance, search.look, board) == got, "the kernel's count of a board's errors"
        found.append((search.nodes - before, top - got))

    search.on_improve = improved
    runs = []
    began = time.perf_counter()
    for _ in range(restarts):  # each one of the search's own restarts, from a best board one below the target
        search.best = es.Best(search.best.board, errors + 1, 0.0)
        found.clear()
        before = search.nodes
        search.scan(lambda: None, one_restart=True)
        runs.append((search.nodes - before, list(found)))
    return {"runs": runs, "seconds": time.perf_counter() - began}


def reached(runs: list, cut: float) -> tuple[list[int], int]:
    """The best score of each restart that reached the target within ``cut`` nodes, and the nodes
    the restarts would have placed had each ended there: shorter restarts replayed from the same ones."""
    best = [max(score for at, score in found if at <= cut) for _, found in runs if any(at <= cut for at, _ in found)]
    return best, sum(min(spent, cut) for spent, _ in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board")
    parser.add_argument("--hints")
    parser.add_argument("--target", type=int, required=True, help="score a restart must reach to count")
    parser.add_argument("--restarts", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", nargs="+", default=[""], help="knobs of the score search: key=value ...")
    parser.add_argument(
        "--cuts", nargs="*", type=float, default=[], help="also count the restarts as if they had ended after N nodes"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.board, args.hints, args.child, args.target, args.restarts, args.seed)))
        return
    argv = [args.board, "--target", str(args.target), "--restarts", str(args.restarts), "--seed", str(args.seed)]
    argv += ["--hints", args.hints] if args.hints else []
    levels = [args.target + k for k in range(4)]
    rows = []
    for variant, got in variant_children(__file__, argv, args.variants):
        for cut in [*sorted(args.cuts), float("inf")]:
            best, nodes = reached(got["runs"], cut)
            cells = [f"{sum(b >= level for b in best)}" for level in levels]
            ended = "as run" if cut == float("inf") else f"{cut / 1e6:g} M"
            timing = [f"{got['seconds']:.0f}", f"{nodes / got['seconds'] / 1e6:.0f}"] if ended == "as run" else ["", ""]
            rows.append([variant or "as is", ended, *cells, str(max(best, default="-")), f"{nodes / 1e9:.1f}", *timing])
        print(f"c [{variant or 'as is'}] restart bests {sorted(best, reverse=True)[:20]}", file=sys.stderr)
    title = f"of {args.restarts} restarts, those reaching each score: {Path(args.board).name}"
    title += f"{' + ' + Path(args.hints).name if args.hints else ''}, restart_nodes nodes each unless a variant says"
    print_table(
        title, ["settings", "ended", *(f">= {level}" for level in levels), "best", "G nodes", "s", "M nodes/s"], rows
    )


if __name__ == "__main__":
    main()
