"""puzzlesat: solve, compare, export and check hard combinatorial puzzles.

Results go to stdout in each puzzle's original format; logs, progress and tables to stderr.
Exit codes: 0 answered (a solution, or a proof that none exists; for blacken and rubik, a
proven optimum), 1 unsolved, check failed, or an external solver's unverified claim, 2 bad
input or usage, 3 an answer that is not proven optimal (blacken, rubik, eternity --score), 130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from puzzlesat import api, core
from puzzlesat.cli_parser import build_parser
from puzzlesat.core import Option, PuzzlesatError, Result, Status, Strategy, progress, registry
from puzzlesat.core.arguments import CORES, TIMEOUT, distinct, writable
from puzzlesat.core.arguments import cores as check_cores_of
from puzzlesat.core.deadline import DeadlineExceeded, hard_deadline
from puzzlesat.core.interrupts import is_solver_interrupt
from puzzlesat.core.options import parse_pairs


def source(path: str) -> api.Source:
    """The instance or answer argument: a path, or ``-`` for stdin."""
    return sys.stdin if path == "-" else Path(path)


NOT_PROVEN_OPTIMAL = 3


class ProgressDisplay:
    """The command line's progress callback: on a terminal a bar redrawn in place under the
    lines, elsewhere (a file, a pipe) only the lines, never a carriage return."""

    def __init__(self, stream: TextIO | None = None, interval: float = 0.2) -> None:
        self._stream = stream
        self.interval = interval
        self._last = 0.0
        self._shown = False

    @property
    def stream(self) -> TextIO:
        """The stream given, else stderr as it is now (a test may have replaced it)."""
        return self._stream or sys.stderr

    @property
    def live(self) -> bool:
        """True on a terminal."""
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):  # a closed or odd stream: no bar
            return False

    def __call__(self, event: progress.Progress) -> None:
        if event.kind == progress.LINE:
            self.clear()
            self.stream.write(event.text + "\n")
            self.stream.flush()
        elif event.kind == progress.END:
            self.clear()
        elif time.monotonic() - self._last >= self.interval and self.live:
            self._last = time.monotonic()
            self.stream.write("\r" + bar_text(event)[: self._columns() - 1] + "\x1b[K")
            self.stream.flush()
            self._shown = True

    def clear(self) -> None:
        """Take the bar away (before a line, at the end of a task or of the command)."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
            self._last = 0.0

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            return 100


def bar_text(event: progress.Progress, width: int = 30) -> str:
    """One update as a line: the task, a bar and a percentage when the share done is known.

    >>> bar_text(progress.Progress("update", "c building tables", 0.5, "depth 7"))
    'c building tables [###############...............]  50.0% depth 7'
    """
    parts = [event.text]
    if event.fraction is not None:
        filled = int(width * event.fraction)
        parts.append(f"[{'#' * filled}{'.' * (width - filled)}] {100 * event.fraction:5.1f}%")
    if event.detail:
        parts.append(event.detail)
    return " ".join(parts)


DISPLAY = ProgressDisplay()


def outputs(args: argparse.Namespace, read: Iterable[tuple[str, str]] = (), **extra: str | None) -> None:
    """Check the files a command writes before any work: each can be created, and none is
    one of the files it reads or another output (``-o`` over the instance, ``--results`` over
    ``--plot``).  The files written are the values of the verb's flags declared ``writes``,
    and ``extra`` (what names them: the file), e.g. export's sidecar."""
    written = {opt.flag: getattr(args, opt.name) for opt in args.declared if opt.writes}
    written |= {what.replace("_", " "): path for what, path in extra.items()}
    for path in written.values():
        writable(path)
    hints = getattr(args, "hints", None)
    distinct(written.items(), [*read, ("the --hints file", hints)])


def write_output(text: str, path: str | None) -> None:
    """Write to a file, or to stdout when no path is given; a failed write is one line."""
    try:
        if path:
            Path(path).write_text(text)
        elif sys.stdout is None:
            raise PuzzlesatError("cannot write the answer: stdout is closed")
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except OSError as exc:
        raise PuzzlesatError(f"{path or '<stdout>'}: cannot write: {exc.strerror or exc}") from None


