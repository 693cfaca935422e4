"""The README's Python examples run as doctests, in a scratch folder that sees `instances/`."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "instances").symlink_to(ROOT / "instances")
    monkeypatch.chdir(tmp_path)
    failures, tried = doctest.testfile(
        str(ROOT / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS, report=True
    )
    assert tried >= 30, "the README's Python section lost its examples"
    assert failures == 0, "a README example failed: see the doctest report above"
