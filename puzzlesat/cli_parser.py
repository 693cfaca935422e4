"""The ``puzzlesat`` command line's parser, built from the declared options, one stage per verb.

Every flag is an :class:`~puzzlesat.core.Option` declared once (here, in ``core.arguments``,
in ``api`` or by a puzzle) and read and checked by that declaration; :func:`add_flags` turns a
list of them into argparse arguments.  :func:`build_parser` adds the verbs in order, each by
its own stage (``add_solve``, ``add_compare``, ...), so one verb can be read and tested alone.
A verb's subparser sets no handler: ``args.command`` names the verb and the CLI dispatches on it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, NoReturn

from puzzlesat import api, core
from puzzlesat.core import Option, OptionError, PuzzlesatError, registry
from puzzlesat.core.arguments import (
    ADDRESS,
    BACKEND,
    JOBS,
    MEMORY_LIMIT,
    OUTPUT,
    RESULTS,
    RUN_WORKERS,
    SEED,
    STRATEGIES,
    TABLE_FORMAT,
    TIMEOUT,
    WORKERS,
)


class Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (``puzzlesat solve eternity: argument ...``), exit 2."""

    def error(self, message: str) -> NoReturn:
        if "invalid choice" in message and registry.problems():  # a plugin's puzzle that did not load says why
            message = "; ".join([message, *registry.problems()])
        self.exit(2, f"{self.prog}: {message}\n")


# the verbs' flags: the shared declarations (core.arguments, api), with each verb's help
# where it says more, and the command line's own
STRATEGY = Option("strategy", str, None, "method[:variant]; default: the puzzle's first")
PAIRS = Option("option", str, None, "strategy option KEY=VALUE (puzzlesat list -v shows them)")
JSON = Option("json", bool, False, "print a JSON result instead of the seed format")
SVG = Option("svg", str, None, "also draw the instance and the answer into this SVG file", writes=True)
CERTIFY = Option(
    "certify",
    str,
    None,
    "write a checkable proof of every 'no solution', 'optimal' and 'unique' claim into DIR "
    "(NAME.cnf + NAME.drat, checked by drat-trim or dratify before the answer is printed)",
)
PORTFOLIO = Option(
    "portfolio",
    str,
    None,
    "race strategies in separate processes (default set: the puzzle's; repeat a name to race seeds)",
)
RUN_STRATEGIES = STRATEGIES._replace(
    help="comma list of method[:variant][@KEY=VALUE...] (default: every strategy); "
    "options after @ apply to that strategy alone"
)
RUN_PAIRS = PAIRS._replace(help="option KEY=VALUE for every run (puzzlesat list -v)")
RUN_TIMEOUT = TIMEOUT._replace(default=60.0, help="seconds per run (default 60)")
PROBLEM_TIMEOUT = TIMEOUT._replace(default=60.0, help="seconds per problem and strategy (default 60)")
RUNS_AT_ONCE = JOBS._replace(help="runs at once (default 1; with --backend ray, as many as the cluster's CPUs allow)")
PROBLEMS_AT_ONCE = JOBS._replace(help="problems at once (default 1)")
RUN_MEMORY = MEMORY_LIMIT._replace(help="memory cap per run, in MB")
PLOT = Option(
    "plot", str, None, "also draw a cactus plot into this file (PNG, or SVG, PDF, ...; needs matplotlib)", writes=True
)
CHAIN = STRATEGIES._replace(help="the chain, comma list (default native-dfs,cnf-plan:cadical195)")
VERBOSE = Option("verbose", bool, False, "also each strategy's modes and options")
EXPORT_VERBOSE = VERBOSE._replace(help="also how to solve the CNF outside and certify an UNSAT answer")
MAP = Option("map", str, None, "the .json sidecar written by export")
PROOF = Option("proof", str, None, "the solver's DRAT proof of an UNSATISFIABLE answer, to check")