def given_options(args: argparse.Namespace) -> dict[str, Any]:
    """The puzzle's flags the user set, and the ``-O KEY=VALUE`` pairs."""
    return flag_values(args, args.puzzle.solve_options) | parse_pairs(args.option)


def flag_values(args: argparse.Namespace, options: tuple[Option, ...]) -> dict[str, Any]:
    """The values of these declared flags that the user set."""
    values = {opt.name: getattr(args, opt.name) for opt in options}
    return {name: value for name, value in values.items() if value is not None}


def load(args: argparse.Namespace, path: str) -> api.Instance:
    """The instance named on the command line, completed by the puzzle's instance flags (``--hints``)."""
    return api.load(args.puzzle, source(path), **flag_values(args, args.puzzle.instance_options))


def cmd_list(args: argparse.Namespace) -> int:
    """Show puzzles and their strategies (``-v``: with their modes and options); a plugin that
    fails to load is one line on stderr, the others are listed."""
    puzzles = [args.puzzle] if args.puzzle else core.available_puzzles()
    for puzzle in puzzles:
        plugin = registry.origin(puzzle.name)
        print(
            f"{puzzle.name}  (portfolio: {', '.join(puzzle.portfolio) or 'every strategy'})"
            + (f"  [{plugin}]" if plugin else "")
        )
        for strat in puzzle.all_strategies():
            label = strat.name + (f":<{'|'.join(strat.variants)}>" if strat.variants else "")
            formula = "export wcnf" if strat.engine == "maxsat" else "export dimacs"  # RC2 reads weighted CNF
            extra = [flag for flag, on in ((formula, strat.encoder), ("export cpsat", strat.model)) if on]
            added = registry.origin(puzzle.name, strat.name)
            if added and added != plugin:  # a plugin's strategy for another puzzle
                extra.append(added)
            note = f"  [{', '.join(extra)}]" if extra else ""
            print(f"  {label}\n      {strat.summary}{note}")
            if args.verbose:
                split = f", splits over --workers (default: all {CORES} cores)" if strat.parallel else ", one process"
                print(f"      engine: {strat.engine}{split}")
                if puzzle.modes:
                    print(f"      modes: {served_modes(puzzle, strat)}")
                for opt in strat.options:
                    print(f"      -O {describe(opt)}")
        for what, options in (
            ("instance flags (solve, check, export)", puzzle.instance_options),
            ("solve flags (modes only for the strategies that list them)", puzzle.solve_options),
            ("check flags", puzzle.check_options),
        ):
            if args.verbose and options:
                print(f"  {what}:")
                for opt in options:
                    print(f"      {opt.flag} {describe(opt)}")
    for problem in registry.problems():
        print(f"puzzlesat: {problem}", file=sys.stderr)
    return 0


def served_modes(puzzle: core.Puzzle, strat: Strategy) -> str:
    """The puzzle's modes a strategy serves, for ``list -v``: ``count (not kissat404), score``, or ``none``."""
    served = []
    for mode in puzzle.modes:
        if mode in strat.modes:
            served.append(mode)
        elif strat.serves(mode):
            missing = [v for v in strat.variants if not strat.serves(mode, v)]
            served.append(f"{mode} (not {', '.join(missing)})")
    return ", ".join(served) or "none"


def describe(opt: Option) -> str:
    """``name=TYPE (default D)  help``, one line of ``list -v``."""
    kind = "|".join(opt.choices) if opt.choices else opt.type.__name__
    default = "" if opt.default is None else f" (default {opt.default})"
    return f"{opt.name}={kind}{default}  {opt.help}"


