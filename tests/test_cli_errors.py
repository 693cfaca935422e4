"""Hostile use of every verb through the real CLI: one line on stderr, the documented exit code.

Each case runs ``python -m puzzlesat.cli`` in a subprocess, as a user would, and asserts the
exit code, exactly one line on stderr (no traceback) and, where time is the point, a bound.
The parsers' own hostile inputs (sizes, digits, counts) are in ``test_hostile_input.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from clirun import run_cli

ROOT = Path(__file__).resolve().parents[1]
E4 = str(ROOT / "instances" / "eternity" / "seed_4x4.txt")
M7 = str(ROOT / "instances" / "masyu" / "seed_7x7.txt")
B7 = str(ROOT / "instances" / "blacken" / "seed_7x7.txt")


def cli(*args: str, stdin: str | None = None, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = run_cli(*args, stdin=stdin, timeout=timeout)
    return proc, time.monotonic() - start


def one_line(proc: subprocess.CompletedProcess[str], code: int = 2, *needles: str) -> str:
    """The single stderr line of a run that exited with ``code``; it contains every needle."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


BAD_PATHS = [("/nonexistent-folder/out.txt", "no folder"), ("/tmp", "is a folder"), ("/proc/x/y", "no folder")]


@pytest.mark.parametrize(("path", "why"), BAD_PATHS)
def test_output_paths_fail_before_any_work(path: str, why: str, tmp_path: Path) -> None:
    cnf = tmp_path / "p.cnf"
    assert cli("export", "eternity", E4, "-s", "cnf-heule", "-o", str(cnf))[0].returncode == 0
    (tmp_path / "p.out").write_text("s UNSATISFIABLE\n")
    for args in (
        ("solve", "eternity", E4, "-o", path),
        ("solve", "masyu", M7, "--svg", path + ".svg" if path != "/tmp" else path),
        ("generate", "eternity", "-o", path),
        ("export", "eternity", E4, "-s", "cnf-heule", "-o", path),
        ("decode", "eternity", str(tmp_path / "p.out"), "--map", str(cnf) + ".json", "-o", path),
        ("compare", "eternity", E4, "--strategies", "native-rowscan", "-o", path),
    ):
        proc, took = cli(*args)
        one_line(proc, 2, path, why)
        assert took < 30


def test_export_says_how_to_certify_only_when_asked(tmp_path: Path) -> None:
    cnf = str(tmp_path / "p.cnf")
    quiet, _ = cli("export", "eternity", E4, "-s", "cnf-heule", "-o", cnf)
    told, _ = cli("export", "eternity", E4, "-s", "cnf-heule", "-o", cnf, "-v")
    assert quiet.returncode == told.returncode == 0 and not quiet.stdout and not told.stdout
    assert quiet.stderr.splitlines() == [f"c wrote {cnf} (439 variables, 1369 clauses) and {cnf}.json"]
    assert told.stderr.splitlines()[0] == quiet.stderr.strip() and "--proof PROOF" in told.stderr.splitlines()[1]


def test_a_device_is_refused_as_output() -> None:
    proc, _ = cli("solve", "eternity", E4, "-o", "/dev/full")
    one_line(proc, 2, "/dev/full", "is a character device, not a regular file")


