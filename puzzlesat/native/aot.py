"""Kernels compiled ahead of time: built once by ``puzzlesat kernels build``, loaded without numba or numpy.

A warm solve of a small board spends most of its time importing numba and loading its cache
(about 0.4 s of CPU) for a search of hundredths of a second, and numpy's import alone is a
third of a whole 7x7 solve.  A kernel set declares its kernels as C functions (numba
``cfunc`` callbacks: native/eternity/abi.py); the build takes the LLVM code numba makes of
them, the kernels they call compiled in, keeps the C functions' names and hides every other
symbol, has llvmlite emit it as an object file and the C compiler Python's extensions are
built with link it into a shared library.  A solve loads that with ``ctypes`` in a millisecond
and hands it the addresses of its arrays (``array.array``).  The library's calls into numba's
runtime, made only to raise an exception, which the kernels never do (numba checks no bounds,
and the one divisor, the board's width, is never zero), are linked to stubs that abort.

The library goes into the cache folder (:func:`~puzzlesat.core.cache.cache_dir`, ``kernels/``)
under a name carrying a key: a hash of the sources compiled into it (and of this module, the
recipe), of the Python, numpy, numba and llvmlite versions.  A library built from other sources or for
other versions is never loaded (it is not even looked at): the solve then compiles with
numba's JIT as before.  Same functions, same compiler: same answers (the tests compare them).
Building needs a C compiler; solving does not.

Beside the library goes its digest (``NAME.so.digest``: BLAKE2b of its bytes), checked
before ``dlopen``, as SQLite checks what it reads back: a library cut short, with flipped
bits or put there by something else would crash the process (SIGBUS) or lack the kernels'
symbols.  Such a library is reported in one line and the JIT serves.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

try:  # CPython's own BLAKE2: a solve computes the key, and hashlib would load OpenSSL first (~3 ms)
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

from puzzlesat.core import PuzzlesatError, progress
from puzzlesat.core.cache import cache_dir

SUFFIX = ".so"
DIGEST = ".digest"  # beside the library: its BLAKE2b in hex
ENTRY = "puzzlesat_{set}_{name}"  # the C name of the function ``name`` of a kernel set
RUNTIME = ("NRT_", "numba_")  # the prefixes of numba's runtime functions, stubbed (module docstring)
# a library of other sources or versions that a solve loaded within these days is kept by a
# build: the cache folder is shared by every checkout and environment of the user's (a CI
# clone's build must not take away a working tree's library); a load touches its digest
KEEP_DAYS = 30


@dataclass(frozen=True)
class KernelSet:
    """The kernels of one search that are built together into one library.

    Attributes:
        name: the set's name (``eternity``), in file names and on the command line.
        abi: the module that declares the kernels as C functions (``wrappers()``, a dict of
            numba ``cfunc`` callbacks by name) and calls them: ``Built(library)`` for a
            loaded library, ``Jit()`` for numba's JIT, both with the same methods.
        sources: every module whose source is compiled into them (the key hashes them).
    """

    name: str
    abi: str
    sources: tuple[str, ...]


KERNEL_SETS = {
    "eternity": KernelSet(
        "eternity",
        "puzzlesat.native.eternity.abi",
        (
            "puzzlesat.native.eternity.abi",
            "puzzlesat.native.eternity.kernel",
            "puzzlesat.native.eternity.count_kernel",
            "puzzlesat.native.eternity.arrays",
            "puzzlesat.core.kernel_status",
        ),
    ),
}
# CPU seconds of a build with numba's cache cold (3.0 s measured; 1.3 s warm); a busy machine
# stretches the wall time (28 s at load 15 on 2 cores)
BUILD_SECONDS = 3

_loaded: dict[str, Any] = {}


def kernel_set(name: str) -> KernelSet:
    """The set called ``name``; PuzzlesatError naming the sets for another name."""
    if name not in KERNEL_SETS:
        raise PuzzlesatError(f"no kernels called {name!r}; expected one of: {', '.join(KERNEL_SETS)}")
    return KERNEL_SETS[name]


def _source(module: str) -> bytes:
    """The source of a module, found without importing it (its package is imported)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise PuzzlesatError(f"the source of {module} is not found")
    return Path(spec.origin).read_bytes()


def version_file(package: str, name: str) -> str:
    """A package's version file as installed, read without importing the package ("" if none)."""
    spec = importlib.util.find_spec(package)
    folders = spec.submodule_search_locations if spec is not None else None
    try:
        return (Path(next(iter(folders or []))) / name).read_text()
    except (OSError, StopIteration):
        return ""


