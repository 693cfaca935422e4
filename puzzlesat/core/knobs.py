"""Search knobs that several strategies share, declared once: each strategy adds the Option
with its own default, and the search reads it from ``limits.options`` (never a module global).

- ``head_start``: with ``--workers N``, seconds this process searches alone before it starts
  the others (most boards end in it, with no process started).
- ``plain_nodes``: nodes searched in plain Python before the compiled kernel takes over, so
  that an easy board does not wait for the kernel to load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlesat.core.options import Option


def head_start(seconds: float) -> Option:
    """The ``head_start`` Option, ``seconds`` by default."""
    return Option(
        "head_start",
        float,
        seconds,
        "--workers N: seconds this process searches alone before it starts the others (0: at once)",
        low=0.0,
        high=3600.0,
    )


def plain_nodes(nodes: int, when: str = "until the kernel is loaded, then none") -> Option:
    """The ``plain_nodes`` Option; not given, the search takes ``nodes`` ``when`` it says (by
    default in a process that has not loaded its kernel yet, none in one that has: the
    default is None, it depends)."""
    return Option(
        "plain_nodes",
        int,
        None,
        f"nodes searched in plain Python before the compiled kernel (default {nodes} {when}; 0: none)",
        low=0,
        high=10**9,
    )


def knob(options: Mapping[str, Any], option: Option) -> Any:
    """``option``'s value among a run's options, converted; its default when missing or None."""
    value = options.get(option.name)
    return option.default if value is None else option.convert(value)


def plain_budget(options: Mapping[str, Any], nodes: int, loaded: bool) -> int:
    """The plain-Python nodes of a run: the ``plain_nodes`` given, else ``nodes`` while the
    kernel is not ``loaded`` (see :func:`plain_nodes`)."""
    given = options.get("plain_nodes")
    if given is not None:
        return int(given)
    return 0 if loaded else nodes
