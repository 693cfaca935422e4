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