@pytest.mark.parametrize(
    "flags",
    [
        ["-O", "x=²"],
        ["-s", "cnf-heule", "-O", "amoo=1"],
        ["-s", "cnf-heule", "-O", "amo=abc"],
        ["-s", "cnf-heule", "-O", "amo"],
        ["--timeout", "-1"],
        ["--timeout", "0"],
        ["--timeout", "nan"],
        ["--timeout", "inf"],
        ["--seed", "-5"],
        ["--seed", "99999999999999999999999"],
        ["--workers", "0"],
        ["--workers", "-2"],
        ["--workers", "1000"],
        ["--portfolio", "--jobs", "0"],
        ["--portfolio", "--jobs", "1000"],
        ["--portfolio", "--memory-limit", "0"],
        ["--portfolio", "--memory-limit", "1"],
        ["-s", ""],
        ["-s", "cnf-heule:nosuchsolver"],
    ],
)
def test_bad_option_values(flags: list[str]) -> None:
    proc, _ = cli("solve", "eternity", E4, *flags)
    one_line(proc, 2)
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("puzzle", "flags"),
    [
        ("pegsol", ["-s", "native-dfs", "-O", "table_bits=-3"]),
        ("pegsol", ["-s", "cpsat-plan", "-O", "ordering=abc"]),
        ("rubik", ["--metric", "foo"]),
        ("rubik", ["--extra", "-5"]),
        ("rubik", ["--max-depth", "-1"]),
        ("rubik", ["-s", "cnf-bmc", "-O", "horizon=2.5"]),
    ],
)
def test_bad_puzzle_option_values(puzzle: str, flags: list[str]) -> None:
    instance = {"pegsol": "instances/pegsol/english33_center.txt", "rubik": "instances/rubik/scramble_8_seed1.txt"}
    proc, _ = cli("solve", puzzle, instance[puzzle], *flags)
    one_line(proc, 2)


@pytest.mark.parametrize("flags", [["--size", "0"], ["--frame-colours", "0"], ["--size", "x"]])
def test_bad_generator_values(flags: list[str]) -> None:
    one_line(cli("generate", "eternity", *flags)[0], 2)


def test_closed_stdout_is_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", E4],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        cwd=ROOT,
        preexec_fn=lambda: os.close(1),
    )
    assert "Traceback" not in proc.stderr and proc.returncode == 2
    assert "stdout is closed" in proc.stderr


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    """The seed 4x4 board's CNF and sidecar."""
    cnf = tmp_path / "p.cnf"
    assert cli("export", "eternity", E4, "-s", "cnf-heule", "-o", str(cnf))[0].returncode == 0
    return cnf


def test_an_external_unsat_is_a_claim(exported: Path, tmp_path: Path) -> None:
    out = tmp_path / "p.out"
    out.write_text("s UNSATISFIABLE\n")
    proc, _ = cli("decode", "eternity", str(out), "--map", str(exported) + ".json")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == "c UNSATISFIABLE claimed by the external solver, not verified\n"
    assert "SOLUTION NOT FOUND" not in proc.stdout


