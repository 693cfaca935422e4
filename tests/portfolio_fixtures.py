"""Test-only puzzles whose strategies misbehave on purpose, for the portfolio tests.

The domain is tiny: an instance is a number ``n``.  In :data:`PUZZLE` (a decision puzzle) a
solution is its exact integer square root; in :data:`OPT_PUZZLE` (an optimisation puzzle) a
solution is any ``x`` with ``x * x >= n`` and the objective ``x`` is minimised.

Portfolio children are spawned, so they import this module by name: the tests put this
folder on ``sys.path`` (spawned children inherit the parent's ``sys.path``).
"""

from __future__ import annotations

import faulthandler
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzlesat.core import Limits, Option, ParseError, Puzzle, Result, Status, Strategy

DELAYS = ("0", "0.2", "0.5", "1", "2", "5", "30")


@dataclass(frozen=True)
class Number:
    """The instance: a non-negative integer."""

    n: int


@dataclass(frozen=True)
class Root:
    """The solution: one integer."""

    value: int


def parse(text: str, source: str = "<input>") -> Number:
    """One non-negative integer."""
    try:
        n = int(text.strip())
    except ValueError:
        raise ParseError(f"{source}:1: expected an integer, got {text.strip()!r}") from None
    if n < 0:
        raise ParseError(f"{source}:1: expected a non-negative integer, got {n}")
    return Number(n)


def write_instance(instance: Number) -> str:
    """The instance's text."""
    return f"{instance.n}\n"


def format_solution(instance: Number, solution: Root | None) -> str:
    """The answer's text."""
    return "NONE\n" if solution is None else f"{solution.value}\n"


def parse_solution(instance: Number, text: str, source: str = "<solution>") -> Root | None:
    """Read an answer."""
    return None if text.strip() == "NONE" else Root(int(text))


def verify_root(instance: Number, solution: Root) -> list[str]:
    """An exact square root."""
    return [] if solution.value * solution.value == instance.n else [f"{solution.value}^2 != {instance.n}"]


def verify_cover(instance: Number, solution: Root) -> list[str]:
    """Any x >= 0 whose square reaches n."""
    x = solution.value
    return [] if x >= 0 and x * x >= instance.n else [f"{x}^2 < {instance.n}"]


def generate(options: dict[str, Any], seed: int) -> Number:
    """A perfect square."""
    return Number((seed + 2) ** 2)


def _delay(variant: str | None, limits: Limits) -> bool:
    """Sleep ``variant`` seconds, but not past the timeout; True if the full delay passed."""
    want = float(variant or 0)
    allowed = want if limits.timeout is None else min(want, limits.timeout)
    time.sleep(allowed)
    return allowed >= want


def solve_exact(instance: Number, limits: Limits, variant: str | None) -> Result:
    """The right answer after a delay (UNKNOWN if the timeout comes first)."""
    if not _delay(variant, limits):
        return Result(Status.UNKNOWN, message="timeout")
    r = math.isqrt(instance.n)
    if r * r != instance.n:
        return Result(Status.INFEASIBLE, stats={"nodes": 1})
    return Result(Status.SOLVED, Root(r), stats={"nodes": 1 + limits.seed, "workers": limits.workers})


