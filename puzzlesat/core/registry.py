"""Where puzzles and strategies come from: built in, found through entry points, or registered
by a script.

Built-in puzzles are the modules of :mod:`puzzlesat.domains` named in :data:`BUILTIN`, each
with a ``PUZZLE``.  An installed package adds a whole puzzle through the entry-point group
``puzzlesat.puzzles`` (the name is the puzzle's, the value ``module:attr`` of a Puzzle) and a
formulation for any puzzle through ``puzzlesat.strategies`` (the value ``module:attr`` of a
Strategy, or a sequence of them, each naming its ``puzzle``).  A script registers either with
:func:`register_puzzle` / :func:`register_strategy`.

Without installing anything, ``$PUZZLESAT_PLUGINS`` names plugins for the command line as a
comma-separated list of ``module:attr`` (a Puzzle, a Strategy or a sequence of them), the
modules found on ``sys.path``; child processes inherit it.

Plugins are read when used, never at start-up: a command on a built-in puzzle and strategy
does not even list the entry points.  A plugin that fails to import, reuses a name or declares
nonsense is left out and leaves one line in :func:`problems`; everything else keeps working.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple

from puzzlesat.core import types
from puzzlesat.core.errors import BackendUnavailable, PluginError
from puzzlesat.core.types import Puzzle, Strategy

BUILTIN = ("eternity", "masyu", "pegsol", "blacken", "rubik")
PUZZLES_GROUP = "puzzlesat.puzzles"
STRATEGIES_GROUP = "puzzlesat.strategies"
ENV_PLUGINS = "PUZZLESAT_PLUGINS"

_script_puzzles: dict[str, Puzzle] = {}
_script_strategies: dict[str, dict[str, Strategy]] = {}  # puzzle name -> method -> Strategy
_plugin_puzzles: dict[str, Puzzle] = {}  # entry points loaded so far
_plugin_strategies: list[tuple[Strategy, str, Any]] | None = None  # (strategy, origin, entry point)
_origins: dict[tuple[str, str], str] = {}  # (puzzle, method or "") -> "plugin NAME (DIST)" / "script"
_problems: dict[str, str] = {}  # one line per failed plugin, keyed by the plugin's label
_groups: set[str] | None = None
_named: list[Named] | None = None  # the plugins $PUZZLESAT_PLUGINS names, once imported


class Named(NamedTuple):
    """A plugin that ``$PUZZLESAT_PLUGINS`` names, shaped like an installed one's entry point
    (a NamedTuple: cheaper to define than a dataclass, and every command imports this module)."""

    group: str
    name: str
    value: str
    obj: Any
    dist: None = None

    def load(self) -> Any:
        """The object, imported already."""
        return self.obj


# the functions of a Puzzle that are the plugin's code, called through hooks.Hook
PUZZLE_HOOKS = (
    "parse",
    "format",
    "parse_solution",
    "verify",
    "generator",
    "write_instance",
    "notes",
    "draw",
    "amend",
    "check",
    "verify_run",
    "presolve",
    "write_argument",
    "check_argument",
)
STRATEGY_HOOKS = (("target", "solve"), ("encoder", "encoder"), ("model", "model builder"))


def contain_puzzle(puzzle: Puzzle, label: str) -> Puzzle:
    """The plugin's puzzle with each of its functions, and its strategies', in a :class:`hooks.Hook`
    naming ``label``: what they raise, print or exit with stays contained."""
    from puzzlesat.core import hooks  # only with a plugin: a built-in command never loads it

    wrapped = {name: hooks.wrap(label, name, getattr(puzzle, name)) for name in PUZZLE_HOOKS}
    return replace(puzzle, strategies=tuple(contain_strategy(s, label) for s in puzzle.strategies), **wrapped)


def contain_strategy(strategy: Strategy, label: str) -> Strategy:
    """The plugin's strategy with its solve function, encoder and model builder in hooks."""
    from puzzlesat.core import hooks

    wrapped = {field: hooks.wrap(label, hook, getattr(strategy, field)) for field, hook in STRATEGY_HOOKS}
    return replace(strategy, **wrapped)


def problems() -> list[str]:
    """One line per plugin left out so far (failed import, duplicate name, bad declaration, a
    strategy for a puzzle that does not exist)."""
    if _plugin_strategies:  # read already: a strategy no puzzle of that name will ever list
        names = set(puzzle_names())
        for strat, label, ep in _plugin_strategies:
            if strat.puzzle not in names:
                _problem(label, f"strategy {strat.name!r} is for puzzle {strat.puzzle!r}, which does not exist", ep)
    return list(_problems.values())