def report(instance: api.Instance, result: Result, args: argparse.Namespace) -> int:
    """Print a result (seed format or JSON) and return the exit code.

    An optimisation answer without a proof of optimality (SOLVED for an optimisation puzzle,
    FEASIBLE for a best-score board) exits with 3 and says so on stderr: the seed's format
    ("The result is N.") has no room for it.  A plugin's INFEASIBLE without a checked proof
    is printed as a claim (``c INFEASIBLE claimed by ...``) and exits 1, as ``decode`` prints
    an external solver's.
    """
    puzzle = instance.puzzle
    claim = api.unproved_claim(instance, result)
    unproven = (puzzle.optimisation and result.status is Status.SOLVED) or result.status is Status.FEASIBLE
    if args.json:
        data = result.to_json(puzzle, instance.data)
        if result.certificates:
            from puzzlesat.core import certify

            data["certificate"] = certify.block(result.certificates)
        import json

        write_output(json.dumps(data) + "\n", args.output)
    elif claim is not None:  # said, not proved: printed as a claim, as decode prints an external solver's
        write_output(f"c {claim}\n", args.output)
    elif result.status.is_final or result.status is Status.FEASIBLE:
        write_output(api.format(instance, result), args.output)
    stats = " ".join(f"{k}={v}" for k, v in result.stats.items())
    print(
        f"c {result.strategy}: {result.status.value} in {result.wall_time:.3f}s {stats} {result.message}".rstrip(),
        file=sys.stderr,
    )
    for cert in result.certificates:
        print(cert.line(), file=sys.stderr)
    if unproven:
        print("c the answer is not proven optimal (exit code 3)", file=sys.stderr)
        return NOT_PROVEN_OPTIMAL
    return 0 if result.status.is_final and claim is None else 1


