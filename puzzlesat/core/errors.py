"""The errors a user can cause: each is reported as one line, never a traceback.

Those about an argument of a library function also subclass the builtin a Python caller
expects: :class:`ArgumentError` is a ValueError, :class:`ArgumentTypeError` a TypeError.
"""

from __future__ import annotations


class PuzzlesatError(Exception):
    """Base class of every error a user can cause."""


class ParseError(PuzzlesatError, ValueError):
    """Input text that does not follow the format; the message names file and line."""


class ArgumentError(PuzzlesatError, ValueError):
    """An argument (or a flag) with a value that is not accepted; the message names it."""


class ArgumentTypeError(PuzzlesatError, TypeError):
    """An argument of a type that is not accepted; the message names it and the type expected."""


class InvalidInstanceError(PuzzlesatError, ValueError):
    """An instance that parses but breaks the puzzle's rules (e.g. a colour out of range)."""


class InvalidSolutionError(PuzzlesatError, ValueError):
    """A solution that the verifier rejects."""


class BackendUnavailable(PuzzlesatError, ValueError):
    """A puzzle, strategy or solver backend that is not known or not installed (a ValueError:
    the name given means nothing here)."""