class Flag(NamedTuple):
    """How the command line spells a declared option, where ``--name VALUE`` is not all.

    Attributes:
        option: the declaration, which reads and checks the value.
        short: a one-letter alias (``-o``).
        metavar: how ``--help`` shows the value (default: the choices, ``FILE`` for a file
            written, else the name).
        required: the command needs it.
        repeat: it may be given again; the values make a list (``-O KEY=VALUE``).
        bare: the value when the flag comes without one (``--portfolio``: no names, the default
            set); None: it needs one.  Not text, which argparse would read as the flag's value.
    """

    option: Option
    short: str = ""
    metavar: str | None = None
    required: bool = False
    repeat: bool = False
    bare: tuple[str, ...] | None = None

    @property
    def shown(self) -> str | None:
        """The value as ``--help`` shows it."""
        if self.metavar or self.option.choices:
            return self.metavar or "{" + ",".join(self.option.choices) + "}"
        return "FILE" if self.option.writes else None


# the flags spelled alike by several verbs
PAIRS_FLAG = Flag(PAIRS, "-O", "KEY=VALUE", repeat=True)
BACKEND_FLAGS = (BACKEND, Flag(ADDRESS, metavar="HOST:PORT"))


def output_flag(what: str) -> Flag:
    """``--output FILE`` (``-o``): where a verb writes ``what`` instead of stdout."""
    return Flag(OUTPUT._replace(help=f"write {what} here instead of stdout"), "-o")


def option_type(opt: Option) -> Any:
    """An argparse ``type=`` that reads a flag's text as its declaration says."""

    def convert(text: str) -> Any:
        try:
            return opt.convert(text)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = opt.type.__name__  # argparse names the type in its message
    return convert


def add_flags(parser: argparse.ArgumentParser, flags: Iterable[Option | Flag]) -> None:
    """One flag per declared option, its value read and checked by the declaration (a bool is
    a switch); the parser keeps the options (``args.declared``) for :func:`outputs`."""
    declared = list(parser.get_default("declared") or ())
    for item in flags:
        flag = item if isinstance(item, Flag) else Flag(item)
        opt = flag.option
        names = [opt.flag, *([flag.short] if flag.short else [])]
        if opt.type is bool:
            parser.add_argument(*names, dest=opt.name, action="store_true", default=opt.default, help=opt.help)
        else:
            how: dict[str, Any] = {"action": "append", "default": []} if flag.repeat else {"default": opt.default}
            if flag.bare is not None:
                how |= {"nargs": "?", "const": flag.bare}
            parser.add_argument(
                *names,
                dest=opt.name,
                type=option_type(opt),
                metavar=flag.shown,
                required=flag.required,
                help=opt.help,
                **how,
            )
        declared.append(opt)
    parser.set_defaults(declared=tuple(declared))


def puzzle_named(name: str) -> core.Puzzle:
    """The ``type=`` of a puzzle argument: the Puzzle it names, looked up once, here."""
    try:
        return core.get_puzzle(name)
    except PuzzlesatError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def puzzles_needed(argv: list[str], verb: str) -> list[core.Puzzle]:
    """The puzzles whose subparsers ``verb`` needs for this command line.

    Building a puzzle's subparser loads its domain module, so a command builds only what it
    parses: none for another verb, one for ``solve eternity ...``, all for ``solve --help``.
    """
    if not argv or argv[0] != verb:
        return []
    if len(argv) > 1 and (argv[1] in registry.BUILTIN or argv[1] in registry.puzzle_names()):
        return [core.get_puzzle(argv[1])]
    return core.available_puzzles()


def puzzle_flags(puzzle: core.Puzzle) -> list[Option]:
    """The puzzle's own flags of ``solve`` and ``compare``: what completes an instance (``--hints``)
    and the solve options, modes included (``--unique``, ``--count``)."""
    return [*puzzle.instance_options, *(mode_help(puzzle, o) for o in puzzle.solve_options)]


def mode_help(puzzle: core.Puzzle, opt: Option) -> Option:
    """A mode's flag, its help naming the puzzle's own strategies that serve it."""
    if opt.name not in puzzle.modes:
        return opt
    servers = ", ".join(s.name for s in puzzle.strategies if s.serves(opt.name))
    return opt._replace(help=f"{opt.help} (served by {servers or 'plugins only'})")


