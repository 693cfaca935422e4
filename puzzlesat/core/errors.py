"""The errors a user can cause: each is reported as one line, never a traceback."""

from __future__ import annotations


class PuzzlesatError(Exception):
    """Base class of every error a user can cause."""


class ParseError(PuzzlesatError, ValueError):
    """Input text that does not follow the format; the message names file and line."""


class InvalidInstanceError(PuzzlesatError):
    """An instance that parses but breaks the puzzle's rules (e.g. a colour out of range)."""


class InvalidSolutionError(PuzzlesatError):
    """A solution that the verifier rejects."""


class BackendUnavailable(PuzzlesatError):
    """A solver backend that is not installed or not known."""


class PluginError(PuzzlesatError):
    """A plugin that cannot be used: it fails to import, takes a name already taken, or
    cannot be sent to a child process; the message is one line naming it."""


class UnsupportedRequest(PuzzlesatError, ValueError):
    """A request a strategy does not serve (a mode such as ``count`` or ``score`` it does not
    declare): refused, never answered as another question."""
