"""What the portfolio shows: the live status of a race (a progress report), the table at its
end, and the short statistics both of them and ``compare`` print.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from puzzlesat.core import Result, Status
from puzzlesat.portfolio.runs import ALONE, RaceResult, Run

KEY_STATS = ("nodes", "conflicts", "branches", "decisions", "propagations", "variables", "clauses")


def describe(result: Result, note: str) -> str:
    """A member's state in one word: how it was stopped, else its status."""
    if note in ("stopped", "interrupted", "timeout"):
        return note
    return result.status.value


def status_text(runs: Sequence[Run], start: float) -> str:
    """The live line: the race's time and every member's state."""
    parts = []
    for run in runs:
        if run.result is not None:
            state = describe(run.result, run.note)
        elif run.loaded is not None:
            state = "solving"
        elif run.started is not None:
            state = "loading"
        else:
            state = "starting"
        parts.append(f"{run.label}: {state}")
    return f"portfolio {time.time() - start:6.1f}s | " + " | ".join(parts)


def compact(value: Any) -> str:
    """Short numbers for tables.

    >>> compact(1234567), compact(98765), compact(12), compact(0.5)
    ('1.2M', '98.8k', '12', '0.5')
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if abs(value) >= 1e6:
        return f"{value / 1e6:.1f}M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:.1f}k"
    return f"{value:g}" if isinstance(value, float) else str(value)


def key_stats(stats: dict[str, Any], limit: int = 3) -> str:
    """The most telling statistics, ``k=v`` separated by spaces."""
    picked = [f"{k}={compact(stats[k])}" for k in KEY_STATS if k in stats][:limit]
    return " ".join(picked)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def format_table(race_result: RaceResult) -> str:
    """The end-of-race table: one row per member, the winner marked ``*``."""
    header: tuple[str, ...] = (
        "",
        "strategy",
        "seed",
        "cores",
        "status",
        "solve",
        "elapsed",
        "start-up",
        "import",
        "stats",
    )
    remote = race_result.backend != "local"
    if remote:
        header = (*header[:-1], "host", "stats")
    rows = [header]
    for o in race_result.outcomes:
        status = o.result.status.value
        if o.note in ("stopped", "timeout", "interrupted", "memory", "crashed", "rejected"):
            status += f" ({o.note})"
        if o.result.objective is not None:
            status += f" obj={o.result.objective}"
        solve = o.result.wall_time if o.result.wall_time else None
        stats = key_stats(o.result.stats)
        if o.result.status is Status.ERROR and o.result.message:
            stats = (stats + "  " if stats else "") + o.result.message[:80]
        row = (
            "*" if o.winner else "",
            o.label,
            str(o.seed),
            str(o.workers),
            status,
            _seconds(solve),
            _seconds(o.elapsed),
            _seconds(o.startup),
            _seconds(o.load),
        )
        rows.append((*row, o.host, stats) if remote else (*row, stats))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    startups = [o.startup for o in race_result.outcomes if o.startup is not None]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    cap = "no memory cap" if race_result.memory_mb is None else f"memory cap {race_result.memory_mb} MiB/child"
    where = "" if race_result.backend == "local" else f" ({race_result.backend})"
    summary = (
        f"portfolio: {len(race_result.outcomes)} members on {race_result.jobs} cores{where}, "
        f"{cap}, decided in {race_result.wall_time:.2f}s"
    )
    if len(race_result.outcomes) == 1 and race_result.outcomes[0].label.endswith(ALONE):
        summary = f"portfolio: one member, searched in this process (nothing to race), {race_result.wall_time:.2f}s"
    elif race_result.skipped or (race_result.outcomes and not startups):
        summary = f"portfolio: decided by the head start in this process in {race_result.wall_time:.2f}s"
    elif race_result.head_start:
        summary += f" (head start {race_result.head_start:.2f}s)"
    if startups:
        what = "process" if race_result.backend == "local" else "task"
        summary += f", {what} start-up {min(startups):.2f}-{max(startups):.2f}s"
    footer = []
    if race_result.skipped:
        footer.append(f"c not started: {', '.join(race_result.skipped)} (the head start answered)")
    winner = race_result.winner
    if winner is not None:
        footer.append(f"c won by {winner.label}: {race_result.result.status.value} ({race_result.proof})")
    return "\n".join(["c " + summary, *("c " + line for line in lines), *footer]) + "\n"
