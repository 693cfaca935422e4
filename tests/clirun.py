"""The command line as a user runs it: ``python -m puzzlesat.cli ARGS`` in the repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the CLI with ``args`` (and ``stdin``) from the repository's root; text out and err."""
    return subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
