"""Declared options: what a strategy, a puzzle's solve flags or a generator accept.

Every option a user can set (``-O KEY=VALUE`` and the puzzle's own flags on the command line,
``**options`` in Python) is declared once with its type, default and one line of help, so a
misspelt key or a value of the wrong type is an error naming the valid keys, never silently
ignored, and ``puzzlesat list -v`` can show them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from puzzlesat.core.errors import ArgumentError
from puzzlesat.core.text import is_int

_FLOAT = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"  # compiled on first use (re's cache)
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class OptionError(ArgumentError):
    """An option that is not declared, or a value that its declaration does not accept (a ValueError)."""


class Option(NamedTuple):
    """One declared option (a named tuple: many are declared at import, and a tuple is cheap to make).

    Attributes:
        name: the key, in Python spelling (``no_proofs``); the command-line flag uses dashes.
        type: ``bool``, ``int``, ``float`` or ``str``.
        default: the value when not given (None: the strategy decides, e.g. from the instance).
        help: one line for ``--help`` and ``puzzlesat list -v``.
        choices: the accepted values, for a closed set of strings; empty = any.
        low: the smallest accepted number, for ``int`` and ``float``; None = no bound.
        high: the largest accepted number (e.g. a size that would exhaust the machine);
            None = no bound.
        writes: the value names a file the command writes, checked before any work.
        pattern: for a ``str``, a regular expression the whole text must match (a list of
            numbers, say); empty = any.
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    writes: bool = False
    pattern: str = ""

    @property
    def flag(self) -> str:
        """The command-line spelling: ``--no-proofs``."""
        return "--" + self.name.replace("_", "-")

    def convert(self, value: Any) -> Any:
        """The value in the declared type; text is read strictly (ASCII digits only).

        >>> Option("amo", bool, True, "").convert("0"), Option("n", int, 1, "").convert("12")
        (False, 12)

        Raises:
            OptionError: a value the declaration does not accept.
        """
        if value is None and self.default is None:
            return None
        converted = self._typed(value)
        if self.pattern and not re.fullmatch(self.pattern, converted):
            raise OptionError(f"option {self.name}={value!r}: expected text like {self.default!r}")
        if self.choices and converted not in self.choices:
            raise OptionError(f"option {self.name}={_shown(value)}: expected one of {', '.join(self.choices)}")
        if self.low is not None and converted < self.low:
            raise OptionError(f"option {self.name}={_shown(value)}: expected at least {_number(self.low)}")
        if self.high is not None and converted > self.high:
            raise OptionError(f"option {self.name}={_shown(value)}: expected at most {_number(self.high)}")
        return converted

    def _typed(self, value: Any) -> Any:
        kind = self.type.__name__
        if self.type is bool:
            if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
                return bool(value)
            if isinstance(value, str) and value.lower() in _TRUE + _FALSE:
                return value.lower() in _TRUE
        elif self.type is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, str) and is_int(value):
                return int(value)
        elif self.type is float:
            if isinstance(value, int | float) and not isinstance(value, bool) and _finite(value):
                return float(value)
            if isinstance(value, str) and re.fullmatch(_FLOAT, value) and math.isfinite(float(value)):
                return float(value)
        elif isinstance(value, str) and value:
            return value
        expected = {"str": "a non-empty str", "float": "a finite float"}.get(kind, kind)
        raise OptionError(f"option {self.name}={_shown(value)}: expected {expected}")


def resolve(
    declared: Iterable[Option], given: Mapping[str, Any], what: str, listed: Iterable[str] | None = None
) -> dict[str, Any]:
    """Every declared option's value: the given one, converted, or the default.

    Args:
        declared: the options that are valid here.
        given: the values the user set (text from the command line, or Python values).
        what: names the receiver in messages, e.g. ``"eternity cnf-heule"``.
        listed: the keys the message of an unknown one lists; default all declared (a
            strategy's run lists only what it serves, not the modes it would refuse).

    Raises:
        OptionError: an unknown key (the message lists the valid ones) or a bad value.
    """
    by_name = {opt.name: opt for opt in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        valid = ", ".join(sorted(by_name if listed is None else set(listed))) or "none"
        raise OptionError(f"unknown option {unknown[0]!r} for {what}; valid options: {valid}")
    return {name: opt.convert(given[name]) if name in given else opt.default for name, opt in by_name.items()}


def parse_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``KEY=VALUE`` texts (``-O``) as a dict of texts, converted later by :func:`resolve`.

    >>> parse_pairs(["amo=0", "order=sym2"])
    {'amo': '0', 'order': 'sym2'}
    """
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"option {pair!r}: expected KEY=VALUE")
        options[key.strip().replace("-", "_")] = value
    return options


def defaults(declared: Iterable[Option]) -> dict[str, Any]:
    """The declared defaults by name: what a formulation uses when an option is not given."""
    return {opt.name: opt.default for opt in declared}


def _shown(value: Any) -> str:
    """A value as a message quotes it: its ``repr``, cut after 60 characters; a huge int by
    its size (``repr`` refuses past 4300 digits).

    >>> _shown(10**400), _shown("x" * 99)[-5:]
    ('an int of 401 digits', 'xx...')
    """
    if isinstance(value, int) and abs(value) >= 10**60:
        return f"an int of {len(str(abs(value))) if value.bit_length() < 14000 else 'over 4000'} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _finite(value: float) -> bool:
    """Whether a number is finite as a float (``10**400`` is not: it has no float)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _number(bound: float) -> str:
    """A bound as people write it: ``2147483647``, ``0.01``."""
    return str(int(bound)) if float(bound).is_integer() else f"{bound:g}"
