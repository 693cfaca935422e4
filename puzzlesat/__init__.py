"""puzzlesat: constraint models, CNF encodings and native backtrackers for hard puzzles.

The library offers the command line's verbs (see the README's "Python" section)::

    import puzzlesat
    board = puzzlesat.load("eternity", "instances/eternity/seed_4x4.txt")
    result = puzzlesat.solve(board, "cnf-heule", timeout=10)
    print(puzzlesat.format(board, result))

No solver library is imported until a verb needs it.
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
    export,
    format,
    generate,
    load,
    puzzles,
    race,
    solve,
    strategies,
)
from puzzlesat.core import (
    ArgumentError,
    ArgumentTypeError,
    BackendUnavailable,
    InvalidInstanceError,
    InvalidSolutionError,
    Option,
    OptionError,
    ParseError,
    PuzzlesatError,
    Result,
    Status,
    Strategy,
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
    "Option",
    "OptionError",
    "ParseError",
    "PuzzlesatError",
    "Result",
    "Status",
    "Strategy",
    "catalog",
    "check",
    "compare",
    "decode",
    "export",
    "format",
    "generate",
    "load",
    "puzzles",
    "race",
    "solve",
    "strategies",
]
