"""Shared test fixtures: paths to the project's instances and to the public ones.

The tests' own helper modules (``clirun``, ``portfolio_fixtures``) are importable from every
test: with ``--import-mode=importlib`` pytest does not put this folder on ``sys.path`` itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
SHARED_INSTANCES = ROOT.parent / "shared" / "instances"


@pytest.fixture(autouse=True)
def one_worker_unless_told(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library call that gives no ``workers`` runs in one process here, as ``workers=1``: the
    tests' node counts stay reproducible and they start no process they do not ask for.  The
    tests marked ``every_core`` (tests/test_workers_default.py) check the default itself."""
    if request.node.get_closest_marker("every_core") is None:
        from puzzlesat.core import arguments

        monkeypatch.setattr(arguments, "default_workers", lambda parallel: 1)


@pytest.fixture
def shared_instances() -> Path:
    """The public instance collection beside the repository; skips the test when absent."""
    if not SHARED_INSTANCES.is_dir():
        pytest.skip("../shared/instances is not present")
    return SHARED_INSTANCES


@pytest.fixture(scope="module")
def private_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tables a module's tests build go to a private folder (``$PUZZLESAT_CACHE``), not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PUZZLESAT_CACHE", str(tmp_path_factory.mktemp("table-cache")))
        yield