def _problem(label: str, what: str, ep: Any = None) -> str:
    """Record one line about a plugin (naming its entry point) and return it."""
    where = f" (entry point {ep.name} = {ep.value})" if ep is not None and not isinstance(ep, Named) else ""
    _problems[label + where] = f"{label}{where}: {what}"
    return _problems[label + where]


def _declared_groups() -> set[str]:
    """The ``[group]`` headers of every installed package's ``entry_points.txt``.

    A cheap scan of the folders on ``sys.path``: when no package declares a puzzlesat group,
    :mod:`importlib.metadata` (about 12 ms to import) is never imported.
    """
    global _groups
    if _groups is None:
        _groups = set()
        for folder in dict.fromkeys(p or "." for p in sys.path):
            try:
                entries = [e for e in os.scandir(folder) if e.name.endswith((".dist-info", ".egg-info"))]
            except OSError:
                continue
            for entry in entries:
                path = os.path.join(entry.path, "entry_points.txt")
                if not os.path.exists(path):  # most packages declare none: cheaper than a failed open
                    continue
                try:
                    with open(path, encoding="utf-8") as fh:
                        text = fh.read()
                except OSError:
                    continue
                _groups.update(line.strip()[1:-1].strip() for line in text.splitlines() if line.startswith("["))
    return _groups


def _entry_points(group: str) -> list[Any]:
    """The entry points of a group (installed packages', then those ``$PUZZLESAT_PLUGINS`` names)."""
    found: list[Any] = []
    if group in _declared_groups():
        from importlib.metadata import entry_points

        found = list(entry_points(group=group))
    return found + [ep for ep in _from_environment() if ep.group == group]


def _from_environment() -> list[Named]:
    """The plugins ``$PUZZLESAT_PLUGINS`` names, imported once; one that fails is a problem."""
    global _named
    if _named is None:
        _named = []
        for value in filter(None, (v.strip() for v in os.environ.get(ENV_PLUGINS, "").split(","))):
            label = f"plugin {value} (${ENV_PLUGINS})"
            module, colon, attr = value.partition(":")
            try:
                if not colon:
                    raise ValueError("expected module:attribute")
                obj = _imported(partial(types.load_target, value))
            except Exception as exc:  # noqa: BLE001 - one line, the others still load
                _problem(label, f"cannot be imported: {type(exc).__name__}: {exc}")
                continue
            if isinstance(obj, Puzzle):
                _named.append(Named(PUZZLES_GROUP, obj.name, value, obj))
            elif isinstance(obj, Strategy) or isinstance(obj, list | tuple) and obj:
                _named.append(Named(STRATEGIES_GROUP, value, value, obj))
            else:
                _problem(label, "is not a puzzlesat.Puzzle, Strategy or sequence of Strategies")
    return _named


def _imported(load: Callable[[], Any]) -> Any:
    """A plugin's import: what it prints goes to stderr, and its ``sys.exit`` is a failure to
    import like any other (one line naming it), never the end of puzzlesat."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return load()
    except SystemExit as exc:
        raise ImportError(f"the module called sys.exit({exc.code!r})") from None


def _label(ep: Any) -> str:
    """``plugin DIST`` (the package that declares the entry point), as messages name it."""
    if isinstance(ep, Named):
        return f"plugin {ep.value} (${ENV_PLUGINS})"
    dist = getattr(getattr(ep, "dist", None), "name", None)
    return f"plugin {dist or ep.value}"


def _puzzle_entry_points() -> dict[str, Any]:
    """Plugin puzzles by name, not yet imported; a second use of a name is a problem."""
    found: dict[str, Any] = {}
    for ep in _entry_points(PUZZLES_GROUP):
        if ep.name in BUILTIN or ep.name in found:
            _problem(_label(ep), f"puzzle name {ep.name!r} is taken; left out", ep)
            continue
        found[ep.name] = ep
    return found


def puzzle_names() -> list[str]:
    """Every puzzle's name: built in, installed plugins (not imported), registered by a script."""
    names = list(BUILTIN) + list(_puzzle_entry_points())
    return names + [n for n in _script_puzzles if n not in names]


