"""Kernels compiled ahead of time: built once by ``puzzlesat kernels build``, loaded without numba.

A warm solve of a small board spends most of its time importing numba and loading its cache
(about 0.4 s of CPU) for a search of hundredths of a second.  numba's ahead-of-time compiler
(``numba.pycc``) compiles the same kernel functions, with the signatures the JIT compiles
for, into an ordinary extension module; a solve loads it in a millisecond, with numpy alone.

The module goes into the cache folder (:func:`~puzzlesat.core.cache.cache_dir`, ``kernels/``)
under a name carrying a key: a hash of the sources compiled into it (and of this module, the
recipe), of the Python, numpy and numba versions.  A module built from other sources or for
other versions is never loaded (it is not even looked at): the solve then compiles with
numba's JIT as before.  Same functions, same compiler: same answers (the tests compare them).
Building needs a C compiler and setuptools; solving needs neither.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import numpy as np

try:  # CPython's own BLAKE2: a solve computes the key, and hashlib would load OpenSSL first (~3 ms)
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

from puzzlesat.core import PuzzlesatError
from puzzlesat.core.cache import cache_dir


@dataclass(frozen=True)
class KernelSet:
    """The kernels of one search that are built together into one extension module.

    Attributes:
        name: the set's name (``eternity``), in file names and on the command line.
        module: the numba module holding the kernels (``@njit`` functions).
        functions: the kernels compiled (what they call is compiled into them).
        sources: every module whose source is compiled into them (the key hashes them).
        warm_up: compiles every kernel of ``functions`` with the JIT (or loads it from numba's
            cache) with the argument types the searches pass: the build exports those signatures.
    """

    name: str
    module: str
    functions: tuple[str, ...]
    sources: tuple[str, ...]
    warm_up: Callable[[ModuleType], None]


KERNEL_SETS = {
    "eternity": KernelSet(
        "eternity",
        "puzzlesat.native.eternity_kernel",
        ("search", "replay"),
        ("puzzlesat.native.eternity_kernel", "puzzlesat.native.eternity_arrays", "puzzlesat.core.kernel_status"),
        lambda module: module.warm_up(replay_too=True),
    ),
}
BUILD_SECONDS = 10  # about what a build takes on 2 cores with numba's cache warm (the JIT's own compile adds to it)

_loaded: dict[str, ModuleType | None] = {}


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


def numba_version() -> str:
    """numba's version file as installed (its version and git revision), read without importing numba."""
    spec = importlib.util.find_spec("numba")
    folders = spec.submodule_search_locations if spec is not None else None
    try:
        return (Path(next(iter(folders or []))) / "_version.py").read_text()
    except (OSError, StopIteration):
        return ""


def versions() -> dict[str, str]:
    """What a built module depends on besides its sources: Python (and its ABI), numpy, numba."""
    found = re.search(r'"version": "([^"]+)"', numba_version())
    return {
        "python": sys.version,
        "abi": EXTENSION_SUFFIXES[0],
        "numpy": np.__version__,
        "numba": found.group(1) if found else "",
    }


def key(kernels: KernelSet) -> str:
    """The key of a module built now from these sources for these versions (16 hex digits)."""
    digest = blake2b(repr(sorted(versions().items())).encode(), digest_size=8)
    digest.update(numba_version().encode())  # the git revision too, for a numba built from source
    for module in (__name__, *kernels.sources):
        digest.update(module.encode() + b"\0" + _source(module) + b"\0")
    return digest.hexdigest()


def folder() -> Path:
    """Where built kernels are kept: ``kernels/`` in the cache folder."""
    return cache_dir() / "kernels"


def path(kernels: KernelSet) -> Path:
    """The file of the module these sources and versions would load."""
    return folder() / f"{kernels.name}-{key(kernels)}{EXTENSION_SUFFIXES[0]}"


def _extension_name(kernels: KernelSet) -> str:
    """The module's own name (its init function's); the same whatever the file is called."""
    return f"puzzlesat_{kernels.name}_kernels"


