"""Start-up loads what the command uses: no solver library on import, one domain per solve.

The CLI starts for every small solve, so what it imports is part of its speed (issue 14: the
start-up of ``puzzlesat list`` and of a 4x4 solve must not grow).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = f"import sys\n{code}\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_the_library_loads_no_solver() -> None:
    loaded = loaded_after("import puzzlesat")
    assert not {"ortools", "pysat", "numba", "numpy"} & {name.split(".")[0] for name in loaded}


def test_a_command_loads_only_its_puzzle() -> None:
    domains = "puzzlesat.domains."
    loaded = loaded_after("from puzzlesat import cli\ncli.build_parser(['solve', 'masyu', 'x.txt'])")
    # the puzzle's package and its modules, no other puzzle's
    assert {m.split(".")[2] for m in loaded if m.startswith(domains)} == {"masyu"}
    assert not any(
        m.startswith(domains) for m in loaded_after("from puzzlesat import cli\ncli.build_parser(['decode'])")
    )


def test_plugins_are_looked_for_only_when_a_command_needs_them() -> None:
    # a built-in puzzle's command never lists the entry points; `list` lists them cheaply, and
    # imports importlib.metadata (about 12 ms) only when some package declares a puzzlesat group
    code = "from puzzlesat import cli\ncli.build_parser(['solve', 'eternity', 'x.txt'])\n"
    code += "from puzzlesat.core import registry\nassert registry._groups is None"
    assert "puzzlesat.core.registry" in loaded_after(code)
    quiet = "import contextlib, io\nfrom puzzlesat import cli\nwith contextlib.redirect_stdout(io.StringIO()):\n"
    listed = loaded_after(quiet + "    cli.main(['list'])")
    assert "importlib.metadata" not in listed


def test_a_small_eternity_solve_loads_no_numba() -> None:
    """The 4x4 seed is answered by the plain-Python row scan: numba's import alone would double its time."""
    seed = Path(__file__).resolve().parents[1] / "instances" / "eternity" / "seed_4x4.txt"
    code = f"from puzzlesat import api\nassert api.solve(api.load('eternity', {str(seed)!r})).solution"
    loaded = loaded_after(code)
    assert "numba" not in loaded
    assert "puzzlesat.core.hooks" not in loaded  # the guard around a plugin's functions: for plugins only


def test_loading_a_kernel_skips_numbas_scipy_probe() -> None:
    """numba's first call would import scipy.linalg (about 0.15 s) to probe for BLAS; ours need none."""
    pytest.importorskip("scipy.linalg")
    code = "from puzzlesat.native.eternity import search\nsearch.load_kernels()"
    assert "scipy.linalg" not in loaded_after(code)
    assert "scipy.linalg.cython_blas" in loaded_after(code + "\nimport scipy.linalg.cython_blas")


def test_first_solve_benchmark_runs() -> None:
    """benchmarks/first_solve.py on one quick puzzle's seeds: its own temporary caches, a table with both runs."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "first_solve.py"
    cmd = [sys.executable, str(script), "--seeds", "--puzzles", "masyu", "--warm", "1", "--timeout", "60"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| masyu")]
    assert len(rows) == 2 and all(" exit " not in row and "> 60" not in row for row in rows), out