def get_puzzle(name: str) -> Puzzle:
    """The Puzzle named ``name``, importing its module or plugin now.

    Raises:
        BackendUnavailable: no puzzle has that name.
        PluginError: the plugin that declares it cannot be loaded (one line naming it).
    """
    if name in BUILTIN:
        module = importlib.import_module(f"puzzlesat.domains.{name}")
        return module.PUZZLE  # type: ignore[no-any-return]
    if name in _script_puzzles:
        return _script_puzzles[name]
    if name in _plugin_puzzles:
        return _plugin_puzzles[name]
    ep = _puzzle_entry_points().get(name)
    if ep is None:
        raise BackendUnavailable(f"unknown puzzle {name!r}; expected one of: {', '.join(puzzle_names())}")
    label = _label(ep)
    try:
        puzzle = _imported(ep.load)
    except Exception as exc:  # noqa: BLE001 - a plugin's failure is one line, never a traceback
        raise PluginError(_problem(label, f"cannot be imported: {type(exc).__name__}: {exc}", ep)) from None
    if not isinstance(puzzle, Puzzle) or puzzle.name != name:
        raise PluginError(_problem(label, f"is not a puzzlesat.Puzzle named {name!r}", ep))
    try:
        puzzle.strategies  # noqa: B018 - the strategies it names by module:attr, imported now
    except PluginError as exc:
        raise PluginError(_problem(label, str(exc), ep)) from None
    _plugin_puzzles[name] = puzzle = contain_puzzle(puzzle, label)
    _origins[name, ""] = label
    return puzzle


def available_puzzles() -> list[Puzzle]:
    """Every puzzle that loads; a plugin that does not is left out (see :func:`problems`)."""
    found = []
    for name in puzzle_names():
        try:
            found.append(get_puzzle(name))
        except PuzzlesatErrors:
            continue
    return found


def _load_plugin_strategies() -> list[tuple[Strategy, str, Any]]:
    """Every strategy the ``puzzlesat.strategies`` entry points declare, imported once."""
    global _plugin_strategies
    if _plugin_strategies is None:
        _plugin_strategies = []
        for ep in _entry_points(STRATEGIES_GROUP):
            label = _label(ep)
            try:
                value = _imported(ep.load)
            except Exception as exc:  # noqa: BLE001 - one line, the others still load
                _problem(label, f"cannot be imported: {type(exc).__name__}: {exc}", ep)
                continue
            items = [value] if isinstance(value, Strategy) else value
            if not isinstance(items, Iterable) or not all(isinstance(s, Strategy) and s.puzzle for s in items):
                _problem(label, "is not a puzzlesat.Strategy (or a sequence of them) naming its puzzle", ep)
                continue
            _plugin_strategies += [(contain_strategy(s, label), label, ep) for s in items]
    return _plugin_strategies


def extra_strategies(puzzle: Puzzle) -> tuple[Strategy, ...]:
    """The strategies plugins and scripts add to ``puzzle``, beside its own.

    Reads the ``puzzlesat.strategies`` entry points the first time; a name the puzzle or an
    earlier plugin already uses is left out (see :func:`problems`).
    """
    taken = {s.name for s in puzzle.strategies}
    extra: list[Strategy] = []
    for strat, label, ep in _load_plugin_strategies():
        if strat.puzzle != puzzle.name:
            continue
        if strat.name in taken:
            _problem(label, f"strategy name {strat.name!r} is taken for {puzzle.name}; left out", ep)
            continue
        taken.add(strat.name)
        _origins[puzzle.name, strat.name] = label
        extra.append(strat)
    extra += [s for s in _script_strategies.get(puzzle.name, {}).values() if s.name not in taken]
    return tuple(extra)


def origin(puzzle: str, method: str = "") -> str | None:
    """Who added a strategy (or with ``method`` empty, a puzzle): ``plugin NAME (...)``,
    ``script``, or None for puzzlesat's own."""
    if method and method in _script_strategies.get(puzzle, {}):
        return "script"
    if method and (puzzle, method) in _origins:
        return _origins[puzzle, method]
    if puzzle in _script_puzzles:
        return "script"
    return _origins.get((puzzle, ""))


def label(puzzle: str, method: str = "") -> str | None:
    """How messages name who added a strategy (or a puzzle): ``plugin DIST``, ``script strategy
    NAME``, ``script puzzle NAME``; None for puzzlesat's own."""
    found = origin(puzzle, method)
    if found != "script":
        return found
    return script_label(puzzle, method if method in _script_strategies.get(puzzle, {}) else "")


