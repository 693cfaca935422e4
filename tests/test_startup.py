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
    assert {m for m in loaded if m.startswith(domains)} == {domains + "masyu"}
    assert not any(
        m.startswith(domains) for m in loaded_after("from puzzlesat import cli\ncli.build_parser(['decode'])")
    )


def test_a_small_eternity_solve_loads_no_numba() -> None:
    """The 4x4 seed is answered by the plain-Python row scan: numba's import alone would double its time."""
    seed = Path(__file__).resolve().parents[1] / "instances" / "eternity" / "seed_4x4.txt"
    code = f"from puzzlesat import api\nassert api.solve(api.load('eternity', {str(seed)!r})).solution"
    assert "numba" not in loaded_after(code)


def test_loading_a_kernel_skips_numbas_scipy_probe() -> None:
    """numba's first call would import scipy.linalg (about 0.15 s) to probe for BLAS; ours need none."""
    pytest.importorskip("scipy.linalg")
    code = "from puzzlesat.native import eternity\neternity._compile()"
    assert "scipy.linalg" not in loaded_after(code)
    assert "scipy.linalg.cython_blas" in loaded_after(code + "\nimport scipy.linalg.cython_blas")
