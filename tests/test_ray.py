"""``--backend ray``: compare and the portfolio race as Ray tasks on a local 2-CPU Ray instance.

One Ray instance serves the whole module (starting it takes seconds); it is shut down at the
end and no Ray process may be left behind.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import time
from pathlib import Path

import psutil
import pytest

ray = pytest.importorskip("ray")

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import portfolio_fixtures as fx  # noqa: E402

from puzzlesat import cli  # noqa: E402
from puzzlesat.core import Limits, Result, Status, Strategy  # noqa: E402
from puzzlesat.core.ray import connect  # noqa: E402
from puzzlesat.portfolio import compare as cmp  # noqa: E402
from puzzlesat.portfolio import race as pf  # noqa: E402
from puzzlesat.portfolio.backends import Backend  # noqa: E402
from puzzlesat.portfolio.report import format_table  # noqa: E402

INSTANCES = [("sq49.txt", fx.Number(49)), ("n50.txt", fx.Number(50))]


def solve_exit(instance: fx.Number, limits: Limits, variant: str | None) -> Result:
    """Logs its pid to ``options['log']``, then leaves without a word (``os._exit``)."""
    with open(limits.options["log"], "a") as fh:
        fh.write(f"{os.getpid()}\n")
    os._exit(3)


# the fixture puzzle plus a strategy that dies; Ray workers import this module by name
CRASHY = dataclasses.replace(
    fx.PUZZLE,
    name="fixture-ray",
    strategies=(*fx.PUZZLE.strategies, Strategy("exit", "test_ray:solve_exit", "logs its pid, then os._exit(3)")),
)


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    """A local Ray instance (2 CPUs, no dashboard) for the module; gone afterwards."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    start = time.monotonic()
    assert connect(None, num_cpus=2)
    took = time.monotonic() - start
    print(f"\nray start-up: {took:.1f}s", file=sys.stderr)
    ray_pids = [p.pid for p in psutil.Process().children(recursive=True) if p.pid not in before]
    assert ray_pids, "a local Ray instance runs in child processes"
    yield took
    # every Ray process: the instance's own and the workers started since (children of the raylet)
    ray_pids += [p.pid for p in psutil.Process().children(recursive=True) if p.pid not in before]
    ray.shutdown()
    left = fx.wait_gone(sorted(set(ray_pids)), 15.0)
    assert not left, f"Ray processes left behind: {left}"
    assert not ray.is_initialized()


def _eternity_files(tmp_path: Path) -> list[str]:
    """The seed's 4x4 board, and a copy made unsolvable (one edge colour changed: an odd count)."""
    seed = (REPO / "instances" / "eternity" / "seed_4x4.txt").read_text()
    lines = seed.rstrip("\n").split("\n")
    assert lines[-1] == "1 3 2 0"
    sat, unsat = tmp_path / "sat4.txt", tmp_path / "unsat4.txt"
    sat.write_text(seed)
    unsat.write_text("\n".join([*lines[:-1], "1 3 1 0"]) + "\n")
    return [str(sat), str(unsat)]


def _shape(table: str) -> str:
    """A markdown table without its times and bold marks (which run was fastest varies)."""
    return re.sub(r"\d+\.\d+", "T", table.replace("**", ""))


def test_local_and_ray_give_the_same_compare_table(tmp_path):
    from puzzlesat.domains import eternity

    files = _eternity_files(tmp_path)
    instances = [(path, eternity.PUZZLE.parse(Path(path).read_text(), path)) for path in files]
    names = ["native-rowscan", "cnf-heule"]
    local = cmp.compare(eternity.PUZZLE, instances, names, Limits(timeout=60), Backend(jobs=2, memory_mb=2000))
    remote = cmp.compare(eternity.PUZZLE, instances, names, Limits(timeout=60), Backend(name="ray"))
    grid = {(r.instance, r.strategy): r.status for r in local}
    assert grid == {(r.instance, r.strategy): r.status for r in remote}
    assert grid[files[0], "cnf-heule"] == "SOLVED" and grid[files[1], "native-rowscan"] == "INFEASIBLE"
    assert [(r.instance, r.strategy) for r in local] == [(r.instance, r.strategy) for r in remote]
    table = cmp.render(remote)
    assert _shape(cmp.render(local)) == _shape(table)
    assert "| solved | 2/2 | 2/2 |" in table and "T (unsat)" in _shape(table)


def test_ray_grid_hang_crash_and_no_retry_then_resume(tmp_path, capsys):
    log = tmp_path / "exits.log"
    results = tmp_path / "runs.jsonl"
    start = time.monotonic()
    recs = cmp.compare(
        CRASHY,
        INSTANCES[:1],
        ["exact", "hang", "exit"],
        Limits(timeout=1.0, options={"log": str(log)}),
        Backend(name="ray"),
        results=results,
        stream=sys.stderr,
    )
    took = time.monotonic() - start
    got = {r.strategy: r for r in recs}
    assert len(recs) == 3 and took < 40
    assert got["exact"].status == "SOLVED"
    hang = got["hang"]
    assert hang.status == "UNKNOWN" and hang.time is None and "cancelled" in hang.message
    assert hang.elapsed is not None and 1.0 <= hang.elapsed < 10  # stopped at the timeout (+ grace)
    assert got["exit"].status == "ERROR" and "worker died" in got["exit"].message
    assert len(log.read_text().split()) == 1  # the crashing run ran once: not retried
    text = cmp.render(recs)
    assert "| solved | 1/1 | 0/1 | 0/1 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| sq49.txt"))
    assert [c.strip() for c in row.strip("|").split("|")][2:] == ["timeout", "ERROR"]
    # the same resumable results file as the local backend, read back by it: nothing runs again
    assert len(cmp.load_results(results)) == 3
    capsys.readouterr()
    again = cmp.compare(
        CRASHY,
        INSTANCES[:1],
        ["exact", "hang", "exit"],
        Limits(timeout=1.0, options={"log": str(log)}),
        None,
        results=results,
        stream=sys.stderr,
    )
    assert "3 of 3 runs taken from the results file" in capsys.readouterr().err
    assert again == recs
    assert len(log.read_text().split()) == 1 and len(cmp.load_results(results)) == 3


