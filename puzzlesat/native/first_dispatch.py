"""numba's first kernel call in a process, without the scipy import it does not need here.

The first call of any numba kernel, even one loaded from the cache, imports numba's whole
library of numpy implementations; one of them (``numba.np.arraymath``) imports
``scipy.linalg`` when scipy is installed, only to learn whether BLAS is there for ``np.cov``.
That import costs more than loading our kernels (about 0.15 s of a 0.6 s warm solve), and no
kernel of ours calls BLAS.  :func:`without_blas_probe` makes ``scipy.linalg`` unimportable
for that moment: numba then notes "no BLAS" for ``np.cov`` alone (its ``np.dot`` and
``np.linalg`` look for scipy again when they are compiled), and a later ``import
scipy.linalg`` works as usual.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType


class _SkipScipyLinalg(MetaPathFinder):
    """Refuses ``scipy.linalg`` and its submodules; every other import goes on as usual."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == "scipy.linalg" or fullname.startswith("scipy.linalg."):
            raise ImportError(f"{fullname} is not imported while numba loads its registries")
        return None


@contextmanager
def without_blas_probe() -> Iterator[None]:
    """Run a first kernel call (a warm-up) with ``scipy.linalg`` refused, when that saves anything."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        yield
        return
    finder = _SkipScipyLinalg()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
