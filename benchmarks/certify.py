"""What certifying costs: proof size, check time and solve time side by side, per UNSAT claim.

For each puzzle's CNF strategy on instances whose answers rest on UNSAT claims (no solution,
optimal, unique), the plain solve and the certified solve (``certify=DIR``) run in this
process one after the other; the proofs written are then checked again by every checker at
hand (drat-trim on PATH, dratify), so the checkers compare on the same files.

    python benchmarks/certify.py            # every case (a few minutes with dratify alone)
    python benchmarks/certify.py --quick    # the smallest case of each puzzle

Columns: plain = the solve without proofs; certified = the whole certified solve with the
first checker at hand; proof run = the proof-logging solves inside it (a fresh run for an
incremental claim); lemmas and KiB = the proofs; then each checker's time on them, and
the ratio certified / plain as it would be with that checker.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import puzzlesat
from puzzlesat.core import Status, proofcheck

ROOT = Path(__file__).resolve().parents[1]


def broken_boards(sizes: list[int]) -> Iterator[tuple[str, puzzlesat.Instance]]:
    """Generated edge-matching boards made unsolvable: the first one-colour change that is."""
    for size in sizes:
        board = puzzlesat.generate("eternity", size=size, frame_colours=3, inner_colours=size + 1, seed=1)
        lines = board.text.splitlines()
        for row in range(1, len(lines)):
            sides = lines[row].split()
            if "0" in sides:  # keep the frame grey
                continue
            changed = list(lines)
            changed[row] = " ".join([str(int(sides[0]) % (size + 1) + 1), *sides[1:]])
            try:
                broken = puzzlesat.load("eternity", "\n".join(changed) + "\n")
            except puzzlesat.core.PuzzlesatError:
                continue
            if puzzlesat.solve(broken, "cnf-heule", timeout=60).status is Status.INFEASIBLE:
                yield f"generated {size}x{size}, one colour changed", broken
                break


def cases(quick: bool) -> Iterator[tuple[str, str, puzzlesat.Instance, str, dict[str, Any]]]:
    """(puzzle, label, instance, strategy, options) of each claim to certify."""
    for label, board in broken_boards([4] if quick else [4, 5, 6]):
        yield "eternity", label, board, "cnf-heule", {}
    masyu = ROOT / "instances" / "masyu"
    six = puzzlesat.load("masyu", "https://puzz.link/p?masyu/6/6/00016f769000")
    loops = [("puzz.link 6x6", six)]
    if not quick:
        loops += [(name, puzzlesat.load("masyu", masyu / name)) for name in ("gen_10x10_s1.txt", "gen_20x20_s1.txt")]
    for name, loop in loops:
        yield "masyu", f"{name} --unique", loop, "cnf-rank", {"unique": True}
    if not quick:  # the complete encoding's uniqueness at 30x30 takes minutes; the lazy cuts do not
        loops.append(("gen_30x30_s1.txt", puzzlesat.load("masyu", masyu / "gen_30x30_s1.txt")))
    for name, loop in loops:
        yield "masyu", f"{name} --unique", loop, "cnf-lazy", {"unique": True}
    pegsol = ROOT / "instances" / "pegsol"
    boards = ["rect3x3_center.txt"]
    if not quick:
        boards += ["rect4x4_two_holes.txt", "rect5x5_center.txt", "english33_corner_to_corner.txt"]
    for name in boards:
        # the SAT solver's refutation, not the parity/pagoda argument that would settle it first
        yield "pegsol", name, puzzlesat.load("pegsol", pegsol / name), "cnf-plan", {"no_proofs": True}
    blacken = ROOT / "instances" / "blacken"
    stones = ["seed_7x7.txt"] if quick else ["seed_7x7.txt", "gen_k8_q10_c4_s1.txt", "gen_k10_q15_c5_s1.txt"]
    for name in stones:
        yield "blacken", name, puzzlesat.load("blacken", blacken / name), "cnf-steps", {}
    cubes = ["R U F"] if quick else ["R U F", "R U F L", "R U F L D"]
    for maneuver in cubes:
        yield "rubik", f"scramble {maneuver!r}", puzzlesat.load("rubik", maneuver), "cnf-bmc", {}


def timed(instance: puzzlesat.Instance, strategy: str, options: dict[str, Any], **extra: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = puzzlesat.solve(instance, strategy, timeout=600, **options, **extra)
    return result, time.perf_counter() - started


# seconds each checker gets per case in the side-by-side (dratify's Python engine is slow)
CHECK_LIMIT = 120.0


def check_all(certs: list[Any], checker: str) -> float | None:
    """Seconds for ``checker`` to check every proof, or None when it ran out of time."""
    total = 0.0
    for cert in certs:
        verdict = proofcheck.check(Path(cert.cnf), Path(cert.proof), checker, CHECK_LIMIT)
        if not verdict.ok:
            assert "out of time" in verdict.detail, (checker, cert.name, verdict.detail)
            return None
        total += verdict.seconds
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest case of each puzzle")
    args = parser.parse_args()
    checkers = proofcheck.available_checkers()
    if not checkers:
        print('no DRAT checker: pip install "puzzlesat[certify]" or put drat-trim on PATH', file=sys.stderr)
        return 2
    head = ["puzzle", "case", "strategy", "claims", "plain s", "certified s", "proof run s", "lemmas", "KiB"]
    head += [f"{c} s" for c in checkers] + [f"x ({c})" for c in checkers]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * 3 + "---:|" * (len(head) - 3))
    with tempfile.TemporaryDirectory(prefix="puzzlesat-certify-") as folder:
        for n, (puzzle, label, instance, strategy, options) in enumerate(cases(args.quick)):
            timed(instance, strategy, options)  # warm-up: imports, caches
            plain, plain_s = timed(instance, strategy, options)
            certified, cert_s = timed(instance, strategy, options, certify=Path(folder) / str(n))
            certs = [c for c in certified.certificates if c.cnf]
            first = sum(c.check_seconds for c in certs)
            per = [check_all(certs, name) for name in checkers]
            claims = ", ".join(sorted({c.kind for c in certified.certificates})) or "-"
            standing = "ok" if all(c.checked for c in certified.certificates) else "NOT CERTIFIED"
            row = [
                puzzle,
                label,
                strategy,
                f"{claims} ({len(certs)} proofs, {standing})",
                f"{plain_s:.2f}",
                f"{cert_s:.2f}",
                f"{sum(c.solve_seconds for c in certs):.2f}",
                str(sum(c.lemmas for c in certs)),
                f"{sum(c.proof_bytes for c in certs) / 1024:.0f}",
            ]
            row += [f"{t:.2f}" if t is not None else f">{CHECK_LIMIT:g}" for t in per]
            row += [f"{(cert_s - first + t) / max(plain_s, 1e-3):.1f}" if t is not None else "" for t in per]
            assert plain.status is certified.status, (plain.status, certified.status)
            print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
