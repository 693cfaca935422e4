"""Where strategy runs go: local child processes or Ray tasks, behind one :class:`Pool` protocol.

:class:`Backend` says which engine and what each run may take (cores, memory, grace);
:func:`open_pool` opens it as a :class:`~puzzlesat.portfolio.supervisor.Supervisor` (local
processes) or a :class:`~puzzlesat.portfolio.ray_backend.RaySupervisor` (Ray, imported only
when asked for).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Protocol

from puzzlesat.core import Puzzle, PuzzlesatError
from puzzlesat.core.arguments import BACKENDS
from puzzlesat.portfolio.child import ChildSpec
from puzzlesat.portfolio.runs import Run

MIB = 1024 * 1024


def default_memory_mb(children: int) -> int:
    """A per-child memory cap: 80% of the machine's memory shared by the children, at least 512 MiB."""
    import psutil  # here: a race its head start settles never needs it (0.1 s to import)

    total = psutil.virtual_memory().total
    return max(512, int(total * 0.8 / max(1, children) / MIB))


def default_start_method() -> str:
    """``$PUZZLESAT_START_METHOD`` (``spawn`` or ``fork``), else ``spawn``."""
    return os.environ.get("PUZZLESAT_START_METHOD", "spawn") or "spawn"


@dataclass(frozen=True)
class Backend:
    """Which engine runs the strategies, and what the runs may take together and each.

    Attributes:
        name: ``local`` (child processes) or ``ray`` (one Ray task per run; see
            :mod:`puzzlesat.portfolio.ray_backend`).
        address: the Ray cluster's ``HOST:PORT`` to join; None starts a local Ray instance.
        jobs: cores shared among a race's members, or runs at once in ``compare``; None for the
            default (a race: the machine's CPUs, the cluster's with Ray; ``compare``: 1 locally,
            the whole grid with Ray).
        memory_mb: per-child cap in MiB; None for :func:`default_memory_mb` locally (no cap
            with Ray, whose memory monitor stops tasks that exhaust a node).
        grace: seconds between SIGTERM and SIGKILL when stopping a local child.
        start_method: ``spawn`` or ``fork`` for local children; None for
            :func:`default_start_method`.
    """

    name: str = "local"
    address: str | None = None
    jobs: int | None = None
    memory_mb: int | None = None
    grace: float = 0.5
    start_method: str | None = None

    def memory_cap(self, children: int) -> int | None:
        """The per-child cap in MiB when ``children`` run at once."""
        if self.name == "local":
            return self.memory_mb or default_memory_mb(children)
        return self.memory_mb


class Pool(Protocol):
    """What :func:`~puzzlesat.portfolio.race.race` and :func:`~puzzlesat.portfolio.compare.compare` need:
    :class:`Supervisor` (local processes) or :class:`~puzzlesat.portfolio.ray_backend.RaySupervisor`."""

    active: list[Run]

    @property
    def cpus(self) -> int:
        """The cores available to the runs."""

    def start(self, label: str, spec: ChildSpec) -> Run:
        """Start one run."""

    def fit(self, cpus: int) -> None:
        """The runs about to start want ``cpus`` cores in all and must all start at once."""

    def poll(self, timeout: float) -> list[Run]:
        """Wait up to ``timeout`` seconds; the runs whose outcome became known."""

    def close(self, note: str = "stopped") -> None:
        """Stop every run still going; nothing is left behind."""

    def __enter__(self) -> Pool:
        """Itself."""

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        """Close (``interrupted`` on Ctrl-C)."""


def open_pool(puzzle: Puzzle, backend: Backend) -> Pool:
    """The pool that runs strategies: ``local`` processes or ``ray`` tasks.

    Args:
        puzzle: the puzzle (answers are verified against it).
        backend: the engine and its settings.

    Raises:
        PuzzlesatError: an unknown backend, an address without ``ray``, or Ray not installed.
    """
    if backend.name == "ray":
        from puzzlesat.portfolio.ray_backend import RaySupervisor

        return RaySupervisor(puzzle, address=backend.address)  # reports its connection as progress
    if backend.name != "local":
        raise PuzzlesatError(f"unknown backend {backend.name!r}; expected one of: {', '.join(BACKENDS)}")
    if backend.address:
        raise PuzzlesatError("--address needs --backend ray")
    from puzzlesat.portfolio.supervisor import Supervisor

    return Supervisor(puzzle, grace=backend.grace, start_method=backend.start_method or default_start_method())