def register_puzzle(puzzle: Puzzle) -> Puzzle:
    """Add a puzzle defined in a script; registering an equal one again does nothing.

    Raises:
        PluginError: not a Puzzle, its name is taken, or a strategy it names (``module:attr``)
            cannot be imported.
    """
    if not isinstance(puzzle, Puzzle):
        raise PluginError(f"register_puzzle: expected a puzzlesat.Puzzle, got {type(puzzle).__name__}")
    puzzle.strategies  # noqa: B018 - the strategies it names by module:attr: a PluginError now, not later
    puzzle = contain_puzzle(puzzle, script_label(puzzle.name))
    if _script_puzzles.get(puzzle.name) == puzzle:
        return _script_puzzles[puzzle.name]
    if puzzle.name in BUILTIN or puzzle.name in _script_puzzles or puzzle.name in _puzzle_entry_points():
        raise PluginError(f"register_puzzle: puzzle name {puzzle.name!r} is taken")
    _script_puzzles[puzzle.name] = puzzle
    return puzzle


def registered(puzzle: Puzzle) -> Puzzle:
    """The puzzle a script registered, its functions contained, when ``puzzle`` is that one;
    else ``puzzle`` itself (a built-in's, an installed plugin's as loaded, or one never registered)."""
    known = _script_puzzles.get(puzzle.name)
    if known is not None and known is not puzzle and known == contain_puzzle(puzzle, script_label(puzzle.name)):
        return known
    return puzzle


def script_label(puzzle: str, method: str = "") -> str:
    """How messages name what a script registered: ``script puzzle NAME``, ``script strategy NAME``."""
    return f"script strategy {method}" if method else f"script puzzle {puzzle}"


def register_strategy(strategy: Strategy, puzzle: str | None = None) -> Strategy:
    """Add a strategy defined in a script to a puzzle (``puzzle`` or ``strategy.puzzle``).

    Registering an equal one again does nothing.  Returns the strategy as registered (its
    ``puzzle`` filled in).

    Raises:
        PluginError: not a Strategy, no puzzle named, or the name is taken for that puzzle.
        BackendUnavailable: an unknown puzzle.
    """
    if not isinstance(strategy, Strategy):
        raise PluginError(f"register_strategy: expected a puzzlesat.Strategy, got {type(strategy).__name__}")
    name = puzzle or strategy.puzzle
    if not name:
        raise PluginError(f"register_strategy: strategy {strategy.name!r} names no puzzle")
    types.check_name("puzzle", name)
    target = get_puzzle(name)
    strategy = contain_strategy(replace(strategy, puzzle=target.name), script_label(target.name, strategy.name))
    own = _script_strategies.setdefault(target.name, {})
    if own.get(strategy.name) == strategy:
        return own[strategy.name]
    if strategy.name in own or any(s.name == strategy.name for s in target.all_strategies()):
        raise PluginError(f"register_strategy: strategy name {strategy.name!r} is taken for {target.name}")
    own[strategy.name] = strategy
    return strategy


def script_strategy(puzzle: str, method: str) -> Strategy | None:
    """The strategy a script registered under this name, which a child process must be sent."""
    return _script_strategies.get(puzzle, {}).get(method)


def check_portable(obj: Any, what: str) -> None:
    """Check that a child process can rebuild ``obj`` (a Puzzle or Strategy defined by a script).

    A spawned child imports the modules that the object's functions live in: a function of an
    interactive session, a lambda or a nested function cannot reach it.

    Raises:
        PluginError: one line saying which function cannot be sent and why.
    """
    import pickle  # here: only a race or a comparison with a script's objects needs it

    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    for fn in _functions(obj):
        module, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
        if "<" in qual or (module == "__main__" and main_file is None):
            raise PluginError(
                f"{what}: a child process cannot import {qual or fn!r} from {module}: "
                "define it at the top level of an importable module"
            )
    try:
        pickle.dumps(obj)
    except Exception as exc:  # noqa: BLE001 - what pickle says is the reason
        raise PluginError(f"{what}: cannot be sent to a child process: {exc}") from None


def defined_in_main(obj: Puzzle | Strategy) -> bool:
    """True when a function of ``obj`` lives in the ``__main__`` module (a script run as
    ``python script.py``): a child process finds it only by running that script again."""
    return any(getattr(fn, "__module__", None) == "__main__" for fn in _functions(obj))


def _functions(obj: Any) -> list[Callable[..., Any]]:
    """The functions a Puzzle or Strategy holds, its strategies' included."""
    from puzzlesat.core import hooks

    found: list[Callable[..., Any]] = []
    for value in vars(obj).values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, Strategy):
                found += _functions(item)
            elif callable(item) and not isinstance(item, type):
                found.append(hooks.unwrap(item))
    return found


# a plugin puzzle that fails to load raises one of these; listing skips it
PuzzlesatErrors = (BackendUnavailable, PluginError)

types.set_plugin_lookup(extra_strategies)
