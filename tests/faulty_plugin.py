"""A real plugin that makes every mistake a plugin can make, one at a time, on request.

It declares a puzzle, ``faulty`` (an instance is a number ``n``, a solution its integer square
root), with every hook the contract names, and strategies for it and for eternity.  Each hook
misbehaves as ``$FAULTY`` says, a comma list of ``HOOK:HOW`` (``parse:raise``, ``solve:exit``,
``format:print``): ``raise`` a ValueError, ``exit`` with ``sys.exit(4)``, ``print`` onto stdout;
child processes inherit the variable.  The command line finds it through
``PUZZLESAT_PLUGINS=faulty_plugin:PUZZLE,faulty_plugin:STRATEGIES`` (this folder on ``PYTHONPATH``).
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from typing import Any

from puzzlesat import Option, ParseError, Puzzle, Result, Status, Strategy


@dataclass(frozen=True)
class Number:
    """The instance."""

    n: int


@dataclass(frozen=True)
class Root:
    """The solution."""

    value: int


def act(hook: str) -> None:
    """Misbehave as ``$FAULTY`` asks of this hook."""
    asked = {item.strip() for item in os.environ.get("FAULTY", "").split(",")}
    if f"{hook}:print" in asked:
        print(f"{hook} chatters on stdout")
    if f"{hook}:exit" in asked:
        sys.exit(4)
    if f"{hook}:raise" in asked:
        raise ValueError(f"{hook} broke")


act("import")


def parse(text: str, source: str) -> Number:
    act("parse")
    try:
        return Number(int(text.strip()))
    except ValueError:
        raise ParseError(f"{source}:1: expected a number") from None


def format_answer(instance: Number, solution: Root | None) -> str:
    act("format")
    return "SOLUTION NOT FOUND\n" if solution is None else f"{solution.value}\n"


def parse_solution(instance: Number, text: str, source: str) -> Root | None:
    act("parse_solution")
    return None if text.strip() == "SOLUTION NOT FOUND" else Root(int(text.strip()))


def verify(instance: Number, solution: Root) -> list[str]:
    act("verify")
    return [] if solution.value**2 == instance.n else [f"{solution.value} squared is not {instance.n}"]


def write_instance(instance: Number) -> str:
    act("write_instance")
    return f"{instance.n}\n"


def generate(options: dict[str, Any], seed: int) -> Number:
    act("generator")
    return Number((seed + 2) ** 2)


def draw(instance: Number, solution: Root | None) -> str:
    act("draw")
    return f"<svg><text>{instance.n}</text></svg>"


def solve(instance: Number, limits: Any, variant: str | None) -> Result:
    act("solve")
    root = math.isqrt(instance.n)
    if root * root != instance.n:
        return Result(Status.INFEASIBLE, message="not a square (an exhausted search, says the plugin)")
    return Result(Status.SOLVED, Root(root))


def wrong_type(instance: Any, limits: Any, variant: str | None) -> Result:
    return Result(Status.SOLVED, 42)


def encode(instance: Number, options: dict[str, Any]) -> Any:
    act("encoder")
    raise NotImplementedError("only the encoder's failure is tested here")


def build_model(instance: Number, options: dict[str, Any]) -> Any:
    act("model")
    raise NotImplementedError("only the model builder's failure is tested here")


EXACT = Strategy(
    "exact", "faulty_plugin:solve", "isqrt", encoder="faulty_plugin:encode", model="faulty_plugin:build_model"
)
PUZZLE = Puzzle(
    name="faulty",
    parse=parse,
    format=format_answer,
    parse_solution=parse_solution,
    verify=verify,
    generator="faulty_plugin:generate",
    write_instance=write_instance,
    strategies=(
        EXACT,
        Strategy("wrongtype", "faulty_plugin:wrong_type", "a solution of the wrong type"),
        Strategy("gone", "faulty_plugin_nowhere:solve", "a target that cannot be imported"),
    ),
    draw="faulty_plugin:draw",
    generator_options=(Option("size", int, None, "ignored"),),
    solve_options=(Option("unique", bool, False, "a mode no strategy here serves"),),
    modes=("unique",),
)
STRATEGIES = [
    Strategy("faulty-wrongtype", "faulty_plugin:wrong_type", "a solution of the wrong type", puzzle="eternity"),
    Strategy("faulty-orphan", "faulty_plugin:solve", "for a puzzle nobody has", puzzle="nosuchpuzzle"),
]
