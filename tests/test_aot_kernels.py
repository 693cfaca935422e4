"""Kernels compiled ahead of time (``puzzlesat kernels build``): the same answers as numba's JIT.

One build, by the command a user runs, into a temporary cache folder; then the same searches
with the built library and with the JIT: counts, nodes and first boards on generated boards,
the search shared between processes, and a solve that imports neither numba nor numpy.  A
library built for other sources or versions is never loaded.  Skipped where no C compiler is found.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from puzzlesat import api
from puzzlesat.domains.eternity import generate, make_unsolvable
from puzzlesat.native import aot
from puzzlesat.native.eternity.abi import Built, Jit

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
def built(cache: Path, monkeypatch: pytest.MonkeyPatch) -> Built:
    """The built eternity kernels, loaded from the cache folder the way a solve loads them."""
    monkeypatch.setenv("PUZZLESAT_CACHE", str(cache))
    monkeypatch.setattr(aot, "_loaded", {})
    assert aot.path(aot.KERNEL_SETS["eternity"]).is_file()
    kernels = aot.load("eternity")
    assert isinstance(kernels, Built)
    return kernels


def solve_with(kernels: Built | None, monkeypatch: pytest.MonkeyPatch, instance: object, **limits: object) -> dict:
    """The result of a native-rowscan solve with ``kernels`` (None: numba's JIT), as data."""
    monkeypatch.setattr(aot, "_loaded", {"eternity": kernels})
    result = api.solve(api.Instance("eternity", instance), "native-rowscan", **limits)  # type: ignore[arg-type]
    stats = {k: v for k, v in result.stats.items() if k not in ("compile_time", "tree_time")}
    return {"status": result.status, "solution": result.solution, "count": result.count, "stats": stats}


BOARDS = [(4, 2, 3, 1), (5, 3, 4, 2), (5, 2, 5, 3), (6, 3, 6, 4), (6, 4, 7, 5)]


@pytest.mark.parametrize(("size", "frame", "inner", "seed"), BOARDS)
def test_built_kernels_find_the_jits_first_board_and_count(
    built: Built, monkeypatch: pytest.MonkeyPatch, size: int, frame: int, inner: int, seed: int
) -> None:
    instance = generate({"size": size, "frame_colours": frame, "inner_colours": inner}, seed)
    for limits in ({"seed": seed}, {"seed": seed, "count": True}, {"seed": seed, "colour_check": True}):
        jit = solve_with(None, monkeypatch, instance, **limits)
        ahead = solve_with(built, monkeypatch, instance, **limits)
        assert ahead == jit, limits
        assert jit["status"] == api.Status.SOLVED


def test_built_kernels_prove_unsolvable_as_the_jit_does(built: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = make_unsolvable(generate({"size": 5, "frame_colours": 3, "inner_colours": 4}, 7))
    jit = solve_with(None, monkeypatch, instance, seed=1)
    assert solve_with(built, monkeypatch, instance, seed=1) == jit
    assert jit["status"] == api.Status.INFEASIBLE


def test_built_kernels_share_a_count_between_processes(built: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = generate({"size": 6, "frame_colours": 3, "inner_colours": 6}, 4)
    jit = solve_with(None, monkeypatch, instance, seed=4, count=True)
    ahead = solve_with(built, monkeypatch, instance, seed=4, count=True, workers=2)
    assert (ahead["status"], ahead["count"]) == (jit["status"], jit["count"])


def test_a_solve_with_built_kernels_imports_neither_numba_nor_numpy(cache: Path) -> None:
    board = ROOT / "instances" / "eternity" / "peak_6x6_b3_m7_s0.txt"
    code = f"import sys\nfrom puzzlesat import api\nassert api.solve(api.load('eternity', {str(board)!r})).solution\n"
    code += "print('numba' in sys.modules, 'numpy' in sys.modules)"
    env = {**os.environ, "PUZZLESAT_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_library_built_for_other_versions_is_never_loaded(
    built: Built, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert [(k.name, k.state) for k in api.kernel_builds()] == [("eternity", "built")]
    other = {**aot.versions(), "numpy": "0.0"}
    monkeypatch.setattr(aot, "versions", lambda: other)
    monkeypatch.setattr(aot, "_loaded", {})
    assert aot.load("eternity") is None
    assert [(k.name, k.state) for k in api.kernel_builds()] == [("eternity", "stale")]


def imported_modules(module: str) -> set[str]:
    """The puzzlesat modules (not packages) that ``module`` imports, anywhere in its source."""
    found = set()
    for node in ast.walk(ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("puzzlesat"):
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return {name for name in found if (ROOT / (name.replace(".", "/") + ".py")).is_file()}


def test_the_key_follows_the_sources_compiled_in() -> None:
    """Every puzzlesat module the C functions' module imports, and those import, is hashed into the key."""
    for kernels in aot.KERNEL_SETS.values():
        assert kernels.abi in kernels.sources
        for module in kernels.sources:
            assert imported_modules(module) <= set(kernels.sources), module


def test_unknown_kernels_are_refused_before_anything_is_built() -> None:
    with pytest.raises(api.PuzzlesatError, match="no kernels called 'nope'; expected one of: eternity"):
        api.build_kernels(["eternity", "nope"])


def test_a_library_that_does_not_load_leaves_the_solve_to_the_jit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    monkeypatch.setattr(aot, "_loaded", {})
    target = aot.path(aot.KERNEL_SETS["eternity"])
    target.parent.mkdir(parents=True)
    target.write_bytes(b"cut short")
    assert aot.load("eternity") is None
    assert isinstance(aot.kernels("eternity"), Jit)


def test_a_build_without_a_c_compiler_is_refused_before_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    monkeypatch.setattr(aot, "compiler", list)
    with pytest.raises(api.PuzzlesatError, match="building kernels needs the C compiler"):
        aot.build("eternity")
    assert not aot.folder().exists()


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 3]


def _flip(data: bytes) -> bytes:
    flipped = bytearray(data)
    for at in range(len(data) // 2, len(data) // 2 + 64):
        flipped[at] ^= 0xFF
    return bytes(flipped)


def _foreign(data: bytes) -> bytes:
    import _ctypes

    return Path(_ctypes.__file__).read_bytes()


# (how the library is damaged, whether its digest is made to match, what the line says)
DAMAGE = [
    (_truncate, False, "do not match its digest"),
    (_flip, False, "do not match its digest"),
    (_foreign, False, "do not match its digest"),
    (_foreign, True, "does not load"),  # a digest that matches a foreign library: no symbols
    (lambda data: data, None, "cannot read it or its digest"),  # the digest is gone
]


@pytest.mark.parametrize(("damage", "sealed", "says"), DAMAGE, ids=["cut", "flipped", "foreign", "sealed", "bare"])
def test_a_damaged_library_is_one_line_and_the_jit_serves(
    damage: object, sealed: bool | None, says: str, cache: Path, tmp_path: Path
) -> None:
    """Checked before dlopen (issue 51: a cut or flipped library was a SIGBUS, a foreign one a traceback)."""
    import shutil

    damaged = tmp_path / "cache"
    shutil.copytree(cache, damaged)
    env = {**os.environ, "PUZZLESAT_CACHE": str(damaged), "PYTHONPATH": str(ROOT)}
    code = "from puzzlesat.native import aot; print(aot.path(aot.KERNEL_SETS['eternity']))"
    library = Path(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip())
    library.write_bytes(damage(library.read_bytes()))  # type: ignore[operator]
    digest = Path(str(library) + aot.DIGEST)
    if sealed:
        digest.write_text(aot.digest_of(library.read_bytes()))
    elif sealed is None:
        digest.unlink()
    solve = [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", str(ROOT / "instances/eternity/seed_4x4.txt")]
    done = subprocess.run(solve, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout, done.stderr
    damage_lines = [line for line in done.stderr.splitlines() if "damaged" in line]
    assert len(damage_lines) == 1 and says in damage_lines[0] and "Traceback" not in done.stderr, done.stderr
    listed = subprocess.run([sys.executable, "-m", "puzzlesat.cli", "kernels", "list"], env=env, capture_output=True)
    assert (b" damaged " in listed.stdout) == (not sealed)  # a sealed foreign library passes its digest


def test_a_build_keeps_the_libraries_other_checkouts_still_load(tmp_path: Path) -> None:
    """The cache folder is shared: a build removes another key's library only when no solve has
    loaded it (touched its digest) for ``KEEP_DAYS`` days; never the one it built."""
    now = 1_000_000_000.0
    mine, used, unused, bare = (tmp_path / f"eternity-{key}.so" for key in ("aa", "bb", "cc", "dd"))
    other_set = tmp_path / "rubik-ee.so"
    for library in (mine, used, unused, bare, other_set):
        library.write_bytes(b"\0")
        Path(str(library) + aot.DIGEST).write_text("x\n")
    old = now - (aot.KEEP_DAYS + 1) * 86400
    for file in (Path(str(unused) + aot.DIGEST), bare, Path(str(other_set) + aot.DIGEST), mine):
        os.utime(file, (old, old))
    Path(str(bare) + aot.DIGEST).unlink()
    aot.remove_unused(mine, now=now)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [
            "eternity-aa.so",
            "eternity-aa.so.digest",
            "eternity-bb.so",
            "eternity-bb.so.digest",
            "rubik-ee.so",
            "rubik-ee.so.digest",
        ]
    )
