"""Rubik's verifier: every maneuver of an answer solves the position, as long as it says."""

from __future__ import annotations

from puzzlesat.domains.rubik.instance import Instance, Solution
from puzzlesat.domains.rubik.maneuvers import METRICS, format_maneuver, maneuver_length


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Apply every maneuver to the position; each must leave the cube solved.

    >>> from puzzlesat.domains.rubik import parse, parse_maneuver
    >>> verify(parse("R U"), Solution((parse_maneuver("U' R'"),)))
    []
    """
    problems = []
    if not solution.maneuvers:
        return ["no maneuver given"]
    if solution.metric not in METRICS:
        problems.append(f"unknown metric {solution.metric!r}")
    for k, man in enumerate(solution.maneuvers):
        if not instance.cube.apply(man).is_solved:
            problems.append(f"maneuver {k + 1} ({format_maneuver(man) or 'empty'}) does not solve the cube")
    for k, (man, claim) in enumerate(zip(solution.maneuvers, solution.claimed, strict=False)):
        if claim is not None and claim[0] != maneuver_length(man, claim[1]):
            unit = "q" if claim[1] == "qtm" else "f"
            problems.append(
                f"maneuver {k + 1} is annotated ({claim[0]}{unit}) but is "
                f"{maneuver_length(man, claim[1])} moves long in {claim[1].upper()}"
            )
    if len(set(solution.maneuvers)) != len(solution.maneuvers):
        problems.append("the same maneuver is listed twice")
    return problems
