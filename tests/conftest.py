"""Shared test fixtures: paths to the project's instances and to the public ones."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_INSTANCES = ROOT.parent / "shared" / "instances"


@pytest.fixture
def shared_instances() -> Path:
    """The public instance collection beside the repository; skips the test when absent."""
    if not SHARED_INSTANCES.is_dir():
        pytest.skip("../shared/instances is not present")
    return SHARED_INSTANCES