Verbs = argparse._SubParsersAction  # what ``add_subparsers`` returns: a stage adds its verb to it
Stage = Callable[[Verbs, list[str]], None]  # adds one verb, its puzzle subparsers only if ``argv`` needs them


def build_parser(argv: list[str], description: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every verb; puzzle subparsers only for ``argv``'s verb.

    ``description`` is the text of ``puzzlesat --help`` (the CLI's exit codes)."""
    parser = Parser(prog="puzzlesat", description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="command", required=True)
    for stage in STAGES:
        stage(verbs, argv)
    return parser


def add_list(verbs: Verbs, argv: list[str]) -> None:
    """``list [PUZZLE] [-v]``."""
    p = verbs.add_parser("list", help="show puzzles and strategies")
    p.add_argument("puzzle", nargs="?", type=puzzle_named)
    add_flags(p, [Flag(VERBOSE, "-v")])


def add_solve(verbs: Verbs, argv: list[str]) -> None:
    """``solve PUZZLE [FILE]``: one subparser per puzzle, with its instance and mode flags."""
    solve = verbs.add_parser("solve", help="solve an instance").add_subparsers(dest="puzzle", required=True)
    for puzzle in puzzles_needed(argv, "solve"):
        s = solve.add_parser(puzzle.name)
        s.add_argument("file", nargs="?", default="-", help="instance file, or - for stdin")
        add_flags(
            s,
            [
                Flag(STRATEGY, "-s"),
                JSON,
                output_flag("the answer"),
                SVG,
                Flag(CERTIFY, metavar="DIR"),
                TIMEOUT,
                SEED,
                WORKERS,
                PAIRS_FLAG,
                Flag(PORTFOLIO, metavar="S1,S2,...", bare=()),
                JOBS,
                MEMORY_LIMIT,
                *BACKEND_FLAGS,
                *puzzle_flags(puzzle),
            ],
        )
        s.set_defaults(puzzle=puzzle)


def add_compare(verbs: Verbs, argv: list[str]) -> None:
    """``compare PUZZLE FILE...``: strategies side by side, with the puzzle's flags as ``solve`` has them."""
    p = verbs.add_parser("compare", help="run strategies side by side on instances; print a table")
    compare = p.add_subparsers(dest="puzzle", required=True)
    for puzzle in puzzles_needed(argv, "compare"):
        c = compare.add_parser(puzzle.name)
        c.add_argument("files", nargs="+", help="instance files")
        add_flags(
            c,
            [
                RUN_STRATEGIES,
                PAIRS_FLAG._replace(option=RUN_PAIRS),
                RUN_TIMEOUT,
                SEED,
                RUN_WORKERS,
                Flag(RUNS_AT_ONCE, "-j"),
                RUN_MEMORY,
                TABLE_FORMAT,
                RESULTS,
                Flag(PLOT, metavar="FILE.png"),
                output_flag("the table"),
                *BACKEND_FLAGS,
                *puzzle_flags(puzzle),
            ],
        )
        c.set_defaults(puzzle=puzzle)


def add_catalog(verbs: Verbs, argv: list[str]) -> None:
    """``catalog pegsol``: every single vacancy -> single survivor problem of a board."""
    p = verbs.add_parser("catalog", help="every single vacancy -> single survivor problem of a board, settled")
    p.add_argument("puzzle", choices=api.CATALOG_PUZZLES)
    add_flags(
        p,
        [
            api.CATALOG_BOARD,
            api.CATALOG_ROWS,
            api.CATALOG_COLS,
            CHAIN,
            PROBLEM_TIMEOUT,
            SEED,
            Flag(PROBLEMS_AT_ONCE, "-j"),
            RUN_MEMORY,
            TABLE_FORMAT,
            RESULTS,
            output_flag("the catalog"),
        ],
    )
    p.set_defaults(backend="local", workers=None)


def add_check(verbs: Verbs, argv: list[str]) -> None:
    """``check PUZZLE INSTANCE SOLUTION``: one subparser per puzzle, with its check flags."""
    check = verbs.add_parser("check", help="verify a solution").add_subparsers(dest="puzzle", required=True)
    for puzzle in puzzles_needed(argv, "check"):
        c = check.add_parser(puzzle.name)
        c.add_argument("instance")
        c.add_argument("solution")
        picture = SVG._replace(help="also draw the instance and the answer checked into this SVG file")
        add_flags(c, [picture, *puzzle.instance_options, *puzzle.check_options])
        c.set_defaults(puzzle=puzzle)


def add_generate(verbs: Verbs, argv: list[str]) -> None:
    """``generate PUZZLE``: one subparser per puzzle, with its generator's flags."""
    gen = verbs.add_parser("generate", help="generate an instance").add_subparsers(dest="puzzle", required=True)
    for puzzle in puzzles_needed(argv, "generate"):
        g = gen.add_parser(puzzle.name)
        add_flags(g, [*puzzle.generator_options, SEED, output_flag("the instance")])
        g.set_defaults(puzzle=puzzle)


def add_export(verbs: Verbs, argv: list[str]) -> None:
    """``export PUZZLE FILE -s STRATEGY -o FILE``: one subparser per puzzle."""
    p = verbs.add_parser("export", help="write the DIMACS CNF or WCNF (+ JSON sidecar) or the CP-SAT model")
    export = p.add_subparsers(dest="puzzle", required=True)
    formula = Flag(OUTPUT._replace(help="the file to write (DIMACS: and FILE.json, the sidecar)"), "-o", required=True)
    for puzzle in puzzles_needed(argv, "export"):
        x = export.add_parser(puzzle.name)
        x.add_argument("file")
        add_flags(
            x,
            [
                Flag(STRATEGY._replace(help="the formulation to export"), "-s", required=True),
                api.EXPORT_FORMAT,
                PAIRS_FLAG._replace(option=PAIRS._replace(help="strategy option KEY=VALUE (list -v)")),
                formula,
                TIMEOUT,
                Flag(EXPORT_VERBOSE, "-v"),
                *puzzle.instance_options,
            ],
        )
        x.set_defaults(puzzle=puzzle)


def add_tables(verbs: Verbs, argv: list[str]) -> None:
    """``tables list`` and ``tables build PUZZLE [SET]``."""
    p = verbs.add_parser("tables", help="show the tables solvers keep (rubik), or build a set ahead")
    tables = p.add_subparsers(dest="action", required=True)
    tables.add_parser("list", help="each table set: built, partly built or not, its size and build time")
    t = tables.add_parser("build", help="build a set now (a stopped build resumes); progress and time left")
    t.add_argument("puzzle", choices=api.TABLE_PUZZLES)
    t.add_argument("set", nargs="?", help="default: the set solves grow into (phase1 without --memory-limit)")
    add_flags(t, [api.TABLE_METRIC])


def add_kernels(verbs: Verbs, argv: list[str]) -> None:
    """``kernels list`` and ``kernels build [NAME...]``."""
    p = verbs.add_parser("kernels", help="show the native kernels compiled ahead of time, or build them")
    kernels = p.add_subparsers(dest="action", required=True)
    kernels.add_parser("list", help="each kernel set: built for this source and these versions, stale or absent")
    k = kernels.add_parser("build", help="compile kernels now (needs a C compiler): solves then skip numba's JIT")
    k.add_argument("names", nargs="*", help="default: every set")


def add_decode(verbs: Verbs, argv: list[str]) -> None:
    """``decode PUZZLE ANSWER --map FILE``: an external SAT solver's answer read back."""
    p = verbs.add_parser("decode", help="read an external SAT solver's answer back into a solution")
    p.add_argument("puzzle", type=puzzle_named)
    p.add_argument("answer", help="the solver's output (s and v lines), or -")
    add_flags(
        p,
        [
            Flag(MAP, metavar="FILE", required=True),
            Flag(PROOF, metavar="FILE"),
            output_flag("the solution"),
        ],
    )


STAGES: tuple[Stage, ...] = (
    add_list,
    add_solve,
    add_compare,
    add_catalog,
    add_check,
    add_generate,
    add_export,
    add_tables,
    add_kernels,
    add_decode,
)
"""The verbs in the order ``puzzlesat --help`` lists them."""
