"""puzzlesat: solve, compare, export and check hard combinatorial puzzles.

Results go to stdout in each puzzle's original format; logs, progress and tables to stderr.
Exit codes: 0 answered (a solution, or a proof that none exists), 1 unsolved or check
failed, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from puzzlesat import api, core
from puzzlesat.core import Option, OptionError, PuzzlesatError, Result
from puzzlesat.core.options import parse_pairs


def source(path: str) -> api.Source:
    """The instance or answer argument: a path, or ``-`` for stdin."""
    return sys.stdin if path == "-" else Path(path)


def write_output(text: str, path: str | None) -> None:
    """Write to a file, or to stdout when no path is given."""
    if path:
        Path(path).write_text(text)
    else:
        sys.stdout.write(text)


def given_options(args: argparse.Namespace) -> dict[str, object]:
    """The puzzle's flags the user set, and the ``-O KEY=VALUE`` pairs."""
    flags = {opt.name: getattr(args, opt.name) for opt in getattr(args, "puzzle_solve_options", ())}
    return {**{k: v for k, v in flags.items() if v is not None}, **parse_pairs(getattr(args, "option", []))}


def cmd_list(args: argparse.Namespace) -> int:
    """Show puzzles and their strategies (``-v``: with their options)."""
    names = [args.puzzle] if args.puzzle else api.puzzles()
    for name in names:
        puzzle = core.get_puzzle(name)
        print(f"{puzzle.name}  (portfolio: {', '.join(puzzle.portfolio)})")
        for strat in puzzle.strategies:
            label = strat.name + (f":<{'|'.join(strat.variants)}>" if strat.variants else "")
            extra = [flag for flag, on in (("export dimacs", strat.encoder), ("export cpsat", strat.model)) if on]
            note = f"  [{', '.join(extra)}]" if extra else ""
            print(f"  {label}\n      {strat.summary}{note}")
            if args.verbose:
                for opt in strat.options:
                    print(f"      -O {describe(opt)}")
        if args.verbose and puzzle.solve_options:
            print("  solve flags (every strategy):")
            for opt in puzzle.solve_options:
                print(f"      {opt.flag} {describe(opt)}")
    return 0


def describe(opt: Option) -> str:
    """``name=TYPE (default D)  help``, one line of ``list -v``."""
    kind = "|".join(opt.choices) if opt.choices else opt.type.__name__
    default = "" if opt.default is None else f" (default {opt.default})"
    return f"{opt.name}={kind}{default}  {opt.help}"