def test_a_second_status_line_is_refused(exported: Path, tmp_path: Path) -> None:
    out = tmp_path / "p.out"
    out.write_text("s SATISFIABLE\nv 1 2 3 0\ns UNSATISFIABLE\n")
    one_line(cli("decode", "eternity", str(out), "--map", str(exported) + ".json")[0], 2, "second 's' line")


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda text: text[: len(text) // 2],
        lambda text: "\udcff",
        lambda text: "null",
        lambda text: "[1, 2]",
        lambda text: text.replace('"variables": ', '"variables": "x", "old": '),
        lambda text: json.dumps({**json.loads(text), "vars": {"1": 5}}),
        lambda text: json.dumps({**json.loads(text), "puzzle": 7}),
        lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "instance"}),
    ],
)
def test_corrupt_sidecars(corrupt, exported: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sidecar = Path(str(exported) + ".json")
    text = corrupt(sidecar.read_text())
    sidecar.write_bytes(text.encode("utf-8", "surrogateescape"))
    out = tmp_path / "p.out"
    out.write_text("s SATISFIABLE\nv 1 0\n")
    one_line(cli("decode", "eternity", str(out), "--map", str(sidecar))[0], 2, str(sidecar))


@pytest.mark.parametrize("model", ["s SATISFIABLE\nv 0\n", "s SATISFIABLE\n"])
def test_masyu_models_that_describe_no_loop(model: str, tmp_path: Path) -> None:
    cnf = tmp_path / "m.cnf"
    assert cli("export", "masyu", M7, "-s", "cnf-rank", "-o", str(cnf))[0].returncode == 0
    out = tmp_path / "m.out"
    out.write_text(model)
    one_line(cli("decode", "masyu", str(out), "--map", str(cnf) + ".json")[0], 2, "m.out")


def test_an_unproven_optimum_has_its_own_exit_code() -> None:
    # the CNF plan with almost no time: the greedy answer, not a proven optimum
    proc, _ = cli("solve", "blacken", B7, "-s", "cnf-steps", "--timeout", "0.01")
    assert proc.returncode in (1, 3), proc.stderr
    if proc.returncode == 3:
        assert "not proven optimal" in proc.stderr
    proc, _ = cli("solve", "blacken", B7)
    assert proc.returncode == 0 and proc.stdout.startswith("The result is 6.")


def test_timeout_holds_while_a_model_is_built(tmp_path: Path) -> None:
    """A 21x21 board's CNF (the largest the size limit allows) takes far longer than 3 s to build:
    the run still ends near 3 s."""
    board = tmp_path / "e21.txt"
    gen, _ = cli(
        "generate", "eternity", "--size", "21", "--frame-colours", "5", "--inner-colours", "20", "-o", str(board)
    )
    assert gen.returncode == 0
    proc, took = cli("solve", "eternity", str(board), "-s", "cnf-heule", "--timeout", "3")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "time limit" in proc.stderr and took < 3 + 5
    proc, took = cli(
        "export", "eternity", str(board), "-s", "cnf-heule", "-o", str(tmp_path / "e.cnf"), "--timeout", "3"
    )
    one_line(proc, 1, "time limit")
    assert took < 3 + 5


@pytest.mark.parametrize("content", [b'{"a": 1}\n', b"\xff\xfe\n{}\n", b"[1, 2]\n", b'{"puzzle": 1}\n'])
def test_corrupt_results_files(content: bytes, tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    results.write_bytes(content)
    proc, _ = cli("compare", "eternity", E4, "--strategies", "native-rowscan", "--results", str(results))
    one_line(proc, 2, "runs.jsonl:1")


def test_a_results_folder_is_refused(tmp_path: Path) -> None:
    proc, _ = cli("compare", "eternity", E4, "--strategies", "native-rowscan", "--results", str(tmp_path))
    one_line(proc, 2, "is a folder")


# -- every verb's flags read through the shared declarations (issue 29) ---------------------

RECT = ["pegsol", "--board", "rect", "--rows", "1", "--cols", "4"]
COMPARE = ("compare", "eternity", E4, "--strategies", "native-rowscan")
CATALOG = ("catalog", "pegsol", "--board", "rect")


def _flag_cases() -> list[tuple[str, tuple[str, ...], str]]:
    """(id, argv, what the one line names): flags refused by their declarations."""
    cases = []
    for flags in (
        ["--timeout", "0"],
        ["--timeout", "-1"],
        ["--timeout", "nan"],
        ["--timeout", "inf"],
        ["--timeout", "1e400"],
        ["--jobs", "0"],
        ["-j", "-2"],
        ["--jobs", "1000"],
        ["--workers", "0"],
        ["--workers", "1000"],
        ["--seed", "-1"],
        ["--seed", "x"],
        ["--memory-limit", "1"],
        ["--memory-limit", "１"],
    ):
        cases.append((f"compare{''.join(flags)}", (*COMPARE, *flags), "--jobs" if flags[0] == "-j" else flags[0]))
    for flags in (
        ["--timeout", "0"],
        ["--timeout", "nan"],
        ["--jobs", "0"],
        ["--seed", "-1"],
        ["--memory-limit", "1"],
        ["--rows", "0"],
        ["--cols", "x"],
        ["--rows", "100", "--cols", "100"],
    ):
        cases.append((f"catalog{''.join(flags)}", (*CATALOG, *flags), flags[0]))
    for puzzle, flags, names in (
        ("eternity", ["--seed", "-1"], "--seed"),
        ("eternity", ["--size", "1"], "--size"),
        ("eternity", ["--rows", "2", "--cols", "1"], "--cols"),
        ("eternity", ["--frame-colours", "600", "--inner-colours", "600"], "--frame-colours"),
        ("blacken", ["--size", "2"], "--size"),
        ("blacken", ["--size", "3", "--whites", "9"], "--whites"),
        ("blacken", ["--whites", "2", "--components", "3"], "--components"),
        ("masyu", ["--rows", "100", "--cols", "101"], "--rows"),
        ("pegsol", ["--board", "rect", "--rows", "10", "--cols", "9"], "--rows"),
        ("rubik", ["--moves", "-1"], "--moves"),
    ):
        cases.append((f"generate-{puzzle}{''.join(flags)}", ("generate", puzzle, *flags), names))
    for argv, names in (  # the flags each verb spelled by hand before, now read by their declarations
        ((*COMPARE, "--format", "html"), "--format"),
        ((*COMPARE, "--backend", "slurm"), "--backend"),
        ((*COMPARE, "--backend", "ray", "--address", ""), "--address"),
        ((*COMPARE, "--results", ""), "--results"),
        ((*COMPARE, "--plot", ""), "--plot"),
        ((*COMPARE, "-o", ""), "--output"),
        (("compare", "eternity", E4, "--strategies", ""), "--strategies"),
        (("compare", "eternity", E4, "-O", ""), "--option"),
        ((*CATALOG, "--board", "hex"), "--board"),
        ((*CATALOG, "--format", "xml"), "--format"),
        ((*CATALOG, "--strategies", ""), "--strategies"),
        ((*CATALOG, "--results", ""), "--results"),
        (("solve", "eternity", E4, "--svg", ""), "--svg"),
        (("solve", "eternity", E4, "--certify", ""), "--certify"),
        (("solve", "eternity", E4, "--portfolio", "", "--jobs", "1"), "--portfolio"),
        (("solve", "eternity", E4, "--backend", "x"), "--backend"),
        (("export", "eternity", E4, "-s", "cnf-heule", "-o", "p.cnf", "--format", "xml"), "--format"),
        (("export", "eternity", E4, "-s", "cnf-heule"), "--output"),
        (("decode", "eternity", "out.txt", "--map", ""), "--map"),
        (("decode", "eternity", "out.txt"), "--map"),
        (("tables", "build", "rubik", "--metric", "ftm"), "--metric"),
        (("list", "nosuchpuzzle"), "unknown puzzle 'nosuchpuzzle'"),
    ):
        cases.append((" ".join(argv).replace(E4, "E4"), argv, names))
    return cases


FLAG_CASES = _flag_cases()


@pytest.fixture(scope="module")
def flag_runs() -> dict[str, tuple[subprocess.CompletedProcess[str], float]]:
    """Every refused flag, run a few at a time (start-up dominates, so they overlap well)."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = pool.map(lambda case: cli(*case[1]), FLAG_CASES)
        return dict(zip((case[0] for case in FLAG_CASES), runs, strict=True))


@pytest.mark.parametrize(("name", "argv", "names"), FLAG_CASES, ids=[case[0] for case in FLAG_CASES])
def test_flags_are_read_by_their_declarations(
    name: str, argv: tuple[str, ...], names: str, flag_runs: dict[str, tuple[subprocess.CompletedProcess[str], float]]
) -> None:
    proc, took = flag_runs[name]
    line = one_line(proc, 2)
    assert names in line or (names in ("--jobs", "--workers") and "cores" in line), line
    assert proc.stdout == "" and took < 60


def test_a_scramble_of_no_moves_is_the_solved_cube() -> None:
    proc, _ = cli("generate", "rubik", "--moves", "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == "UF UR UB UL DF DR DB DL FR FL BR BL UFR URB UBL ULF DRF DFL DLB DBR".split()


@pytest.mark.parametrize("timeout", ["1e10", "1e300", "9999999999.5"])
def test_any_finite_timeout_works(timeout: str) -> None:
    proc, _ = cli("solve", "eternity", E4, "--timeout", timeout)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    proc, _ = cli("solve", "eternity", E4, "-s", "cnf-heule", "--timeout", timeout)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


# -- outputs never land on an input, nor on each other ---------------------------------------


def _copy(src: str, folder: Path, name: str) -> Path:
    target = folder / name
    target.write_bytes(Path(src).read_bytes())
    return target


def test_outputs_never_land_on_an_input(tmp_path: Path) -> None:
    board = _copy(E4, tmp_path, "board.txt")
    grid = _copy(M7, tmp_path, "grid.txt")
    answer = _copy(str(ROOT / "instances" / "eternity" / "seed_4x4.sol"), tmp_path, "board.sol")
    cnf = tmp_path / "p.cnf"
    assert cli("export", "eternity", str(board), "-s", "cnf-heule", "-o", str(cnf))[0].returncode == 0
    out = tmp_path / "p.out"
    out.write_text("s SATISFIABLE\nv 1 0\n")
    link = tmp_path / "link.txt"
    link.symlink_to(board)
    before = {path: path.read_bytes() for path in (board, grid, answer, out, Path(str(cnf) + ".json"))}
    same = str(tmp_path / "same.out")
    for args, needle in (
        (("solve", "eternity", str(board), "-o", str(board)), "--output"),
        (("solve", "eternity", str(board), "-o", str(link)), "--output"),
        (("solve", "masyu", str(grid), "--svg", str(grid)), "--svg"),
        (("solve", "masyu", str(grid), "--svg", same, "-o", same), "--svg"),
        (("check", "eternity", str(board), str(answer), "--svg", str(answer)), "--svg"),
        (("check", "eternity", str(board), str(answer), "--svg", str(board)), "--svg"),
        (("export", "eternity", str(board), "-s", "cnf-heule", "-o", str(board)), "--output"),
        (("decode", "eternity", str(out), "--map", str(cnf) + ".json", "-o", str(out)), "--output"),
        (("decode", "eternity", str(out), "--map", str(cnf) + ".json", "-o", str(cnf) + ".json"), "--output"),
        (("compare", "eternity", str(board), "--strategies", "native-rowscan", "--results", str(board)), "--results"),
        (("compare", "eternity", str(board), "--strategies", "native-rowscan", "-o", str(board)), "--output"),
        (("compare", "eternity", str(board), "--results", same, "-o", same), "--results"),
        (("compare", "eternity", str(board), "--plot", same + ".png", "-o", same + ".png"), "--plot"),
        (("catalog", *RECT, "--results", same, "-o", same), "--results"),
    ):
        proc, took = cli(*args)
        one_line(proc, 2, needle, "name this file")
        assert took < 30
    sidecar_over_input = tmp_path / "q.cnf.json"  # an instance named like the sidecar export writes
    sidecar_over_input.write_text("{}")
    proc, _ = cli("export", "eternity", str(sidecar_over_input), "-s", "cnf-heule", "-o", str(tmp_path / "q.cnf"))
    one_line(proc, 2, "sidecar", "name this file")
    assert all(path.read_bytes() == content for path, content in before.items())


def test_a_plot_format_is_checked_before_the_runs(tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    proc, took = cli(
        "compare", "eternity", E4, "--strategies", "native-rowscan", "--results", str(results), "--plot", "x.xyz"
    )
    one_line(proc, 2, "x.xyz", ".xyz")
    assert not results.exists() and took < 30


@pytest.mark.parametrize(
    "line",
    [
        "4 5\n",  # an instance file given as --results
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "DONE", "time": 1, "elapsed": 1}\n',
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "SOLVED", "time": -1, "elapsed": 1}\n',
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "SOLVED", "time": NaN, "elapsed": 1}\n',
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "SOLVED", "time": 1, "seed": -1}\n',
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "SOLVED", "time": 1, "workers": 0}\n',
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "SOLVED", "time": 1, "objective": 1.5}\n',
        '{"puzzle": "eternity", "instance": "a", "strategy": "s", "status": "SOLVED", "time": 1, "message": 5}\n',
    ],
)
def test_results_records_are_checked_field_by_field(line: str, tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    results.write_text(line)
    proc, _ = cli("compare", "eternity", E4, "--strategies", "native-rowscan", "--results", str(results))
    one_line(proc, 2, "runs.jsonl:1")
    assert results.read_text() == line


def test_a_torn_record_is_still_skipped(tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    results.write_text('{"puzzle": "eternity", "inst')
    proc, _ = cli("compare", "eternity", E4, "--strategies", "native-rowscan", "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    assert len(results.read_text().splitlines()) == 2


# -- sidecars: every entry checked, errors name the file ---------------------------------------


@pytest.mark.parametrize(
    ("entry", "value", "says"),
    [
        ("strategy", "native-rowscan", "no CNF encoding"),
        ("strategy", "cpsat-table", "no CNF encoding"),
        ("strategy", "nosuch", "'strategy'"),
        ("puzzle", "sudoku", "'puzzle'"),
        ("options", {"amoo": 1}, "'options'"),
        ("options", {"amo": "maybe"}, "'options'"),
        ("instance", "4 5\n0 1 2 0\n", "16 tile lines"),
        ("instance_sha256", "0" * 16, "instance_sha256"),
        ("variables", -1, "negative"),
        ("vars", {"1": ["x", 0, 0, 0]}, "variable map"),
    ],
)
def test_sidecar_entries_are_checked(entry: str, value: object, says: str, exported: Path, tmp_path: Path) -> None:
    sidecar = Path(str(exported) + ".json")
    data = json.loads(sidecar.read_text())
    data[entry] = value
    if entry == "instance":
        data.pop("instance_sha256")
    sidecar.write_text(json.dumps(data))
    out = tmp_path / "p.out"
    out.write_text("s SATISFIABLE\nv " + " ".join(map(str, range(1, 300))) + " 0\n")
    line = one_line(cli("decode", "eternity", str(out), "--map", str(sidecar))[0], 2, says)
    assert str(sidecar) in line, line


# -- maxsat-rc2 where an edge can match no colour ---------------------------------------------


def test_maxsat_with_an_edge_no_colour_can_match(tmp_path: Path) -> None:
    board = tmp_path / "apart.txt"
    board.write_text("2 9\n0 0 1 2\n0 0 3 4\n0 0 5 6\n0 0 7 8\n")  # no two tiles share a colour
    proc, _ = cli("solve", "eternity", str(board), "-s", "maxsat-rc2")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == "SOLUTION NOT FOUND\n" and "misses 4 edges" in proc.stderr
    proc, _ = cli("solve", "eternity", str(board), "-s", "maxsat-rc2", "--score")
    assert proc.returncode == 0 and "cost=4" in proc.stderr, proc.stderr


# -- Ctrl-C: exit 130 and one line under every kind of strategy ---------------------------------


@pytest.mark.parametrize(("strategy", "wait"), [("cnf-heule", 6), ("cpsat-table", 6), ("cpsat-table", 1.5)])
def test_ctrl_c_in_a_solver_exits_130(strategy: str, wait: float) -> None:
    """SIGINT while the C solver runs (the 8x8 board takes both over 30 s): no traceback, 130,
    and no abort from CP-SAT's threads at the exit (which took a third of the early ones)."""
    hard = str(ROOT / "instances" / "eternity" / "peak_8x8_b4_m9_s1.txt")
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlesat.cli", "solve", "eternity", hard, "-s", strategy, "--timeout", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        time.sleep(wait)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert time.monotonic() - start < 10
    assert proc.returncode == 130 and out == "", (proc.returncode, err)
    assert err.strip() == "puzzlesat: interrupted", err


def test_a_reader_that_goes_away_is_no_traceback() -> None:
    """``puzzlesat ... | true``: the reader is gone before the answer is written; at most one line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlesat.cli", "generate", "eternity", "--size", "21", "--inner-colours", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the child has even imported puzzlesat
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) in (1, 2) and "Traceback" not in err and len(err.splitlines()) <= 1, err
