"""Eternity's notes on a Result: the score line a ``score`` run prints."""

from __future__ import annotations

from typing import Any

from puzzlesat.core import Result
from puzzlesat.domains.eternity.instance import Instance
from puzzlesat.domains.eternity.verify import max_score, score


def notes(instance: Instance, result: Result, options: dict[str, Any]) -> list[str]:
    """With ``score``, the line ``c score N/MAX`` (counted again here) to show after an answer."""
    if options.get("score"):
        return [f"c score {score(instance, result.solution)}/{max_score(instance)}"]
    return []