def report(instance: api.Instance, result: Result, args: argparse.Namespace) -> int:
    """Print a result (seed format or JSON) and return the exit code."""
    if args.json:
        print(json.dumps(result.to_json(core.get_puzzle(instance.puzzle), instance.data)))
    elif result.status.is_final:
        write_output(api.format(instance, result), args.output)
    stats = " ".join(f"{k}={v}" for k, v in result.stats.items())
    print(
        f"c {result.strategy}: {result.status.value} in {result.wall_time:.3f}s {stats} {result.message}".rstrip(),
        file=sys.stderr,
    )
    return 0 if result.status.is_final else 1


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve one instance with one strategy, or race several (``--portfolio``)."""
    if args.portfolio and args.file == "-" and Path(args.portfolio).is_file():
        args.file, args.portfolio = args.portfolio, ""  # `--portfolio FILE`: the optional value took the file
    if args.portfolio is None and (args.backend != "local" or args.address):
        raise PuzzlesatError("--backend and --address apply to --portfolio")
    instance = api.load(args.puzzle, source(args.file))
    options = given_options(args)
    if args.portfolio is not None:
        result = api.race(
            instance,
            args.portfolio,
            timeout=args.timeout,
            jobs=args.jobs,
            backend=args.backend,
            address=args.address,
            seed=args.seed,
            memory_limit=args.memory_limit,
            stream=sys.stderr,
            **options,
        )
    else:
        result = api.solve(
            instance, args.strategy, timeout=args.timeout, seed=args.seed, workers=args.workers, **options
        )
    puzzle = core.get_puzzle(instance.puzzle)
    if puzzle.after_solve is not None and result.solution is not None:
        puzzle.after_solve(instance.data, result, puzzle.options([], options))
    return report(instance, result, args)


def cmd_check(args: argparse.Namespace) -> int:
    """Verify a solution file against an instance file."""
    instance = api.load(args.puzzle, source(args.instance))
    text, name = api.read_source(source(args.solution))
    problems = api.check(instance, text, name)
    for problem in problems:
        print(f"{name}: {problem}", file=sys.stderr)
    if not problems:
        print("OK", file=sys.stderr)
    return 1 if problems else 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Generate an instance in the puzzle's input format."""
    params = {opt.name: getattr(args, opt.name) for opt in args.generator_options}
    instance = api.generate(args.puzzle, args.seed, **{k: v for k, v in params.items() if v is not None})
    write_output(instance.text, args.output)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write the DIMACS CNF (with sidecar) or the CP-SAT model of an instance."""
    instance = api.load(args.puzzle, source(args.file))
    done = api.export(instance, args.strategy, args.output, args.format, **parse_pairs(args.option))
    if done.sidecar is not None:
        print(
            f"c wrote {done.path} ({done.variables} variables, {done.clauses} clauses) and {done.sidecar}",
            file=sys.stderr,
        )
    else:
        print(f"c wrote {done.path}", file=sys.stderr)
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    """Turn an external SAT solver's answer into the puzzle's solution format."""
    decoded = api.decode(args.map, source(args.answer), args.puzzle)
    if decoded.satisfiable is None:
        print(f"{'<stdin>' if args.answer == '-' else args.answer}: the solver did not decide", file=sys.stderr)
        return 1
    write_output(api.format(decoded.instance, decoded.solution), args.output)
    return 0


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every solving command shares."""
    parser.add_argument("--timeout", type=float, default=None, help="seconds per strategy run")
    parser.add_argument("--seed", type=int, default=0, help="random seed (search order, generators)")
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT workers for one strategy")
    parser.add_argument(
        "--option", "-O", action="append", default=[], help="strategy option KEY=VALUE (puzzlesat list -v shows them)"
    )


def add_portfolio_flags(parser: argparse.ArgumentParser) -> None:
    """``solve --portfolio [S1,S2,...] --jobs N --memory-limit MB``."""
    parser.add_argument(
        "--portfolio",
        nargs="?",
        const="",
        default=None,
        metavar="S1,S2,...",
        help="race strategies in separate processes (default set: the puzzle's; repeat a name to race seeds)",
    )
    parser.add_argument("--jobs", "-j", type=int, default=None, help="cores to share (default: all)")
    parser.add_argument("--memory-limit", type=int, default=None, metavar="MB", help="memory cap per child process")
    add_backend_flags(parser)


def add_backend_flags(parser: argparse.ArgumentParser) -> None:
    """``--backend local|ray --address HOST:PORT`` (Ray: ``pip install "puzzlesat[ray]"``)."""
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="run strategies as local processes (default) or as Ray tasks",
    )
    parser.add_argument(
        "--address",
        metavar="HOST:PORT",
        default=None,
        help="the Ray cluster's head (ray start --head); default: start a local Ray instance",
    )


def cmd_compare(args: argparse.Namespace) -> int:
    """Run every strategy on every instance in separate processes; print a table."""
    if args.plot:
        api.require_matplotlib()
    instances = [api.load(args.puzzle, Path(path)) for path in args.files]
    runs = api.compare(
        args.puzzle,
        instances,
        args.strategies,
        timeout=args.timeout,
        jobs=args.jobs,
        results=args.results,
        seed=args.seed,
        workers=args.workers,
        memory_limit=args.memory_limit,
        backend=args.backend,
        address=args.address,
        stream=sys.stderr,
    )
    if args.plot:
        runs.plot(args.plot)
    write_output(runs.table(args.format), args.output)
    return 0


