"""Joining Ray: importing it (or one clear line naming the extra), starting a local instance or
reaching a cluster, its reports kept off stdout.

Below the portfolio, so that a puzzle's own Ray driver (native/eternity/ray.py) and the
portfolio's Ray supervisor (portfolio/ray_backend.py) share it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from puzzlesat.core.errors import PuzzlesatError

RAY_MISSING = '--backend ray needs the ray extra: pip install "puzzlesat[ray]"'
LOCAL_OBJECT_STORE = 256 * 1024 * 1024  # results and instances are small


def import_ray() -> ModuleType:
    """``import ray``, or one clear error naming the extra to install.

    Raises:
        PuzzlesatError: Ray is not installed.
    """
    try:
        import ray
    except ImportError:
        raise PuzzlesatError(RAY_MISSING) from None
    return ray


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Join the Ray cluster at ``address``, or start a local Ray instance.

    A session that is already connected (``ray.is_initialized()``) is used as it is.

    Args:
        address: ``HOST:PORT`` of a running cluster's head (``ray start --head``), or
            ``auto`` for the cluster this machine is a node of; None starts a new local
            instance (even when this machine is a node of a cluster, and whatever
            ``RAY_ADDRESS`` says).
        num_cpus: the local instance's CPUs; default: this machine's.  Ignored with an address.

    Returns:
        True when this call connected (the caller shuts Ray down when done), False when a
        session already existed.

    Raises:
        PuzzlesatError: Ray is not installed, or the cluster cannot be reached.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    _ray_reports_to_stderr()
    common: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address:
            ray.init(address=address, **common)
        else:
            with _workers_see_our_path():  # "local": a new instance, even if a cluster runs here
                ray.init(
                    address="local",
                    num_cpus=num_cpus or os.cpu_count() or 1,
                    include_dashboard=False,
                    object_store_memory=LOCAL_OBJECT_STORE,
                    **common,
                )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise PuzzlesatError(
            f"cannot start or reach {where}: {str(exc).splitlines()[0] if str(exc) else exc}"
        ) from None
    return True


WORKER_DIED = "A worker died or was killed while executing a task"


def _ray_reports_to_stderr() -> None:
    """Send the raylet's reports to stderr (Ray prints them on stdout, where puzzlesat writes its
    answers and tables), without its "a worker died" reports: a run whose worker died is
    reported as an ERROR by puzzlesat itself, and workers that exit after their run (once it
    has answered) now and then abort on the way out, which is no news to the user."""
    try:
        from ray._private import worker as ray_worker
    except ImportError:  # pragma: no cover - another Ray layout
        return
    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "puzzlesat", False):
        return

    def to_stderr(data: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if data.get("pid") == "raylet":
            lines = [line for line in data.get("lines", []) if WORKER_DIED not in line]
            if not lines:
                return None
            data = {**data, "lines": lines, "is_err": True}
        return original(data, *args, **kwargs)

    to_stderr.puzzlesat = True  # type: ignore[attr-defined]
    ray_worker.print_to_stdstream = to_stderr


@contextlib.contextmanager
def _workers_see_our_path() -> Iterator[None]:
    """A local instance's workers import what this process can (as spawned local children do):
    its ``sys.path`` goes into the ``PYTHONPATH`` that Ray's processes inherit."""
    before = os.environ.get("PYTHONPATH")
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    merged = dict.fromkeys([*paths, *(before or "").split(os.pathsep)])
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in merged if p)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before
