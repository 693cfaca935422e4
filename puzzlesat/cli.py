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

from puzzlesat import core
from puzzlesat.core import Limits, Puzzle, PuzzlesatError, Status


def read_input(path: str) -> tuple[str, str]:
    """Text of a file, or of stdin for ``-``; returns (text, name used in messages)."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(path).read_text(), path
    except (OSError, UnicodeDecodeError) as exc:
        raise PuzzlesatError(f"{path}: cannot read: {exc.strerror if isinstance(exc, OSError) else exc}") from None


def load_instance(puzzle: Puzzle, path: str) -> Any:
    """Parse an instance file (or stdin) of the given puzzle."""
    text, source = read_input(path)
    return puzzle.parse(text, source)


def write_output(text: str, path: str | None) -> None:
    """Write to a file, or to stdout when no path is given."""
    if path:
        Path(path).write_text(text)
    else:
        sys.stdout.write(text)


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits the shared flags describe."""
    options = {
        flag.replace("-", "_"): getattr(args, flag.replace("-", "_"))
        for flag, *_ in getattr(args, "puzzle_solve_options", ())
    }
    options.update(parse_options(getattr(args, "option", [])))
    return Limits(timeout=args.timeout, seed=args.seed, workers=args.workers, options=options)


def cmd_list(args: argparse.Namespace) -> int:
    """Show puzzles and their strategies."""
    puzzles = [core.get_puzzle(args.puzzle)] if args.puzzle else core.available_puzzles()
    for puzzle in puzzles:
        print(f"{puzzle.name}  (portfolio: {', '.join(puzzle.portfolio)})")
        for strat in puzzle.strategies:
            name = strat.name + (f":<{'|'.join(strat.variants)}>" if strat.variants else "")
            extra = [flag for flag, on in (("export dimacs", strat.encoder), ("export cpsat", strat.model)) if on]
            note = f"  [{', '.join(extra)}]" if extra else ""
            print(f"  {name}\n      {strat.summary}{note}")
    return 0


def report(puzzle: Puzzle, instance: Any, result: core.Result, args: argparse.Namespace) -> int:
    """Print a result (seed format or JSON) and return the exit code."""
    if args.json:
        print(json.dumps(result.to_json(puzzle, instance)))
    elif result.status in (Status.SOLVED, Status.OPTIMAL, Status.INFEASIBLE):
        write_output(puzzle.format(instance, result.solution), args.output)
    stats = " ".join(f"{k}={v}" for k, v in result.stats.items())
    print(
        f"c {result.strategy}: {result.status.value} in {result.wall_time:.3f}s {stats} {result.message}".rstrip(),
        file=sys.stderr,
    )
    return 0 if result.status.is_final else 1


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve one instance with one strategy."""
    puzzle = core.get_puzzle(args.puzzle)
    if args.portfolio and args.file == "-" and Path(args.portfolio).is_file():
        args.file, args.portfolio = args.portfolio, ""  # `--portfolio FILE`: the optional value took the file
    if args.portfolio is None and (args.backend != "local" or args.address):
        raise PuzzlesatError("--backend and --address apply to --portfolio")
    instance = load_instance(puzzle, args.file)
    name = args.strategy or puzzle.strategies[0].name
    limits = limits_from(args)
    if args.portfolio is not None:
        from puzzlesat.portfolio import race
        from puzzlesat.portfolio.backends import Backend

        backend = Backend(args.backend, args.address, jobs=args.jobs, memory_mb=args.memory_limit)
        result = race.solve_portfolio(puzzle, instance, args.portfolio, limits, backend)
    else:
        result = core.run_strategy(puzzle, instance, name, limits)
    if puzzle.after_solve is not None and result.solution is not None:
        puzzle.after_solve(instance, result, limits.options)
    return report(puzzle, instance, result, args)


def cmd_check(args: argparse.Namespace) -> int:
    """Verify a solution file against an instance file."""
    puzzle = core.get_puzzle(args.puzzle)
    instance = load_instance(puzzle, args.instance)
    text, source = read_input(args.solution)
    solution = puzzle.parse_solution(instance, text, source)
    if solution is None:
        print(f"{source}: claims no solution; only a solver's proof can check that", file=sys.stderr)
        return 1
    problems = puzzle.verify(instance, solution)
    for problem in problems:
        print(f"{source}: {problem}", file=sys.stderr)
    if not problems:
        print("OK", file=sys.stderr)
    return 1 if problems else 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Generate an instance in the puzzle's input format."""
    puzzle = core.get_puzzle(args.puzzle)
    options = {flag.replace("-", "_"): getattr(args, flag.replace("-", "_")) for flag, _, _ in puzzle.generator_options}
    instance = puzzle.generate(options, args.seed)
    write_output(puzzle.write_instance(instance), args.output)
    return 0


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs for encoders; integer values become ints."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise PuzzlesatError(f"option {pair!r}: expected KEY=VALUE")
        options[key] = int(value) if value.lstrip("-").isdigit() else value
    return options