def read_instance(args: argparse.Namespace) -> tuple[api.Instance, float | None]:
    """Read ``args.file`` within ``--timeout``; the instance, and the time left for the rest
    (at least the smallest limit the library takes)."""
    started = time.monotonic()
    with hard_deadline(args.timeout, f"reading {args.file}"):
        instance = load(args, args.file)
    if args.timeout is None:
        return instance, None
    return instance, max(args.timeout - (time.monotonic() - started), TIMEOUT.low or 0.0)


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve one instance with one strategy, or race several (``--portfolio``)."""
    if args.portfolio and args.file == "-" and Path(args.portfolio).is_file():
        args.file, args.portfolio = args.portfolio, ()  # `--portfolio FILE`: the optional value took the file
    if args.address and args.backend == "local":
        raise PuzzlesatError("--address needs --backend ray")
    check_cores(args)
    options = given_options(args)
    picture_first(args)
    outputs(args, [("the instance", args.file)])
    instance, timeout = read_instance(args)
    if args.portfolio is not None:
        result = api.race(
            instance,
            args.portfolio,
            timeout=timeout,
            jobs=args.jobs,
            backend=args.backend,
            address=args.address,
            seed=args.seed,
            memory_limit=args.memory_limit,
            stream=sys.stderr,
            on_progress=DISPLAY,
            certify=args.certify,
            **options,
        )
    else:
        if args.memory_limit:  # processes imports psutil and multiprocessing: not for every small solve
            from puzzlesat.core.processes import cap_memory

            cap_memory(args.memory_limit)  # this process, and the workers it forks
        result = api.solve(
            instance,
            args.strategy,
            timeout=timeout,
            seed=args.seed,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            on_progress=DISPLAY,
            certify=args.certify,
            **options,
        )
    own = {opt.name for opt in instance.puzzle.solve_options}  # a strategy's options are not the notes'
    show(api.notes(instance, result, **{k: v for k, v in options.items() if k in own}))
    code = report(instance, result, args)
    if args.svg:  # after the answer: a picture that fails (a plugin's draw) loses nothing
        write_output(api.draw(instance, result), args.svg)
    return code


def picture_first(args: argparse.Namespace) -> None:
    """Before any work: ``--svg FILE`` can be written, and the puzzle can draw itself."""
    if args.svg:
        writable(args.svg)
        if args.puzzle.draw is None:
            raise PuzzlesatError(f"--svg: {args.puzzle.name} has no picture")


def show(lines: list[str]) -> None:
    """Lines the library returned for a person to read (a score, a URL), on stderr."""
    for line in lines:
        print(line, file=sys.stderr)


def check_cores(args: argparse.Namespace) -> None:
    """``--workers`` and ``--jobs`` may not ask for more cores than this machine has (Ray's may)."""
    for flag, value in (("--workers", args.workers), ("--jobs", args.jobs)):
        check_cores_of(flag, value, args.backend)


def cmd_check(args: argparse.Namespace) -> int:
    """Verify a solution file against an instance file."""
    puzzle = args.puzzle
    options = flag_values(args, puzzle.check_options)
    outputs(args, [("the instance", args.instance), ("the solution", args.solution)])
    picture_first(args)
    instance = load(args, args.instance)
    text, name = api.read_source(source(args.solution))
    proof = puzzle.check_argument is not None and text.lstrip().startswith("{")  # solve --certify's NAME.json
    solution = None if proof else puzzle.parse_solution(instance.data, text, name)
    problems = api.check(instance, text if proof or solution is None else solution, name, **options)
    if args.svg:  # drawn even when the check fails: the picture shows where
        write_output(api.draw(instance, solution), args.svg)
    for problem in problems:
        print(f"{name}: {problem}", file=sys.stderr)
    if not problems:
        if not proof:
            show(api.notes(instance, solution, **options))
        print("OK", file=sys.stderr)
    return 1 if problems else 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Generate an instance in the puzzle's input format."""
    outputs(args)
    params = flag_values(args, args.puzzle.generator_options)
    instance = api.generate(args.puzzle, args.seed, **params)
    write_output(instance.text, args.output)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write the DIMACS CNF (with sidecar) or the CP-SAT model of an instance."""
    outputs(args, [("the instance", args.file)], the_sidecar=None if args.format == "cpsat" else args.output + ".json")
    instance, timeout = read_instance(args)
    done = api.export(instance, args.strategy, args.output, args.format, timeout=timeout, **parse_pairs(args.option))
    if done.sidecar is not None:
        print(
            f"c wrote {done.path} ({done.variables} variables, {done.clauses} clauses) and {done.sidecar}",
            file=sys.stderr,
        )
        if args.verbose:
            print(
                f"c solve it outside, an UNSAT answer certified by its text DRAT proof: cadical --no-binary "
                f"{done.path} PROOF > OUT; puzzlesat decode {args.puzzle.name} OUT --map {done.sidecar} --proof PROOF",
                file=sys.stderr,
            )
    else:
        print(f"c wrote {done.path}", file=sys.stderr)
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    """Turn an external SAT solver's answer into the puzzle's solution format."""
    outputs(args, [("the answer", args.answer), ("--map", args.map), ("--proof", args.proof)])
    decoded = api.decode(args.map, source(args.answer), args.puzzle, proof=args.proof)
    if decoded.satisfiable is None:
        print(f"{'<stdin>' if args.answer == '-' else args.answer}: the solver did not decide", file=sys.stderr)
        return 1
    cert = decoded.certificate
    if decoded.satisfiable is False and cert is not None and cert.checked:
        write_output(f"c UNSATISFIABLE certified: {cert.how}, {cert.proof_bytes} bytes of proof\n", args.output)
        return 0
    if decoded.satisfiable is False and cert is not None:
        write_output(f"c UNSATISFIABLE claimed by the external solver; {cert.how}: {cert.reason}\n", args.output)
        return 1
    if decoded.satisfiable is False:  # a claim: only a checked DRAT proof (--proof) would settle it
        write_output("c UNSATISFIABLE claimed by the external solver, not verified\n", args.output)
        return 1
    write_output(api.format(decoded.instance, decoded.solution), args.output)
    return 0


def cmd_tables(args: argparse.Namespace) -> int:
    """Show the tables solvers keep in the cache folder, or build a set ahead of the solves that need it."""
    if args.action == "build":
        try:
            done = api.build_tables(args.puzzle, args.set, args.metric, on_progress=DISPLAY)
        except KeyboardInterrupt:
            again = " ".join(["puzzlesat tables build", args.puzzle, *([args.set] if args.set else [])])
            print(f"\nc stopped: `{again}` resumes the build", file=sys.stderr)
            raise
        size = f"{done.disk_mb:.0f}" if done.disk_mb >= 10 else f"{done.disk_mb:.1f}"
        print(
            f"c {args.puzzle} {done.name} {done.metric} tables built: {size} MB in {done.path.parent}",
            file=sys.stderr,
        )
        return 0
    sets = api.table_sets()
    lines = [
        f"rubik tables in {sets[0].path.parent} (build times measured: docs/rubik.md, Tables)",
        f"{'set':10} {'metric':6}  {'state':14} {'on disk':>9} {'search needs':>12}  build time",
    ]
    for t in sets:
        state = f"partial ({100 * t.done:.0f}%)" if t.state == "partial" else t.state
        took = (
            "" if t.build_seconds is None else f"{t.build_seconds:.0f} s" + (" so far" if t.state == "partial" else "")
        )
        disk = "-" if not t.disk_mb else f"{t.disk_mb:.0f} MB" if t.disk_mb >= 10 else f"{t.disk_mb:.1f} MB"
        lines.append(f"{t.name:10} {t.metric:6}  {state:14} {disk:>9} {t.search_mb:>9} MB  {took}".rstrip())
    write_output("\n".join(lines) + "\n", None)
    return 0


def cmd_kernels(args: argparse.Namespace) -> int:
    """Show the kernels compiled ahead of time, or build them now."""
    if args.action == "build":
        api.build_kernels(args.names, on_progress=DISPLAY)
        return 0
    lines = [f"{'kernels':10} {'state':7} {'on disk':>8}  file"]
    for k in api.kernel_builds():
        lines.append(f"{k.name:10} {k.state:7} {k.disk_mb:>5.2f} MB  {k.path}")
    write_output("\n".join(lines) + "\n", None)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Run every strategy on every instance in separate processes; print a table."""
    check_cores(args)
    outputs(args, [("the instance", path) for path in args.files])
    if args.plot:
        api.plot_path(args.plot)  # a format matplotlib cannot draw is refused before the runs
    instances = [load(args, path) for path in args.files]
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
        stream=None,
        on_progress=DISPLAY,
        **given_options(args),
    )
    if args.plot:
        runs.plot(args.plot)
    write_output(runs.table(args.format), args.output)
    return 0