def test_race_cancels_the_losers_and_their_processes_are_gone(tmp_path):
    pidfile = tmp_path / "pids"
    start = time.monotonic()
    # five members sharing 6 cores (the CP-SAT one gets the 2 spare ones as workers) on a 2-CPU
    # Ray instance: their num_cpus are scaled down so that all start at once
    res = pf.race(
        fx.PUZZLE,
        fx.Number(49),
        ["stubborn", "spawner", "crash", "liar", "cpsat-exact:2"],
        Limits(timeout=60, options={"pidfile": str(pidfile)}),
        Backend(name="ray", jobs=6),
        head_start=0,
    )
    assert time.monotonic() - start < 30
    assert res.result.status is Status.SOLVED and res.result.solution == fx.Root(7)
    assert res.winner is not None and res.winner.label == "cpsat-exact:2"
    assert res.winner.workers == 2 and res.result.stats["workers"] == 2
    out = {o.label: o for o in res.outcomes}
    assert out["crash"].result.status is Status.ERROR and out["crash"].note == "crashed"  # a segfault
    assert out["liar"].result.status is Status.ERROR and out["liar"].note == "rejected"  # never wins
    for label in ("stubborn", "spawner"):
        assert out[label].note == "stopped" and out[label].result.status is Status.UNKNOWN
        assert out[label].pid is not None and out[label].host
    worker, grandchild = map(int, pidfile.read_text().split())
    assert worker == out["spawner"].pid
    pids = [out["stubborn"].pid, worker, grandchild]
    assert not fx.wait_gone(pids, 5.0), "cancelled workers (and their children) must be gone"
    assert "(ray)" in format_table(res) and "host" in format_table(res)


def test_race_timeout_stops_a_hanging_member():
    start = time.monotonic()
    res = pf.race(fx.PUZZLE, fx.Number(49), ["hang"], Limits(timeout=1.5), Backend(name="ray"), head_start=0)
    assert time.monotonic() - start < 10
    assert res.result.status is Status.UNKNOWN and res.outcomes[0].note in ("timeout", "stopped")


def test_cli_solve_portfolio_with_backend_ray(tmp_path, capsys):
    files = _eternity_files(tmp_path)
    code = cli.main(
        [
            "solve",
            "eternity",
            files[0],
            "--portfolio",
            "cnf-heule,native-rowscan",
            "--backend",
            "ray",
            "--timeout",
            "60",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "portfolio: 2 members on 2 cores (ray)" in captured.err
    assert "using the running Ray session" in captured.err
    assert captured.out.strip() and "raylet" not in captured.out


def test_missing_ray_is_one_clear_line_and_exit_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if not installed
    files = _eternity_files(tmp_path)
    assert cli.main(["compare", "eternity", files[0], "--backend", "ray"]) == 2
    assert capsys.readouterr().err == 'puzzlesat: --backend ray needs the ray extra: pip install "puzzlesat[ray]"\n'
    assert cli.main(["solve", "eternity", files[0], "--portfolio", "--backend", "ray"]) == 2
    assert capsys.readouterr().err == 'puzzlesat: --backend ray needs the ray extra: pip install "puzzlesat[ray]"\n'
    assert cli.main(["solve", "eternity", files[0], "--score", "--backend", "ray"]) == 2  # native-rowscan on Ray
    assert capsys.readouterr().err == 'puzzlesat: --backend ray needs the ray extra: pip install "puzzlesat[ray]"\n'
    assert cli.main(["solve", "eternity", files[0], "--address", "10.0.0.1:6379"]) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_starts_and_stops_its_own_ray(tmp_path):
    """A separate process: its own local Ray instance, a clean stdout, and nothing left behind."""
    import subprocess

    files = _eternity_files(tmp_path)
    begun = time.time()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlesat.cli",
            "compare",
            "eternity",
            *files,
            "--strategies",
            "cnf-heule",
            "--timeout",
            "60",
            "--backend",
            "ray",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert "c ray: started a local Ray instance" in done.stderr
    assert done.stdout.splitlines()[0].startswith("instance,strategy,status")
    assert [line.split(",")[2] for line in done.stdout.splitlines()[1:]] == ["SOLVED", "INFEASIBLE"]

    def ours() -> list[int]:
        """Ray processes started since `begun`, other than this module's own instance's."""
        module_instance = {p.pid for p in psutil.Process().children(recursive=True)}
        found = []
        for proc in psutil.process_iter(["cmdline", "create_time"]):
            cmdline = " ".join(proc.info["cmdline"] or [])
            if proc.pid in module_instance or (proc.info["create_time"] or 0) < begun - 1:
                continue
            if "ray::" in cmdline or "/ray/" in cmdline:
                found.append(proc.pid)
        return found

    assert not fx.wait_gone(ours(), 15.0)
