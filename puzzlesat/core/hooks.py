"""A plugin's functions, called so that its mistakes stay contained.

The registry wraps every function a plugin hands over (a puzzle's ``parse``, ``format``,
``verify``, generator, ``draw``...; a strategy's solve function, encoder and model builder) in
a :class:`Hook`.  Whatever the function raises becomes a :class:`PluginError` naming the
plugin, the hook and the exception (one line on the command line, exit 2; a typed exception
in Python); a ``sys.exit`` inside it is such an error too; what it prints goes to stderr, never
onto the answer on stdout.  Errors the contract lets a plugin raise (a ``ParseError`` naming
source and line, any :class:`PuzzlesatError`) and Ctrl-C pass through unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from typing import Any

from puzzlesat.core.errors import PluginError, PuzzlesatError
from puzzlesat.core.interrupts import is_solver_interrupt


@contextlib.contextmanager
def contained(plugin: str, hook: str) -> Iterator[None]:
    """Run a plugin's code: its prints to stderr, its failures as one :class:`PluginError`.

    ``plugin`` names it as messages do (``plugin DIST``), ``hook`` the function (``parse``).
    """
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    except (PuzzlesatError, MemoryError):
        raise  # the contract's own errors; out of memory is the run's, reported as such
    except SystemExit as exc:
        raise PluginError(f"{plugin}: {hook} called sys.exit({exc.code!r})") from None
    except Exception as exc:
        if is_solver_interrupt(exc):
            raise
        raise PluginError(f"{plugin}: {hook} raised {type(exc).__name__}: {exc}") from None


class Hook:
    """One function of a plugin (or its ``module:function``, imported at the first call),
    called under :func:`contained`.

    It compares equal to another hook of the same plugin, hook name and function, pickles
    when the function does (a child process imports it by module and name), and shows the
    function's name, signature and annotations (``functools.update_wrapper``), which the
    library reads to check the objects handed to the plugin.
    """

    def __init__(self, plugin: str, hook: str, target: Any) -> None:
        self.plugin, self.hook, self.target = plugin, hook, target
        if callable(target):
            functools.update_wrapper(self, target)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with contained(self.plugin, self.hook):
            function = self.load()
            return function(*args, **kwargs)

    def load(self) -> Any:
        """The function itself (imported now for a ``module:function``)."""
        if not isinstance(self.target, str):
            return self.target
        import importlib

        module, _, attr = self.target.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except Exception as exc:  # noqa: BLE001 - one line naming the plugin and the hook
            raise PluginError(
                f"{self.plugin}: {self.hook} {self.target!r} cannot be imported: {type(exc).__name__}: {exc}"
            ) from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hook):
            return NotImplemented
        return (self.plugin, self.hook, self.target) == (other.plugin, other.hook, other.target)

    def __hash__(self) -> int:
        return hash((self.plugin, self.hook, self.target))

    def __repr__(self) -> str:
        return f"Hook({self.plugin!r}, {self.hook!r}, {self.target!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return Hook, (self.plugin, self.hook, self.target)


def wrap(plugin: str, hook: str, target: Any) -> Any:
    """``target`` as a :class:`Hook` of ``plugin`` (None stays None, a hook stays itself)."""
    if target is None or isinstance(target, Hook):
        return target
    return Hook(plugin, hook, target)


def unwrap(target: Any) -> Any:
    """The plugin's own function behind a hook (itself for anything else)."""
    return target.target if isinstance(target, Hook) else target