def versions() -> dict[str, str]:
    """What a built library depends on besides its sources: Python (its ABI and platform), and the
    version files of numpy, numba and llvmlite (their git revisions too, when built from source)."""
    return {
        "python": sys.version,
        "abi": EXTENSION_SUFFIXES[0],
        "numpy": version_file("numpy", "version.py"),
        "numba": version_file("numba", "_version.py"),
        "llvmlite": version_file("llvmlite", "_version.py"),
    }


def key(kernels: KernelSet) -> str:
    """The key of a library built now from these sources for these versions (16 hex digits)."""
    digest = blake2b(repr(sorted(versions().items())).encode(), digest_size=8)
    for module in (__name__, *kernels.sources):
        digest.update(module.encode() + b"\0" + _source(module) + b"\0")
    return digest.hexdigest()


def folder() -> Path:
    """Where built kernels are kept: ``kernels/`` in the cache folder."""
    return cache_dir() / "kernels"


def path(kernels: KernelSet) -> Path:
    """The file of the library these sources and versions would load."""
    return folder() / f"{kernels.name}-{key(kernels)}{SUFFIX}"


def digest_of(data: bytes) -> str:
    """The digest a library's bytes are checked against (:data:`DIGEST`)."""
    return blake2b(data, digest_size=32).hexdigest()


def load(name: str) -> Any | None:
    """The built kernels of the set ``name`` for the sources and versions running now (its
    ``Built`` caller); None when there is no library, or it fails its digest or does not
    load (one line says so), once per process."""
    if name not in _loaded:
        kernels = kernel_set(name)
        file = path(kernels)
        _loaded[name] = None
        if file.is_file():
            _loaded[name] = _checked(kernels, file)
    return _loaded[name]


def _checked(kernels: KernelSet, file: Path) -> Any | None:
    """The library at ``file`` loaded, if its bytes match the digest beside it; else None."""
    import ctypes

    try:
        data = file.read_bytes()
        noted = Path(str(file) + DIGEST).read_text().strip()
    except OSError as exc:
        why = f"cannot read it or its digest ({exc.strerror or exc})"
    else:
        why = "its bytes do not match its digest"
        if noted == digest_of(data):
            try:
                built = importlib.import_module(kernels.abi).Built(ctypes.CDLL(_private_copy(file, data)))
            except (OSError, AttributeError) as exc:  # foreign, or without the kernels' symbols
                why = f"it does not load ({exc})"
            else:
                with contextlib.suppress(OSError):  # a read-only cache keeps every library
                    os.utime(str(file) + DIGEST)
                return built
    progress.line(f"c kernels {file} are damaged ({why}): numba's JIT serves; puzzlesat kernels build makes them anew")
    return None


def kernels(name: str) -> Any:
    """The kernels of the set ``name``: the built library when there is one, else numba's JIT."""
    return load(name) or importlib.import_module(kernel_set(name).abi).Jit()


@dataclass(frozen=True)
class KernelBuild:
    """One kernel set's state in the cache (``puzzlesat kernels list``).

    Attributes:
        name: the set.
        state: ``built`` (for these sources and versions), ``damaged`` (built, but its bytes
            fail its digest: never loaded), ``stale`` (only libraries built from
            other sources or versions, which are never loaded) or ``absent``.
        path: the library these sources and versions load.
        disk_mb: MB on disk of the set's libraries, stale ones included.
    """

    name: str
    state: str
    path: Path
    disk_mb: float


def statuses() -> list[KernelBuild]:
    """The state of every kernel set."""
    found = []
    for kernels in KERNEL_SETS.values():
        file = path(kernels)
        mine = sorted(folder().glob(f"{kernels.name}-*{SUFFIX}"))
        state = ("built" if _sealed(file) else "damaged") if file in mine else "stale" if mine else "absent"
        found.append(KernelBuild(kernels.name, state, file, round(sum(f.stat().st_size for f in mine) / 1e6, 3)))
    return found


def _private_copy(file: Path, data: bytes) -> str:
    """What ``dlopen`` opens: the bytes checked, in memory of this process's own where Linux
    allows (``memfd``), so that a file cut or rewritten meanwhile cannot reach the mapped code."""
    if not hasattr(os, "memfd_create"):
        return str(file)
    fd = os.memfd_create(file.name)
    os.write(fd, data)
    return f"/proc/self/fd/{fd}"  # left open: the library stays loaded for the process's life