def load(name: str) -> ModuleType | None:
    """The built module of the set ``name`` for the sources and versions running now; None
    when there is none (or it does not load), once per process."""
    if name not in _loaded:
        kernels = kernel_set(name)
        file = path(kernels)
        _loaded[name] = _import(_extension_name(kernels), file) if file.is_file() else None
    return _loaded[name]


def _import(module_name: str, file: Path) -> ModuleType | None:
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        return None
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError):  # cut short or foreign: the JIT serves as before
        return None
    return module


def kernels(name: str) -> ModuleType:
    """The kernels of the set ``name``: the built module when there is one, else numba's (JIT)."""
    return load(name) or importlib.import_module(kernel_set(name).module)


@dataclass(frozen=True)
class KernelBuild:
    """One kernel set's state in the cache (``puzzlesat kernels list``).

    Attributes:
        name: the set.
        state: ``built`` (for these sources and versions), ``stale`` (only modules built from
            other sources or versions, which are never loaded) or ``absent``.
        path: the module these sources and versions load.
        disk_mb: MB on disk of the set's modules, stale ones included.
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
        mine = sorted(folder().glob(f"{kernels.name}-*{EXTENSION_SUFFIXES[0]}"))
        state = "built" if file in mine else "stale" if mine else "absent"
        found.append(KernelBuild(kernels.name, state, file, round(sum(f.stat().st_size for f in mine) / 1e6, 1)))
    return found


def compiler_works() -> bool:
    """True when numba's ahead-of-time compiler is there and finds the compilers it builds with."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pycc is "pending deprecation" since numba 0.57
            from numba.pycc.platform import external_compiler_works
    except ImportError:  # no setuptools (pycc's distutils), or a numba without pycc
        return False
    return bool(external_compiler_works())


def build(name: str) -> KernelBuild:
    """Compile the set ``name`` into the cache folder now (again, if built), removing its stale modules.

    The kernels are first compiled by the JIT (or loaded from numba's cache) for the argument
    types the searches pass; each is then exported with that signature.  The module is
    written beside its final name and renamed, so a solve never loads half a file.

    Raises:
        PuzzlesatError: no C compiler or setuptools, a compile that fails, or a cache folder
            that cannot be written.
    """
    kernels = kernel_set(name)
    from puzzlesat.native.first_dispatch import without_blas_probe

    if not compiler_works():
        raise PuzzlesatError(
            "building kernels needs setuptools and the C and C++ compilers Python's extensions are built with (gcc)"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc is "pending deprecation" since numba 0.57
        from numba.pycc import CC
    module = importlib.import_module(kernels.module)
    with without_blas_probe():
        kernels.warm_up(module)
    import tempfile

    target = path(kernels)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{name}-build-") as work:
            cc = CC(_extension_name(kernels))
            cc.output_dir = work
            for function in kernels.functions:
                dispatcher = getattr(module, function)
                if len(dispatcher.nopython_signatures) != 1:  # the warm-up's, and no other
                    raise PuzzlesatError(
                        f"{kernels.module}.{function} was compiled for several argument types "
                        "in this process: build the kernels in a fresh one (puzzlesat kernels build)"
                    )
                cc.export(function, dispatcher.nopython_signatures[0])(dispatcher.py_func)
            try:
                cc.compile()
            except Exception as exc:  # the compiler's or the linker's (distutils' CompileError, LinkError)
                raise PuzzlesatError(f"compiling the {name} kernels failed: {exc}") from exc
            (built,) = Path(work).glob(f"*{EXTENSION_SUFFIXES[0]}")
            os.replace(built, target)
    except OSError as exc:
        raise PuzzlesatError(f"cannot write the kernels into {target.parent}: {exc}") from None
    for stale in target.parent.glob(f"{name}-*{EXTENSION_SUFFIXES[0]}"):
        if stale != target:
            stale.unlink(missing_ok=True)
    _loaded.pop(name, None)
    (done,) = [k for k in statuses() if k.name == name]
    return done
