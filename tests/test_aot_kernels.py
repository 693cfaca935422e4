"""Kernels compiled ahead of time (``puzzlesat kernels build``): the same answers as numba's JIT.

One build, by the command a user runs, into a temporary cache folder; then the same searches
with the built module and with the JIT: counts, nodes and first boards on generated boards,
the search shared between processes, and a solve that never imports numba.  A module built
for other sources or versions is never loaded.  Skipped where no C compiler is found.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from puzzlesat import api
from puzzlesat.domains.eternity import generate, make_unsolvable
from puzzlesat.native import aot

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache folder holding the built kernels (built once, by ``puzzlesat kernels build``)."""
    if not aot.compiler_works():
        pytest.skip("no C compiler: kernels cannot be built ahead of time")
    folder = tmp_path_factory.mktemp("cache")
    env = {**os.environ, "PUZZLESAT_CACHE": str(folder), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "puzzlesat.cli", "kernels", "build"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "c eternity kernels built: " in done.stderr and not done.stdout
    yield folder


@pytest.fixture
def built(cache: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The built eternity kernels, loaded from the cache folder the way a solve loads them."""
    monkeypatch.setenv("PUZZLESAT_CACHE", str(cache))
    monkeypatch.setattr(aot, "_loaded", {})
    module = aot.load("eternity")
    assert module is not None and module.__file__ == str(aot.path(aot.KERNEL_SETS["eternity"]))
    return module


def solve_with(kernels: ModuleType | None, monkeypatch: pytest.MonkeyPatch, instance: object, **limits: object) -> dict:
    """The result of a native-rowscan solve with ``kernels`` (None: numba's JIT), as data."""
    monkeypatch.setattr(aot, "_loaded", {"eternity": kernels})
    result = api.solve(api.Instance("eternity", instance), "native-rowscan", **limits)  # type: ignore[arg-type]
    stats = {k: v for k, v in result.stats.items() if k not in ("compile_time",)}
    return {"status": result.status, "solution": result.solution, "count": result.count, "stats": stats}


BOARDS = [(4, 2, 3, 1), (5, 3, 4, 2), (5, 2, 5, 3), (6, 3, 6, 4), (6, 4, 7, 5)]


@pytest.mark.parametrize(("size", "frame", "inner", "seed"), BOARDS)
def test_built_kernels_find_the_jits_first_board_and_count(
    built: ModuleType, monkeypatch: pytest.MonkeyPatch, size: int, frame: int, inner: int, seed: int
) -> None:
    instance = generate({"size": size, "frame_colours": frame, "inner_colours": inner}, seed)
    for limits in ({"seed": seed}, {"seed": seed, "count": True}, {"seed": seed, "colour_check": True}):
        jit = solve_with(None, monkeypatch, instance, **limits)
        ahead = solve_with(built, monkeypatch, instance, **limits)
        assert ahead == jit, limits
        assert jit["status"] == api.Status.SOLVED


def test_built_kernels_prove_unsolvable_as_the_jit_does(built: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = make_unsolvable(generate({"size": 5, "frame_colours": 3, "inner_colours": 4}, 7))
    jit = solve_with(None, monkeypatch, instance, seed=1)
    assert solve_with(built, monkeypatch, instance, seed=1) == jit
    assert jit["status"] == api.Status.INFEASIBLE


def test_built_kernels_share_a_count_between_processes(built: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = generate({"size": 6, "frame_colours": 3, "inner_colours": 6}, 4)
    jit = solve_with(None, monkeypatch, instance, seed=4, count=True)
    ahead = solve_with(built, monkeypatch, instance, seed=4, count=True, workers=2)
    assert (ahead["status"], ahead["count"]) == (jit["status"], jit["count"])


def test_a_solve_with_built_kernels_imports_no_numba(cache: Path) -> None:
    board = ROOT / "instances" / "eternity" / "peak_6x6_b3_m7_s0.txt"
    code = f"import sys\nfrom puzzlesat import api\nassert api.solve(api.load('eternity', {str(board)!r})).solution\n"
    code += "print('numba' in sys.modules)"
    env = {**os.environ, "PUZZLESAT_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]


def test_a_module_built_for_other_versions_is_never_loaded(
    built: ModuleType, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert [(k.name, k.state) for k in api.kernel_builds()] == [("eternity", "built")]
    other = {**aot.versions(), "numpy": "0.0"}
    monkeypatch.setattr(aot, "versions", lambda: other)
    monkeypatch.setattr(aot, "_loaded", {})
    assert aot.load("eternity") is None
    assert [(k.name, k.state) for k in api.kernel_builds()] == [("eternity", "stale")]


def test_the_key_follows_the_sources_compiled_in() -> None:
    """Every puzzlesat module a kernel module imports is hashed into the key (its constants are compiled in)."""
    for kernels in aot.KERNEL_SETS.values():
        spec_path = ROOT / (kernels.module.replace(".", "/") + ".py")
        imported = {
            node.module
            for node in ast.walk(ast.parse(spec_path.read_text()))
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("puzzlesat")
        }
        assert imported <= set(kernels.sources) and kernels.module in kernels.sources


def test_unknown_kernels_are_refused_before_anything_is_built() -> None:
    with pytest.raises(api.PuzzlesatError, match="no kernels called 'nope'; expected one of: eternity"):
        api.build_kernels(["eternity", "nope"])