def _sealed(file: Path) -> bool:
    """Whether a library's bytes match the digest beside it."""
    try:
        return Path(str(file) + DIGEST).read_text().strip() == digest_of(file.read_bytes())
    except OSError:
        return False


def compiler() -> list[str]:
    """The command of the C compiler Python's extensions are built with ([] when it is not found)."""
    import shlex
    import shutil
    import sysconfig

    command = shlex.split(sysconfig.get_config_var("CC") or "cc")
    return command if command and shutil.which(command[0]) else []


def compiler_works() -> bool:
    """True when the C compiler that links the kernels is there."""
    return bool(compiler())


def build(name: str) -> KernelBuild:
    """Compile the set ``name`` into the cache folder now (again, if built), removing its
    libraries of other sources or versions that no solve loaded for :data:`KEEP_DAYS` days.

    The library is written beside its final name and renamed, so a solve never loads half a file.

    Raises:
        PuzzlesatError: no C compiler, a compile that fails, or a cache folder that cannot be written.
    """
    kernels = kernel_set(name)
    if not compiler_works():
        raise PuzzlesatError("building kernels needs the C compiler Python's extensions are built with (gcc)")
    from puzzlesat.native.first_dispatch import without_blas_probe

    with without_blas_probe():
        functions = importlib.import_module(kernels.abi).wrappers()
    import tempfile

    target = path(kernels)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{name}-build-") as work:
            built = Path(work) / f"{name}{SUFFIX}"
            _link(_object_code(name, functions), Path(work), built)
            sealed = Path(work) / f"{name}{SUFFIX}{DIGEST}"
            sealed.write_text(digest_of(built.read_bytes()) + "\n")
            os.replace(built, target)
            os.replace(sealed, str(target) + DIGEST)
    except OSError as exc:
        raise PuzzlesatError(f"cannot write the kernels into {target.parent}: {exc}") from None
    remove_unused(target)
    _loaded.pop(name, None)
    (done,) = [k for k in statuses() if k.name == name]
    return done


def remove_unused(target: Path, now: float | None = None) -> None:
    """Remove the libraries of ``target``'s set, other than ``target``, that no solve has loaded
    for :data:`KEEP_DAYS` days (their digest's time; the library's own without one)."""
    import time

    name = target.name.split("-", 1)[0]
    oldest = (time.time() if now is None else now) - KEEP_DAYS * 86400
    for stale in target.parent.glob(f"{name}-*{SUFFIX}"):
        if stale == target:
            continue
        digest = Path(str(stale) + DIGEST)
        try:
            used = (digest if digest.exists() else stale).stat().st_mtime
        except OSError:
            continue
        if used < oldest:
            stale.unlink(missing_ok=True)
            digest.unlink(missing_ok=True)


def _object_code(name: str, functions: dict[str, Any]) -> tuple[bytes, list[str]]:
    """(the object code of the C functions, the numba runtime functions it calls): one LLVM
    module of them all, each under its C name and every other definition internal."""
    import llvmlite.binding as llvm

    names = {function.native_name: ENTRY.format(set=name, name=entry) for entry, function in functions.items()}
    linked = None
    for function in functions.values():
        module = llvm.parse_assembly(function.inspect_llvm())
        for symbol in (*module.functions, *module.global_variables):
            if symbol.is_declaration:
                continue
            if symbol.name in names:
                symbol.name = names[symbol.name]
            else:  # each callback carries its own copy of the kernels: kept apart
                symbol.linkage = "internal"
        if linked is None:
            linked = module
        else:
            linked.link_in(module)
    assert linked is not None
    linked.verify()
    runtime = sorted(f.name for f in linked.functions if f.is_declaration and f.name.startswith(RUNTIME))
    machine = llvm.Target.from_default_triple().create_target_machine(reloc="pic", codemodel="default", opt=3)
    return machine.emit_object(linked), runtime


def _link(code: tuple[bytes, list[str]], work: Path, output: Path) -> None:
    """Link the object code and stubs of the runtime functions it names into the library ``output``."""
    import shlex
    import subprocess

    objects, runtime = code
    (work / "kernels.o").write_bytes(objects)
    stubs = "".join(f"void {f}(void) {{ abort(); }}\n" for f in runtime)
    (work / "runtime.c").write_text("#include <stdlib.h>\n/* never called: module docstring */\n" + stubs)
    command = [*compiler(), "-shared", "-fPIC", "-o", str(output), str(work / "kernels.o"), str(work / "runtime.c")]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise PuzzlesatError(f"linking the kernels failed ({shlex.join(command[:2])}): {last}")
