"""Rubik's instance (a position and the form it was given in) and solution (solving maneuvers)."""

from __future__ import annotations

from dataclasses import dataclass

from puzzlesat.core import load_target
from puzzlesat.domains.rubik.cube import Cube, Maneuver
from puzzlesat.domains.rubik.maneuvers import maneuver_length


@dataclass(frozen=True)
class Instance:
    """A position to solve and the form it was given in.

    Attributes:
        cube: the position.
        form: ``maneuver``, ``position``, ``singmaster`` or ``facelets``.
        maneuver: the scramble, when the position was given as a maneuver.
    """

    cube: Cube
    form: str = "singmaster"
    maneuver: Maneuver | None = None

    def _repr_svg_(self) -> str:
        """The picture a notebook shows (:mod:`puzzlesat.domains.rubik.svg`)."""
        return load_target("puzzlesat.domains.rubik:PUZZLE").draw_svg(self)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Solution:
    """Solving maneuvers (the first is the answer; more with ``--all``/``--extra``).

    Attributes:
        maneuvers: each one solves the position.
        metric: ``htm`` or ``qtm``, the metric lengths are counted in.
        claimed: from a parsed answer, each maneuver's length annotation ``(Nf)``/``(Nq)``
            as (length, metric), or None where the line has none; empty when not parsed.
    """

    maneuvers: tuple[Maneuver, ...]
    metric: str = "htm"
    claimed: tuple[tuple[int, str] | None, ...] = ()

    @property
    def length(self) -> int:
        """Length of the first maneuver in the solution's metric."""
        return maneuver_length(self.maneuvers[0], self.metric)
