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
