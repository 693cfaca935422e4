"""Hostile use of every verb through the real CLI: one line on stderr, the documented exit code.

Each case runs ``python -m puzzlesat.cli`` in a subprocess, as a user would, and asserts the
exit code, exactly one line on stderr (no traceback) and, where time is the point, a bound.
The parsers' own hostile inputs (sizes, digits, counts) are in ``test_hostile_input.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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


def test_a_full_device_is_one_line() -> None:
    proc, _ = cli("solve", "eternity", E4, "-o", "/dev/full")
    one_line(proc, 2, "/dev/full", "No space left on device")


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
