"""puzzlesat: constraint models, CNF encodings and native backtrackers for hard puzzles.

The library offers the command line's verbs (see the README's "Python" section)::

    import puzzlesat
    board = puzzlesat.load("eternity", "instances/eternity/seed_4x4.txt")
    result = puzzlesat.solve(board, "cnf-heule", timeout=10)
    print(puzzlesat.format(board, result))

No solver library is imported until a verb needs it.  Plugins (``docs/plugins.md``) add
puzzles and strategies through the entry-point groups ``puzzlesat.puzzles`` and
``puzzlesat.strategies``, or from a script with :func:`register_puzzle` and
:func:`register_strategy`.
"""

from puzzlesat.api import (
    Catalog,
    Comparison,
    Decoded,
    Export,
    Instance,
    catalog,
    check,
    compare,
    decode,
    draw,
    export,
    format,
    generate,
    load,
    notes,
    plugin_problems,
    puzzles,
    race,
    register_puzzle,
    register_strategy,
    solve,
    strategies,
)
from puzzlesat.core import (
    SAT_SOLVERS,
    TIME_LIMIT,
    ArgumentError,
    ArgumentTypeError,
    BackendUnavailable,
    InvalidInstanceError,
    InvalidSolutionError,
    Limits,
    Option,
    OptionError,
    ParseError,
    PluginError,
    Puzzle,
    PuzzlesatError,
    Result,
    Status,
    Strategy,
    UnsupportedRequest,
)

__version__ = "0.1.0"

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "BackendUnavailable",
    "Catalog",
    "Comparison",
    "Decoded",
    "Export",
    "Instance",
    "InvalidInstanceError",
    "InvalidSolutionError",
    "Limits",
    "Option",
    "OptionError",
    "ParseError",
    "PluginError",
    "Puzzle",
    "PuzzlesatError",
    "Result",
    "SAT_SOLVERS",
    "Status",
    "Strategy",
    "TIME_LIMIT",
    "UnsupportedRequest",
    "catalog",
    "check",
    "compare",
    "decode",
    "draw",
    "export",
    "format",
    "generate",
    "load",
    "notes",
    "plugin_problems",
    "puzzles",
    "race",
    "register_puzzle",
    "register_strategy",
    "solve",
    "strategies",
]
