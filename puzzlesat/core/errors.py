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


class PluginError(PuzzlesatError):
    """A plugin that cannot be used: it fails to import, takes a name already taken, or
    cannot be sent to a child process; the message is one line naming it."""


class UnsupportedRequest(PuzzlesatError, ValueError):
    """A request a strategy does not serve (a mode such as ``count`` or ``score`` it does not
    declare): refused, never answered as another question."""
