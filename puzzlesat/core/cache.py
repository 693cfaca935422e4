"""The folder where puzzlesat keeps what it builds once and reuses (Rubik's pruning tables, the
kernels compiled ahead of time).

One place decides it for every cache: ``$PUZZLESAT_CACHE``, else ``$XDG_CACHE_HOME/puzzlesat``,
else ``~/.cache/puzzlesat``.  A table module names its own files inside it.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from puzzlesat.core.errors import ParseError
from puzzlesat.core.text import load_json, read_text

# a note is a few hundred bytes: a digest per file, sizes, stamps
NOTE_BYTES = 1 << 20


def cache_dir() -> Path:
    """The folder where tables are kept (not created here: a writer creates it when it writes)."""
    if os.environ.get("PUZZLESAT_CACHE"):
        return Path(os.environ["PUZZLESAT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "puzzlesat"


def read_note(path: Path) -> dict[str, Any] | None:
    """A JSON note kept in the cache (a table's digest and size, a build's progress), read
    bounded (:func:`~puzzlesat.core.text.load_json`); None when it is missing, damaged or not
    an object: the caller rebuilds what it describes, as for a missing one."""
    try:
        note = load_json(read_text(path, str(path), limit=NOTE_BYTES), str(path))
    except (OSError, ParseError):
        return None
    return note if isinstance(note, dict) else None


def number(note: dict[str, Any], key: str, default: float = 0.0) -> float:
    """A finite number a note holds under ``key`` (a bool or text is none), else ``default``."""
    value = note.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return float(value)