def solve_hang(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Never answers and ignores the timeout."""
    while True:
        time.sleep(3600)


def solve_stubborn(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Ignores SIGTERM and never answers: only SIGKILL stops it."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(3600)


def solve_busy(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Spins in pure Python without ever looking at the clock."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1000003


def solve_crash(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Dies of a segmentation fault (quietly: no faulthandler dump inherited from pytest)."""
    faulthandler.disable()
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(10)
    raise AssertionError("unreachable")


def solve_raise(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Raises an exception."""
    raise RuntimeError("boom")


def solve_hog(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Eats memory 32 MiB at a time, touching every page, until something stops it."""
    chunks = []
    while True:
        chunks.append(b"x" * (32 * 1024 * 1024))


def solve_liar(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Claims a wrong answer at once (wrong for both puzzles)."""
    return Result(Status.SOLVED, Root(-1), objective=-1)


def solve_unknown(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Gives up at once."""
    return Result(Status.UNKNOWN, message="gave up")


def solve_spawner(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Starts a grandchild process (its pid goes to ``options['pidfile']``) and hangs."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
    Path(limits.options["pidfile"]).write_text(f"{os.getpid()} {child.pid}\n")
    while True:
        time.sleep(3600)


def solve_optimal(instance: Number, limits: Limits, variant: str | None) -> Result:
    """The proven optimum after a delay."""
    if not _delay(variant, limits):
        return Result(Status.UNKNOWN, message="timeout")
    x = math.isqrt(instance.n - 1) + 1 if instance.n else 0
    return Result(Status.OPTIMAL, Root(x), objective=x)


def solve_approx(instance: Number, limits: Limits, variant: str | None) -> Result:
    """A feasible answer 1 above the optimum after a delay (or at the timeout)."""
    _delay(variant, limits)
    x = (math.isqrt(instance.n - 1) + 1 if instance.n else 0) + 1
    return Result(Status.SOLVED, Root(x), objective=x)


def solve_good(instance: Number, limits: Limits, variant: str | None) -> Result:
    """The optimal value without a proof, after a delay (or at the timeout)."""
    _delay(variant, limits)
    x = math.isqrt(instance.n - 1) + 1 if instance.n else 0
    return Result(Status.SOLVED, Root(x), objective=x)


def solve_sharer(instance: Number, limits: Limits, variant: str | None) -> Result:
    """Shares an answer (the optimum + 1) with the race, then hangs: only the race's copy survives."""
    x = math.isqrt(instance.n) + 2
    if limits.shared is not None:
        limits.shared.offer(x, Root(x))
    while True:
        time.sleep(3600)


def _s(name: str, func: str, summary: str, delays: bool = False, engine: str = "other") -> Strategy:
    return Strategy(
        name,
        f"portfolio_fixtures:{func}",
        summary,
        variants=DELAYS if delays else (),
        default_variant="0" if delays else None,
        engine=engine,
        parallel=engine == "cpsat",
    )


PUZZLE = Puzzle(
    name="fixture-root",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify_root,
    generator="portfolio_fixtures:generate",
    write_instance=write_instance,
    strategies=(
        _s("exact", "solve_exact", "right answer after <delay> seconds", delays=True),
        _s("cpsat-exact", "solve_exact", "as exact; declared a CP-SAT member", delays=True, engine="cpsat"),
        _s("hang", "solve_hang", "sleeps forever"),
        _s("stubborn", "solve_stubborn", "ignores SIGTERM"),
        _s("busy", "solve_busy", "spins forever"),
        _s("crash", "solve_crash", "segfaults"),
        _s("raise", "solve_raise", "raises"),
        _s("hog", "solve_hog", "eats memory"),
        _s("liar", "solve_liar", "wrong answer"),
        _s("unknown", "solve_unknown", "gives up"),
        _s("spawner", "solve_spawner", "starts a grandchild and hangs"),
    ),
    portfolio=("exact:0.2", "hang"),
    solve_options=(
        Option("pidfile", str, None, "where the spawner writes its pid and its grandchild's"),
        Option("log", str, None, "where a crashing strategy logs its pid"),
    ),
)

OPT_PUZZLE = Puzzle(
    name="fixture-cover",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify_cover,
    generator="portfolio_fixtures:generate",
    write_instance=write_instance,
    strategies=(
        _s("optimal", "solve_optimal", "proven optimum after <delay>", delays=True),
        _s("approx", "solve_approx", "optimum + 1 after <delay>", delays=True),
        _s("good", "solve_good", "optimum without proof after <delay>", delays=True),
        _s("hang", "solve_hang", "sleeps forever"),
        _s("liar", "solve_liar", "infeasible answer"),
        _s("sharer", "solve_sharer", "shares an answer, then hangs"),
    ),
    optimisation=True,
)


# -- targets for the process helper's tests (tests/test_processes.py) ---------------------------


def start_grandchild_and_hang(pidfile: str) -> None:
    """Start a grandchild process, write both pids to ``pidfile``, and sleep."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
    Path(pidfile).write_text(f"{os.getpid()} {child.pid}\n")
    while True:
        time.sleep(3600)


_OFFSET: list[int] = []


def worker_init(offset: int) -> None:
    """A task pool's initialiser: remember ``offset``."""
    _OFFSET.append(offset)


def worker_task(x: int) -> int:
    """``x`` plus the offset the worker was initialised with."""
    return x + _OFFSET[0]


def worker_reporting(x: int) -> str:
    """Report ``x`` and ``x + 1`` before ending with "done"."""
    from puzzlesat.core.processes import report

    report(x)
    report(x + 1)
    return "done"


def worker_hungry(seconds: float) -> bool:
    """Whether the pool turns hungry (a worker waits, no task queued) within ``seconds``."""
    from puzzlesat.core.processes import hungry

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if hungry():
            return True
        time.sleep(0.02)
    return False


def worker_exit(code: int) -> None:
    """End the worker process at once."""
    os._exit(code)


def pigeonhole(holes: int) -> list[list[int]]:
    """CNF: ``holes + 1`` pigeons in ``holes`` holes, one each (unsatisfiable, and hard for CDCL)."""
    var = {(p, h): p * holes + h + 1 for p in range(holes + 1) for h in range(holes)}
    clauses = [[var[p, h] for h in range(holes)] for p in range(holes + 1)]
    for h in range(holes):
        for p in range(holes + 1):
            for q in range(p + 1, holes + 1):
                clauses.append([-var[p, h], -var[q, h]])
    return clauses


def children_left() -> list[Any]:
    """Child processes of this test process, less multiprocessing's resource tracker.

    The tracker is started once by the first spawned process of the test session (any
    module may cause it) and lives as long as the session: it is not a child we started.
    """
    import psutil

    return [
        p
        for p in psutil.Process().children(recursive=True)
        if "multiprocessing.resource_tracker" not in " ".join(p.cmdline())
    ]


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    import psutil

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def wait_gone(pids: list[int], seconds: float) -> list[int]:
    """Poll until every pid has gone; returns the ones still alive after ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(alive(p) for p in pids):
            return []
        time.sleep(0.05)
    return [p for p in pids if alive(p)]