def cmd_export(args: argparse.Namespace) -> int:
    """Write the DIMACS CNF (with sidecar) or the CP-SAT model of an instance."""
    from puzzlesat.encoders import dimacs

    puzzle = core.get_puzzle(args.puzzle)
    text, source = read_input(args.file)
    instance = puzzle.parse(text, source)
    strat, variant = puzzle.strategy(args.strategy)
    options = parse_options(args.option)
    if args.format == "dimacs":
        if strat.encoder is None:
            raise PuzzlesatError(f"strategy {strat.name!r} has no single CNF to export")
        encoding = core.load_target(strat.encoder)(instance, options)
        header = {"puzzle": puzzle.name, "strategy": strat.name, "options": options}
        sidecar = dimacs.write(encoding, Path(args.output), header, puzzle.write_instance(instance))
        print(
            f"c wrote {args.output} ({encoding.cnf.nv} variables, {len(encoding.cnf.clauses)} clauses) and {sidecar}",
            file=sys.stderr,
        )
    else:
        if strat.model is None:
            raise PuzzlesatError(f"strategy {strat.name!r} has no CP-SAT model to export")
        model = core.load_target(strat.model)(instance, options)[0]
        if not model.export_to_file(args.output):
            raise PuzzlesatError(f"{args.output}: CP-SAT could not write the model")
        print(f"c wrote {args.output}", file=sys.stderr)
    del variant
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    """Turn an external SAT solver's answer into the puzzle's solution format."""
    from puzzlesat.encoders import dimacs

    data = dimacs.read_sidecar(Path(args.map))
    puzzle = core.get_puzzle(args.puzzle)
    if data["puzzle"] != puzzle.name:
        raise PuzzlesatError(f"{args.map}: sidecar is for {data['puzzle']!r}, not {puzzle.name!r}")
    instance = puzzle.parse(data["instance"], args.map)
    text, source = read_input(args.answer)
    satisfiable, true_vars = dimacs.read_solver_output(text, source)
    if satisfiable is None:
        print(f"{source}: the solver did not decide", file=sys.stderr)
        return 1
    strat, _ = puzzle.strategy(data["strategy"])
    assert strat.encoder is not None
    encoding = core.load_target(strat.encoder)(instance, data.get("options", {}))
    if int(encoding.cnf.nv) != int(data["variables"]):
        raise PuzzlesatError(
            f"{args.map}: the encoding has changed since export "
            f"({encoding.cnf.nv} variables now, {data['variables']} then)"
        )
    if not satisfiable:
        solution = None
    else:
        names = dimacs.sidecar_keys(data)
        solution = encoding.decode({names[v] for v in true_vars if v in names})
        problems = puzzle.verify(instance, solution)
        if problems:
            raise PuzzlesatError(f"{source}: decoded answer fails the verifier: {problems[0]}")
    write_output(puzzle.format(instance, solution), args.output)
    return 0


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every solving command shares."""
    parser.add_argument("--timeout", type=float, default=None, help="seconds per strategy run")
    parser.add_argument("--seed", type=int, default=0, help="random seed (search order, generators)")
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT workers for one strategy")
    parser.add_argument(
        "--option", "-O", action="append", default=[], help="strategy option KEY=VALUE (see the strategy's docstring)"
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
    from puzzlesat.portfolio import compare
    from puzzlesat.portfolio.backends import Backend

    puzzle = core.get_puzzle(args.puzzle)
    instances = [(path, load_instance(puzzle, path)) for path in args.files]
    text = compare.run_compare(
        puzzle,
        instances,
        args.strategies,
        Limits(timeout=args.timeout, seed=args.seed, workers=args.workers),
        Backend(args.backend, args.address, jobs=args.jobs, memory_mb=args.memory_limit),
        fmt=args.format,
        results=args.results,
        plot=args.plot,
    )
    write_output(text, args.output)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="puzzlesat", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="show puzzles and strategies")
    p.add_argument("puzzle", nargs="?")
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
        for flag, kind, help_text, default in puzzle.solve_options:
            if kind is bool:
                s.add_argument(f"--{flag}", action="store_true", help=help_text)
            else:
                s.add_argument(f"--{flag}", type=kind, default=default, help=help_text)
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
        for flag, kind, help_text in puzzle.generator_options:
            g.add_argument(f"--{flag}", type=kind, default=None, help=help_text)
        g.add_argument("--seed", type=int, default=0)
        g.add_argument("--output", "-o")
        g.set_defaults(func=cmd_generate)

    p = sub.add_parser("export", help="write the DIMACS CNF (+ JSON sidecar) or the CP-SAT model")
    p.add_argument("puzzle")
    p.add_argument("file")
    p.add_argument("--strategy", "-s", required=True, help="the formulation to export")
    p.add_argument("--format", choices=("dimacs", "cpsat"), default="dimacs")
    p.add_argument("--option", "-O", action="append", default=[], help="encoder option KEY=VALUE")
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
