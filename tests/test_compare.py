"""``compare``: every strategy on every instance in its own process; tables, resume, plot."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import portfolio_fixtures as fx  # noqa: E402

from puzzlesat import api  # noqa: E402
from puzzlesat.core import Limits, PuzzlesatError  # noqa: E402
from puzzlesat.portfolio import compare as cmp  # noqa: E402
from puzzlesat.portfolio.backends import Backend  # noqa: E402

INSTANCES = [("sq49.txt", fx.Number(49)), ("n50.txt", fx.Number(50))]
FAST = "fork"  # the CLI test below uses the default (spawn); fork saves start-up time here


@pytest.fixture(autouse=True)
def no_children_left():
    yield
    left = fx.children_left()
    assert not left, f"processes left behind: {[(p.pid, p.cmdline()[:3]) for p in left]}"


@pytest.fixture(scope="module")
def records() -> list[cmp.Record]:
    recs = cmp.compare(
        fx.PUZZLE,
        INSTANCES,
        ["exact", "hang", "crash", "liar"],
        Limits(timeout=1.0),
        Backend(jobs=2, memory_mb=500, start_method=FAST),
    )
    assert not fx.children_left()
    return recs


def test_every_strategy_runs_on_every_instance(records):
    got = {(r.instance, r.strategy): r for r in records}
    assert len(records) == 8
    assert got["sq49.txt", "exact"].status == "SOLVED"
    assert got["n50.txt", "exact"].status == "INFEASIBLE"
    for name in INSTANCES:
        hang = got[name[0], "hang"]
        assert hang.status == "UNKNOWN" and hang.time is None and hang.elapsed is not None
        assert got[name[0], "crash"].status == "ERROR"
        assert got[name[0], "liar"].status == "ERROR" and "verifier" in got[name[0], "liar"].message
    # input order: instances, then strategies
    assert [(r.instance, r.strategy) for r in records][:4] == [
        ("sq49.txt", "exact"),
        ("sq49.txt", "hang"),
        ("sq49.txt", "crash"),
        ("sq49.txt", "liar"),
    ]


def test_markdown_table(records):
    text = cmp.render(records, "markdown")
    lines = text.splitlines()
    assert lines[0] == "| instance | exact | hang | crash | liar |"
    assert lines[1] == "|---|---:|---:|---:|---:|"
    row = next(line for line in lines if line.startswith("| sq49.txt"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].startswith("**") and cells[2] == "timeout" and cells[3] == "ERROR"
    assert "(unsat)" in next(line for line in lines if line.startswith("| n50.txt"))
    assert "| solved | 2/2 | 0/2 | 0/2 | 0/2 |" in lines
    assert any(line.startswith("| PAR-2 (s) |") for line in lines)


def test_csv_and_json(records):
    rows = list(csv.DictReader(io.StringIO(cmp.render(records, "csv"))))
    assert len(rows) == 8 and {r["status"] for r in rows} == {"SOLVED", "INFEASIBLE", "UNKNOWN", "ERROR"}
    data = json.loads(cmp.render(records, "json"))
    assert len(data) == 8 and data[0]["strategy"] == "exact" and data[0]["timeout"] == 1.0
    with pytest.raises(PuzzlesatError, match="format"):
        cmp.render(records, "xml")


def test_results_file_resumes_and_survives_a_torn_line(tmp_path, capsys):
    results = tmp_path / "runs.jsonl"
    first = cmp.compare(
        fx.PUZZLE, INSTANCES, ["exact"], Limits(timeout=5), Backend(memory_mb=500, start_method=FAST), results=results
    )
    assert len(results.read_text().splitlines()) == 2
    with results.open("a") as fh:
        fh.write('{"puzzle": "fixture-root", "inst')  # an interrupted write
    second = cmp.compare(
        fx.PUZZLE,
        INSTANCES,
        ["exact", "unknown"],
        Limits(timeout=5),
        Backend(memory_mb=500, start_method=FAST),
        results=results,
        stream=sys.stderr,
    )
    assert "2 of 4 runs taken from the results file" in capsys.readouterr().err
    reused = {(r.instance, r.strategy): r for r in second}
    for rec in first:
        assert reused[rec.instance, rec.strategy] == rec  # not run again: same times
    assert reused["sq49.txt", "unknown"].status == "UNKNOWN"
    assert len(cmp.load_results(results)) == 4
    # another timeout is another comparison: nothing reused
    cmp.compare(
        fx.PUZZLE,
        INSTANCES[:1],
        ["exact"],
        Limits(timeout=6),
        Backend(memory_mb=500, start_method=FAST),
        results=results,
    )
    assert len(cmp.load_results(results)) == 5  # run again and recorded (equal times can happen)
    # other workers or other options: other comparisons too
    for limits in (Limits(timeout=5, workers=2), Limits(timeout=5, options={"log": str(tmp_path / "log")})):
        cmp.compare(
            fx.PUZZLE, INSTANCES[:1], ["exact"], limits, Backend(memory_mb=500, start_method=FAST), results=results
        )
    assert len(cmp.load_results(results)) == 7
    assert [r.workers for r in cmp.load_results(results)][-2:] == [2, 1]


def test_cactus_plot(records, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "cactus.png"
    cmp.cactus_plot(records, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_a_clear_error(records, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PuzzlesatError, match="matplotlib"):
        cmp.cactus_plot(records, tmp_path / "x.png")
    with pytest.raises(PuzzlesatError, match="pip install"):
        api.require_matplotlib()


def test_optimisation_records_count_only_proven_optima():
    recs = cmp.compare(
        fx.OPT_PUZZLE, INSTANCES[1:], ["optimal", "good"], Limits(timeout=1), Backend(memory_mb=500, start_method=FAST)
    )
    text = cmp.render(recs, "markdown", optimisation=True)
    assert "(obj 8)" in text and "obj 8, no proof" in text
    assert "| solved | 1/1 | 0/1 |" in text


def _eternity_ready() -> bool:
    """The edge-matching strategies exist (found, not imported: the parent stays light and thread-free)."""
    from importlib.util import find_spec

    return all(find_spec(f"puzzlesat.{layer}.eternity") is not None for layer in ("models", "encoders", "native"))


@pytest.mark.skipif(not _eternity_ready(), reason="eternity strategies not available")
def test_cli_compare_on_generated_edge_matching(tmp_path):
    from puzzlesat.domains import eternity

    files = []
    for seed in (1,):
        path = tmp_path / f"e4_{seed}.txt"
        path.write_text(
            eternity.write_instance(eternity.generate({"size": 4, "frame_colours": 2, "inner_colours": 2}, seed))
        )
        files.append(str(path))
    results = tmp_path / "runs.jsonl"
    args = [
        sys.executable,
        "-m",
        "puzzlesat.cli",
        "compare",
        "eternity",
        *files,
        "--strategies",
        "native-rowscan,cnf-heule",
        "--timeout",
        "60",
        "--jobs",
        "2",
        "--format",
        "csv",
        "--results",
        str(results),
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=180, cwd=REPO)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len(rows) == 2 and all(r["status"] == "SOLVED" for r in rows)
    again = subprocess.run(
        args[:-4] + ["--format", "markdown", "--results", str(results)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert again.returncode == 0 and "2 of 2 runs taken" in again.stderr
    assert "| solved | 1/1 | 1/1 |" in again.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "compare", "eternity", files[0], "--strategies", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert bad.returncode == 2 and "nope" in bad.stderr


@pytest.mark.slow
@pytest.mark.skipif(not _eternity_ready(), reason="eternity strategies not available")
def test_portfolio_benchmark_quick_runs():
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "portfolio.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert "| g4_f2_i2_s1 |" in done.stdout and "median portfolio / best single" in done.stdout
    assert "never slower than the worst single:" in done.stdout and "process start-up" in done.stdout
