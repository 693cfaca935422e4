"""The folder where puzzlesat keeps what it builds once and reuses (Rubik's pruning tables, the
kernels compiled ahead of time).

One place decides it for every cache: ``$PUZZLESAT_CACHE``, else ``$XDG_CACHE_HOME/puzzlesat``,
else ``~/.cache/puzzlesat``.  A table module names its own files inside it.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The folder where tables are kept (not created here: a writer creates it when it writes)."""
    if os.environ.get("PUZZLESAT_CACHE"):
        return Path(os.environ["PUZZLESAT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "puzzlesat"
