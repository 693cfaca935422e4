"""Rubik's generator: a scramble of random turns, or a uniformly random position."""

from __future__ import annotations

import random
from typing import Any

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.rubik.cube import SOLVED, Cube, Maneuver, Move, parity
from puzzlesat.domains.rubik.instance import Instance


def random_cube(rng: random.Random) -> Cube:
    """A uniformly random reachable cube."""
    while True:
        cp = list(range(8))
        ep = list(range(12))
        rng.shuffle(cp)
        rng.shuffle(ep)
        if parity(tuple(cp)) == parity(tuple(ep)):
            break
    co = [rng.randrange(3) for _ in range(7)]
    co.append((-sum(co)) % 3)
    eo = [rng.randrange(2) for _ in range(11)]
    eo.append(sum(eo) % 2)
    return Cube(tuple(cp), tuple(co), tuple(ep), tuple(eo))


def random_maneuver(length: int, rng: random.Random) -> Maneuver:
    """A random maneuver without two turns of one face in a row."""
    moves: list[Move] = []
    while len(moves) < length:
        face = rng.randrange(6)
        if moves and moves[-1][0] == face:
            continue
        moves.append((face, rng.randint(1, 3)))
    return tuple(moves)


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A scramble of ``moves`` random turns (a maneuver), or a uniformly random position.

    Args:
        options: ``moves`` (scramble length, 0 for the solved cube; absent = a uniformly random
            position, written in Singmaster notation).
        seed: the random seed.
    """
    rng = random.Random(seed)
    moves = options.get("moves")
    if moves is not None and moves < 0:
        raise InvalidInstanceError(f"--moves {moves}: expected at least 0")
    if moves == 0:  # a scramble of no moves: the solved cube (an empty maneuver reads as no input)
        return Instance(SOLVED, "singmaster")
    if moves is not None:
        man = random_maneuver(moves, rng)
        return Instance(SOLVED.apply(man), "maneuver", man)
    return Instance(random_cube(rng), "singmaster")