def option_type(opt: Option) -> Any:
    """An argparse ``type=`` that reads a flag's text as its declaration says."""

    def convert(text: str) -> Any:
        try:
            return opt.convert(text)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = opt.type.__name__  # argparse names the type in its message
    return convert


def add_option_flags(parser: argparse.ArgumentParser, options: tuple[Option, ...]) -> None:
    """One flag per declared option; a bool is a switch.  Unset flags stay None (the default applies)."""
    for opt in options:
        if opt.type is bool:
            parser.add_argument(opt.flag, dest=opt.name, action="store_true", default=None, help=opt.help)
        else:
            parser.add_argument(opt.flag, dest=opt.name, type=option_type(opt), default=None, help=opt.help)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="puzzlesat", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="show puzzles and strategies")
    p.add_argument("puzzle", nargs="?")
    p.add_argument("--verbose", "-v", action="store_true", help="also each strategy's options")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("solve", help="solve an instance")
    solve = p.add_subparsers(dest="puzzle", required=True)
    for puzzle in core.available_puzzles():
        s = solve.add_parser(puzzle.name)
        s.add_argument("file", nargs="?", default="-", help="instance file, or - for stdin")
        s.add_argument("--strategy", "-s", help="method[:variant]; default: the puzzle's first")
        s.add_argument("--json", action="store_true", help="print a JSON result instead of the seed format")
        s.add_argument("--output", "-o", help="write the answer here instead of stdout")
        add_limit_flags(s)
        add_portfolio_flags(s)
        add_option_flags(s, puzzle.solve_options)
        s.set_defaults(func=cmd_solve, puzzle_solve_options=puzzle.solve_options)

    p = sub.add_parser("compare", help="run strategies side by side on instances; print a table")
    p.add_argument("puzzle")
    p.add_argument("files", nargs="+", help="instance files")
    p.add_argument("--strategies", help="comma list of method[:variant] (default: every strategy)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per run (default 60)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="CP-SAT workers per run")
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        help="runs at once (default 1; with --backend ray, as many as the cluster's CPUs allow)",
    )
    p.add_argument("--memory-limit", type=int, default=None, metavar="MB", help="memory cap per run")
    p.add_argument("--format", choices=("markdown", "csv", "json"), default="markdown")
    p.add_argument("--results", metavar="FILE", help="append runs to this JSON-lines file; reuse those done")
    p.add_argument("--plot", metavar="FILE.png", help="draw a cactus plot (needs matplotlib)")
    p.add_argument("--output", "-o", help="write the table here instead of stdout")
    add_backend_flags(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("check", help="verify a solution")
    p.add_argument("puzzle")
    p.add_argument("instance")
    p.add_argument("solution")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("generate", help="generate an instance")
    gen = p.add_subparsers(dest="puzzle", required=True)
    for puzzle in core.available_puzzles():
        g = gen.add_parser(puzzle.name)
        add_option_flags(g, puzzle.generator_options)
        g.add_argument("--seed", type=int, default=0)
        g.add_argument("--output", "-o")
        g.set_defaults(func=cmd_generate, generator_options=puzzle.generator_options)

    p = sub.add_parser("export", help="write the DIMACS CNF (+ JSON sidecar) or the CP-SAT model")
    p.add_argument("puzzle")
    p.add_argument("file")
    p.add_argument("--strategy", "-s", required=True, help="the formulation to export")
    p.add_argument("--format", choices=("dimacs", "cpsat"), default="dimacs")
    p.add_argument("--option", "-O", action="append", default=[], help="strategy option KEY=VALUE (list -v)")
    p.add_argument("--output", "-o", required=True)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("decode", help="read an external SAT solver's answer back into a solution")
    p.add_argument("puzzle")
    p.add_argument("answer", help="the solver's output (s and v lines), or -")
    p.add_argument("--map", required=True, help="the .json sidecar written by export")
    p.add_argument("--output", "-o")
    p.set_defaults(func=cmd_decode)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``puzzlesat`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except PuzzlesatError as exc:
        print(f"puzzlesat: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("puzzlesat: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