def cmd_catalog(args: argparse.Namespace) -> int:
    """Settle every single vacancy -> single survivor problem of a board; print the catalog."""
    check_cores(args)
    outputs(args)
    entries = api.catalog(
        args.puzzle,
        args.board,
        rows=args.rows,
        cols=args.cols,
        timeout=args.timeout,
        jobs=args.jobs,
        results=args.results,
        strategies=args.strategies,
        seed=args.seed,
        memory_limit=args.memory_limit,
        on_progress=DISPLAY,
    )
    write_output(entries.table(args.format), args.output)
    return 0


COMMANDS = {
    "list": cmd_list,
    "solve": cmd_solve,
    "compare": cmd_compare,
    "catalog": cmd_catalog,
    "check": cmd_check,
    "generate": cmd_generate,
    "export": cmd_export,
    "tables": cmd_tables,
    "kernels": cmd_kernels,
    "decode": cmd_decode,
}
"""What each verb of :func:`~puzzlesat.cli_parser.build_parser` runs."""


def command_process() -> None:
    """Settings for a process that runs one command and ends (not a call from Python code).

    numpy's OpenBLAS starts threads at import that spin a while, waiting for work: about 50 ms
    of CPU, a third of a small warm solve; nothing here multiplies float matrices, so one
    thread (in the processes this one starts too) unless the user sets more.  At exit, the
    objects still alive are frozen, so that the interpreter's last garbage collections skip
    them (about 13 ms with numpy loaded; the system takes the memory back).
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    atexit.register(gc.freeze)  # the first registered runs last


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``puzzlesat`` console script (``argv`` None: the process's command line)."""
    if argv is None:
        command_process()
    code = run(sys.argv[1:] if argv is None else argv)
    cpsat = sys.modules.get("puzzlesat.models.cpsat")  # not imported: no CP-SAT ran (5 ms a command spared)
    if argv is None and cpsat is not None and cpsat.solving():  # Ctrl-C in its presolve: leave without the teardown
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def run(argv: list[str]) -> int:
    """One command: its exit code, every error as one line on stderr."""
    try:
        args = build_parser(argv, __doc__).parse_args(argv)
        return int(COMMANDS[args.command](args))
    except DeadlineExceeded as exc:
        print(f"puzzlesat: {exc}", file=sys.stderr)
        return 1
    except PuzzlesatError as exc:
        print(f"puzzlesat: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("puzzlesat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`| head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        return 1
    except Exception as exc:
        if not is_solver_interrupt(exc):  # a solver library's own Ctrl-C error
            raise
        print("puzzlesat: interrupted", file=sys.stderr)
        return 130
    finally:
        DISPLAY.clear()  # no bar left behind, whatever ended the command


if __name__ == "__main__":
    sys.exit(main())
