"""Reading user text at the edge: files as UTF-8 with a size cap, integers in ASCII digits.

Every parser goes through these, so a hostile file (too large, not UTF-8, full-width digits,
a 5000-digit number) ends in one ParseError naming the file and line, never a traceback or
an allocation the machine cannot make.
"""

from __future__ import annotations

import json
import os
import re
from itertools import accumulate
from typing import Any

from puzzlesat.core.errors import ParseError, PuzzlesatError
from puzzlesat.core.files import special

# The largest public instance file is under 5 kB and a rubik --all answer can reach a few
# MB; anything past 16 MB is not an instance.
MAX_FILE_BYTES = 16 * 1024 * 1024

_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
# what any file this package writes as JSON holds at most: a record's stats sit 3 deep
MAX_JSON_DEPTH = 16
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def read_text(path: str | os.PathLike[str], source: str, limit: int = MAX_FILE_BYTES) -> str:
    """The file's text, read as UTF-8, refused when longer than ``limit`` bytes.

    Raises:
        OSError: the file cannot be opened or read.
        ParseError: no regular file (a FIFO, a device: :func:`~puzzlesat.core.files.special`;
            ``-`` reads stdin where a verb takes it), too large, or not UTF-8 (naming the
            line of the first bad byte).
    """
    what = special(path)
    if what is not None:
        raise ParseError(f"{source}: cannot read: is {what}, not a regular file")
    with open(path, "rb") as fp:
        return decode_text(fp.read(limit + 1), source, limit)


def read_named(path: str) -> str:
    """:func:`read_text` of a file the user named, a failed read said in one line naming it.

    Raises:
        PuzzlesatError: the file cannot be opened or read; or :func:`read_text`'s ParseError.
    """
    try:
        return read_text(path, path)
    except OSError as exc:
        raise PuzzlesatError(f"{path}: cannot read: {exc.strerror or exc}") from None


def decode_text(data: bytes, source: str, limit: int = MAX_FILE_BYTES) -> str:
    """Bytes read from a file or a stream (at most ``limit + 1`` of them) as UTF-8 text.

    Raises:
        ParseError: more than ``limit`` bytes, or not UTF-8 (naming the line of the first bad byte).
    """
    if len(data) > limit:
        raise ParseError(f"{source}: file larger than the limit of {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ParseError(
            f"{source}:{lineno}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"
        ) from None


def check_length(text: str, source: str, limit: int) -> None:
    """Refuse a text longer than ``limit`` characters before any of it is split or converted.

    Raises:
        ParseError: naming the line on which the limit is passed.
    """
    if len(text) > limit:
        lineno = text.count("\n", 0, limit) + 1
        raise ParseError(f"{source}:{lineno}: input longer than the limit of {limit} characters")


def is_int(token: str) -> bool:
    """True when the token is an integer of at most 18 ASCII digits, with an optional sign.

    Python's ``int`` also reads other digits (``'３'``) and refuses more than 4300 digits
    with a ValueError; no count or coordinate here needs more than an int64 holds.

    >>> is_int("-12"), is_int("x"), is_int("３"), is_int("1" * 19)
    (True, False, False, False)
    """
    return _INTEGER.fullmatch(token) is not None


def content_lines(text: str) -> list[tuple[int, str]]:
    """The lines that hold something once ``#`` comments are cut: (1-based line number, stripped text)."""
    lines = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if line:
            lines.append((lineno, line))
    return lines


def int_tokens(text: str, source: str) -> list[tuple[int, list[int]]]:
    """Split text into lines of integers, keeping 1-based line numbers; blank lines dropped.

    Raises:
        ParseError: a token that is not an integer (see :func:`is_int`), naming ``source:line``.
    """
    rows: list[tuple[int, list[int]]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        bad = next((p for p in parts if not is_int(p)), None)
        if bad is not None:
            raise ParseError(f"{source}:{lineno}: expected integers, got {bad!r}")
        rows.append((lineno, [int(p) for p in parts]))
    return rows


def load_json(text: str, source: str, *, depth: int = MAX_JSON_DEPTH, limit: int = MAX_FILE_BYTES) -> Any:
    """JSON text as data, bounded before any of it is built: at most ``limit`` characters,
    ``depth`` levels of nesting, integers of 18 digits (:func:`is_int`), finite floats of
    at most 40 characters, and no ``NaN`` or ``Infinity``.

    >>> load_json('{"runs": [1, 2.5]}', "x.json")
    {'runs': [1, 2.5]}
    >>> load_json("[" * 99 + "]" * 99, "x.json")
    Traceback (most recent call last):
    puzzlesat.core.errors.ParseError: x.json: JSON nested deeper than 16 levels

    Raises:
        ParseError: naming ``source`` (and the line) and what is wrong.
    """
    check_length(text, source, limit)
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0) > depth:
        raise ParseError(f"{source}: JSON nested deeper than {depth} levels")

    def integer(token: str) -> int:
        if not is_int(token):
            raise ParseError(f"{source}: a number of more than 18 digits in JSON: {token[:20]}...")
        return int(token)

    def real(token: str) -> float:
        value = float(token) if len(token) <= 40 else float("inf")
        if value in (float("inf"), float("-inf")):
            raise ParseError(f"{source}: a number out of range in JSON: {token[:20]}")
        return value

    def constant(token: str) -> Any:
        raise ParseError(f"{source}: {token} is no number in JSON")

    try:
        return json.loads(text, parse_int=integer, parse_float=real, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:  # a nesting the count above missed cannot get past this either
        raise ParseError(f"{source}: JSON nested deeper than {depth} levels") from None
