"""Shared pieces of the benchmark scripts: run a strategy in a child process, print tables."""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def tied() -> dict[str, Any]:
    """:mod:`subprocess` arguments for a child the kernel kills when this script dies (SIGTERM
    and SIGKILL included), so that no run outlives the benchmark that started it."""
    from puzzlesat.core import processes

    return {"preexec_fn": functools.partial(processes.killed_with_parent, os.getpid())}


def run_strategy(
    puzzle: str, path: Path, strategy: str, timeout: float, seed: int = 0, workers: int = 1
) -> tuple[str, float]:
    """Solve in a fresh ``puzzlesat solve --json`` process, killed after ``timeout`` (+ start-up slack).

    The limit is enforced from outside only, so that no strategy pays for its own watchdog
    (Kissat's is a child process).

    Returns:
        (status, seconds): the strategy's own wall time (imports and numba compilation excluded),
        or ``("TIMEOUT", timeout)`` when it ran past the limit.
    """
    cmd = [
        sys.executable,
        "-m",
        "puzzlesat.cli",
        "solve",
        puzzle,
        str(path),
        "-s",
        strategy,
        "--json",
        "--seed",
        str(seed),
        "--workers",
        str(workers),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 15, **tied())
    except subprocess.TimeoutExpired:
        return "TIMEOUT", timeout
    if not proc.stdout.strip():
        return "ERROR", timeout
    data = json.loads(proc.stdout)
    if data["status"] == "UNKNOWN" or float(data["wall_time"]) > timeout:
        return "TIMEOUT", timeout
    return data["status"], float(data["wall_time"])


def run_command(cmd: list[str], stdin_path: Path, timeout: float) -> tuple[str, float]:
    """Time an external program reading an instance on stdin; ``("TIMEOUT", timeout)`` past the limit."""
    start = time.perf_counter()
    try:
        with stdin_path.open() as stdin:
            subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=timeout, **tied())
    except subprocess.TimeoutExpired:
        return "TIMEOUT", timeout
    return "SOLVED", time.perf_counter() - start


def summary(times: list[float], statuses: list[str]) -> str:
    """``median / worst (solved/total)`` for one table cell; timeouts count at the limit."""
    solved = sum(s in ("SOLVED", "OPTIMAL", "INFEASIBLE") for s in statuses)
    return f"{statistics.median(times):8.3f} / {max(times):8.3f} ({solved}/{len(times)})"


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A markdown table on stdout."""
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    sys.stdout.flush()


def variant_children(script: str, argv: list[str], variants: list[str]) -> list[tuple[str, dict]]:
    """``script argv --child VARIANT`` for each variant at the same time (one process each, so
    each imports the search afresh with its settings); each child's JSON line, in order."""
    procs = [
        (
            v,
            subprocess.Popen(
                [sys.executable, script, *argv, "--child", v], stdout=subprocess.PIPE, text=True, **tied()
            ),
        )
        for v in variants
    ]
    return [(v, json.loads(proc.communicate()[0])) for v, proc in procs]
