"""The portfolio race with real child processes: winners, timeouts, crashes, memory, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import portfolio_fixtures as fx  # noqa: E402

from puzzlesat.core import BackendUnavailable, Limits, Status, proofcheck  # noqa: E402
from puzzlesat.portfolio import race as pf  # noqa: E402
from puzzlesat.portfolio.backends import Backend, default_memory_mb  # noqa: E402
from puzzlesat.portfolio.report import format_table  # noqa: E402

SQUARE = fx.Number(49)
# the core behaviours are tested with the default (spawn); the rest use fork to save start-up time
FAST = "fork"


@pytest.fixture(autouse=True)
def no_children_left():
    """After every test, this process has no child processes at all."""
    yield
    left = fx.children_left()
    assert not left, f"processes left behind: {[(p.pid, p.cmdline()[:3]) for p in left]}"


def by_label(result: pf.RaceResult) -> dict[str, pf.Outcome]:
    return {o.label: o for o in result.outcomes}


def test_first_verified_answer_wins_and_the_other_is_stopped():
    start = time.monotonic()
    res = pf.race(fx.PUZZLE, SQUARE, ["hang", "exact:0.2"], Limits(timeout=30), Backend(memory_mb=500), head_start=0)
    assert time.monotonic() - start < 15
    assert res.result.status is Status.SOLVED
    assert res.result.solution == fx.Root(7)
    assert res.winner is not None and res.winner.label == "exact:0.2"
    out = by_label(res)
    assert out["hang"].note == "stopped" and out["hang"].result.status is Status.UNKNOWN
    # start-up is measured for every member that got going
    assert all(o.startup is not None and 0 < o.startup < 15 for o in res.outcomes)
    table = format_table(res)
    assert "* " in table and "exact:0.2" in table and "start-up" in table


def test_hanging_and_sigterm_ignoring_strategies_are_killed_at_the_timeout():
    start = time.monotonic()
    res = pf.race(
        fx.PUZZLE, SQUARE, ["hang", "stubborn"], Limits(timeout=1.5), Backend(memory_mb=500, grace=0.3), head_start=0
    )
    took = time.monotonic() - start
    assert res.result.status is Status.UNKNOWN
    assert res.winner is None
    assert {o.note for o in res.outcomes} == {"timeout"}
    # deadline 1.5 s + 2 s answer grace + 0.3 s SIGTERM grace, with room for a loaded machine
    assert 1.5 <= took < 8


def test_crash_exception_and_memory_hog_are_errors_while_another_answer_wins():
    res = pf.race(
        fx.PUZZLE,
        SQUARE,
        ["crash", "raise", "hog", "exact:2"],
        Limits(timeout=60),
        Backend(memory_mb=200),
        head_start=0,
    )
    out = by_label(res)
    assert res.result.status is Status.SOLVED and res.winner is out["exact:2"]
    assert out["crash"].result.status is Status.ERROR and "SIGSEGV" in out["crash"].result.message
    assert out["raise"].result.status is Status.ERROR and "boom" in out["raise"].result.message
    assert out["hog"].result.status is Status.ERROR and out["hog"].note == "memory"
    table = format_table(res)
    assert table.count("ERROR") == 3


def test_an_answer_the_verifier_rejects_never_wins():
    res = pf.race(fx.PUZZLE, SQUARE, ["liar", "exact:0.5"], Limits(timeout=30), Backend(memory_mb=500), head_start=0)
    out = by_label(res)
    assert out["liar"].result.status is Status.ERROR and out["liar"].note == "rejected"
    assert res.winner is out["exact:0.5"] and res.result.solution == fx.Root(7)

    alone = pf.race(fx.PUZZLE, SQUARE, ["liar", "unknown"], Limits(timeout=30), Backend(memory_mb=500), head_start=0)
    assert alone.winner is None and alone.result.status is Status.UNKNOWN
    assert alone.result.solution is None


def test_repeated_names_race_with_different_seeds_and_cpsat_gets_the_spare_cores():
    res = pf.race(
        fx.PUZZLE,
        SQUARE,
        ["exact:1", "exact:1", "cpsat-exact"],
        Limits(timeout=30, seed=5),
        Backend(jobs=6, memory_mb=500, start_method=FAST),
        head_start=0,
    )
    out = by_label(res)
    assert [(o.label, o.seed, o.workers) for o in res.outcomes] == [
        ("exact:1", 5, 1),
        ("exact:1#2", 6, 1),
        ("cpsat-exact", 5, 4),
    ]
    assert res.winner is out["cpsat-exact"]
    assert res.result.stats["workers"] == 4 and res.result.stats["nodes"] == 6


def test_infeasible_is_a_final_answer():
    res = pf.race(
        fx.PUZZLE,
        fx.Number(50),
        ["hang", "exact"],
        Limits(timeout=30),
        Backend(memory_mb=500, start_method=FAST),
        head_start=0,
    )
    assert res.result.status is Status.INFEASIBLE and res.winner is not None


def test_optimisation_first_proven_optimum_wins():
    res = pf.race(
        fx.OPT_PUZZLE,
        fx.Number(50),
        ["approx", "optimal:0.5", "hang"],
        Limits(timeout=30),
        Backend(memory_mb=500, start_method=FAST),
        head_start=0,
    )
    assert res.result.status is Status.OPTIMAL and res.result.objective == 8
    assert res.winner is not None and res.winner.label == "optimal:0.5"


def test_optimisation_best_verified_objective_at_the_deadline():
    start = time.monotonic()
    res = pf.race(
        fx.OPT_PUZZLE,
        fx.Number(50),
        ["approx", "good:30", "liar", "hang"],
        Limits(timeout=2.5),
        Backend(memory_mb=500, start_method=FAST),
        head_start=0,
    )
    assert time.monotonic() - start < 10
    out = by_label(res)
    assert out["approx"].result.objective == 9
    assert out["liar"].result.status is Status.ERROR
    assert res.winner is out["good:30"]
    assert res.result.status is Status.SOLVED and res.result.objective == 8
    assert out["hang"].note == "timeout"


def test_grandchildren_are_stopped_with_their_parent(tmp_path):
    pidfile = tmp_path / "pids"
    res = pf.race(
        fx.PUZZLE,
        SQUARE,
        ["spawner", "exact:2"],
        Limits(timeout=30, options={"pidfile": str(pidfile)}),
        Backend(memory_mb=500, start_method=FAST),
        head_start=0,
    )
    assert res.result.status is Status.SOLVED
    child, grandchild = map(int, pidfile.read_text().split())
    assert fx.wait_gone([child, grandchild], 3) == []


def test_fork_start_method_races_the_same_way():
    res = pf.race(
        fx.PUZZLE,
        SQUARE,
        ["crash", "liar", "hang", "exact:0.5"],
        Limits(timeout=30),
        Backend(memory_mb=500, start_method="fork"),
        head_start=0,
    )
    out = by_label(res)
    assert res.winner is out["exact:0.5"] and res.result.solution == fx.Root(7)
    assert out["crash"].note == "crashed" and out["liar"].note == "rejected" and out["hang"].note == "stopped"


def test_the_head_start_answers_alone_and_starts_no_process():
    res = pf.race(fx.PUZZLE, SQUARE, ["exact", "hang"], Limits(timeout=30), Backend(memory_mb=500))
    assert res.result.status is Status.SOLVED and res.result.solution == fx.Root(7)
    assert [o.label for o in res.outcomes] == ["exact (head start)"] and res.winner is res.outcomes[0]
    assert res.skipped == ["hang"] and res.outcomes[0].pid is None
    table = format_table(res)
    assert "decided by the head start" in table and "c not started: hang" in table
    assert "c won by exact (head start): SOLVED (a verified solution)" in table


def test_a_head_start_that_does_not_answer_hands_over_to_the_processes():
    res = pf.race(
        fx.PUZZLE, SQUARE, ["exact:1", "exact:0.5"], Limits(timeout=30), Backend(memory_mb=500, start_method=FAST)
    )
    assert res.head_start >= pf.HEAD_START
    assert [o.label for o in res.outcomes] == ["exact:1", "exact:0.5"]  # no row for a head start without answer
    assert res.winner is by_label(res)["exact:0.5"]


def test_a_lone_member_searches_in_this_process_with_every_core_for_all_its_time():
    res = pf.race(fx.PUZZLE, SQUARE, ["exact:1"], Limits(timeout=30), Backend(jobs=2))
    assert res.result.status is Status.SOLVED and res.result.solution == fx.Root(7)
    (lone,) = res.outcomes
    assert lone.label == "exact:1 (alone)" and lone.pid is None and lone.winner  # no process
    assert lone.workers == 1 and res.result.strategy == "exact:1"  # a search that does not split: one core
    assert res.head_start == 0.0 and res.result.wall_time >= 1.0  # not cut at the head start's 0.2 s
    table = format_table(res)
    assert "one member, searched in this process (nothing to race)" in table
    split = pf.race(fx.PUZZLE, SQUARE, ["cpsat-exact:0.2"], Limits(timeout=30), Backend(jobs=2))
    assert split.outcomes[0].workers == 2 and split.outcomes[0].pid is None  # a splitting search: every core
    capped = pf.race(fx.PUZZLE, SQUARE, ["exact:1"], Limits(timeout=30), Backend(jobs=2, memory_mb=500))
    assert capped.outcomes[-1].pid is not None  # a memory cap asked for: the member runs in a capped process


def test_a_stopped_members_shared_answer_is_the_races_answer():
    res = pf.race(
        fx.OPT_PUZZLE,
        fx.Number(50),
        ["hang", "sharer"],
        Limits(timeout=2),
        Backend(memory_mb=500, start_method=FAST),
        head_start=0,
    )
    assert {o.note for o in res.outcomes} == {"timeout"}
    assert res.result.status is Status.SOLVED and res.result.objective == 9 and res.result.solution == fx.Root(9)
    assert res.winner is by_label(res)["sharer"] and "shared" in res.result.message
    assert res.result.strategy == "sharer"
    assert res.proof == "a verified answer, not proven the best"


def test_cores_follow_the_declared_engine():
    decl = [(s.engine, s.parallel) for s in (fx.PUZZLE.strategy(n)[0] for n in ("exact", "cpsat-exact"))]
    assert pf.share_cores(decl, 6) == [1, 5]
    assert pf.share_cores([("native", True)], 2) == [2]  # a search that splits is not left on one core of two


def test_unknown_strategy_fails_before_any_process_starts():
    with pytest.raises(BackendUnavailable, match="nope"):
        pf.race(fx.PUZZLE, SQUARE, ["exact", "nope"], Limits(timeout=5))
    assert pf.portfolio_names(fx.PUZZLE, None) == ["exact:0.2", "hang"]
    assert pf.portfolio_names(fx.PUZZLE, "exact, hang ,exact") == ["exact", "hang", "exact"]


def test_status_lines_go_to_a_plain_stream(capsys):
    pf.race(
        fx.PUZZLE,
        SQUARE,
        ["exact"],
        Limits(timeout=30),
        Backend(memory_mb=500, start_method=FAST),
        stream=sys.stderr,
        head_start=0,
    )
    err = capsys.readouterr().err
    assert "c exact: SOLVED after" in err and "\r" not in err


DRIVER = """
import sys
sys.path.insert(0, {tests!r})
import portfolio_fixtures as fx
from puzzlesat.core import Limits
from puzzlesat.portfolio import race
from puzzlesat.portfolio.backends import Backend
print("go", flush=True)
race.race(fx.PUZZLE, fx.Number(49), ["hang", "stubborn", "busy"], Limits(timeout=120),
          Backend(memory_mb=500, start_method={method!r}), head_start=0)
"""


def _members(parent: psutil.Process) -> list[int]:
    """The portfolio children of ``parent`` (not multiprocessing's resource tracker)."""
    kids = []
    for proc in parent.children():
        try:
            if "resource_tracker" not in " ".join(proc.cmdline()):
                kids.append(proc.pid)
        except psutil.Error:
            continue
    return kids


def _start_driver(method: str) -> tuple[subprocess.Popen[str], list[int]]:
    code = DRIVER.format(tests=str(TESTS), method=method)
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO
    )
    parent = psutil.Process(proc.pid)
    end = time.monotonic() + 30
    kids: list[int] = []
    while time.monotonic() < end:
        kids = _members(parent)
        if len(kids) == 3:
            break
        time.sleep(0.1)
    assert len(kids) == 3, "the driver did not start its three children"
    time.sleep(0.5)
    return proc, kids


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_sigint_to_the_parent_ends_everything_within_two_seconds(method):
    proc, kids = _start_driver(method)
    everyone = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=5)
    finally:
        proc.kill()
    assert time.monotonic() - start < 3, "the parent took too long to stop"
    assert "KeyboardInterrupt" in err
    assert fx.wait_gone(everyone, 0.5) == []
    assert set(kids) <= set(everyone)


def test_children_die_with_a_killed_parent():
    proc, kids = _start_driver("spawn")
    proc.kill()
    proc.communicate(timeout=5)
    assert fx.wait_gone(kids, 3) == []


def _eternity_ready() -> bool:
    """The edge-matching strategies exist (found, not imported: the parent stays light and thread-free)."""
    from importlib.util import find_spec

    return all(find_spec(f"puzzlesat.{layer}.eternity") is not None for layer in ("models", "encoders", "native"))


needs_eternity = pytest.mark.skipif(not _eternity_ready(), reason="eternity strategies not available")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "puzzlesat.cli", *args]


@needs_eternity
def test_cli_portfolio_solves_generated_edge_matching(tmp_path):
    from puzzlesat.domains import eternity

    inst = eternity.generate({"size": 4, "frame_colours": 2, "inner_colours": 2}, 3)
    path = tmp_path / "e4.txt"
    path.write_text(eternity.write_instance(inst))
    done = subprocess.run(
        _cli(
            "solve",
            "eternity",
            str(path),
            "--portfolio",
            "native-rowscan,cnf-heule",
            "--timeout",
            "60",
            "--jobs",
            "2",
            "--memory-limit",
            "2000",
        ),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    solution = eternity.parse_solution(inst, done.stdout)
    assert solution is not None and eternity.verify(inst, solution) == []
    assert "c *" in done.stderr and "start-up" in done.stderr


# a 5x5 board whose pinned tile leaves no perfect board: its best scores 38/40 (CP-SAT proves it)
PINNED = (REPO / "instances" / "eternity" / "peak_5x5_b3_m6_s0.txt", "1 2 2 1\n")


@needs_eternity
def test_cli_score_race_answers_the_best_board_any_member_holds(tmp_path):
    from puzzlesat.domains import eternity

    hints = tmp_path / "pin.txt"
    hints.write_text(PINNED[1])
    args = ("solve", "eternity", str(PINNED[0]), "--hints", str(hints), "--score", "--portfolio")
    done = subprocess.run(
        _cli(*args, "native-rowscan,cpsat-table", "--timeout", "20"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode in (0, 3), done.stderr  # 3: the best board at the time limit, not proven
    inst = eternity.read_hints(eternity.parse(PINNED[0].read_text()), {"hints": str(hints)})
    board = eternity.parse_solution(inst, done.stdout)
    assert board is not None and eternity.verify_run(inst, board, {"score": True}) == []
    assert "c won by " in done.stderr and "c score 3" in done.stderr and "UNKNOWN" not in done.stderr.splitlines()[-1]


@needs_eternity
@pytest.mark.skipif(not proofcheck.available_checkers(), reason="no DRAT checker")
def test_cli_portfolio_certify_proves_the_winners_claim_after_the_race(tmp_path):
    hints = tmp_path / "pin.txt"
    hints.write_text(PINNED[1])
    folder = tmp_path / "proofs"
    args = ("solve", "eternity", str(PINNED[0]), "--hints", str(hints), "--portfolio")
    done = subprocess.run(
        _cli(*args, "native-rowscan,cnf-heule:cadical195", "--certify", str(folder), "--timeout", "60"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert "SOLUTION NOT FOUND" in done.stdout
    assert "claim is certified after the race by cnf-heule:cadical195" in done.stderr
    assert "c certified: no solution" in done.stderr
    assert list(folder.glob("*.drat")) and list(folder.glob("*.cnf"))


@needs_eternity
def test_cli_sigint_stops_the_portfolio_and_its_children(tmp_path):
    from puzzlesat.domains import eternity

    inst = eternity.generate({"size": 12, "frame_colours": 4, "inner_colours": 9}, 1)
    path = tmp_path / "e12.txt"
    path.write_text(eternity.write_instance(inst))
    proc = subprocess.Popen(
        _cli("solve", "eternity", str(path), "--portfolio", "--timeout", "300"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    parent = psutil.Process(proc.pid)
    end = time.monotonic() + 30
    kids: list[int] = []
    while time.monotonic() < end and len(kids) < len(eternity.PUZZLE.portfolio):
        kids = _members(parent)
        time.sleep(0.1)
    assert len(kids) == len(eternity.PUZZLE.portfolio)
    time.sleep(1.0)
    everyone = [p.pid for p in parent.children(recursive=True)]
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert time.monotonic() - start < 3
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert fx.wait_gone(everyone, 0.5) == []


def test_default_memory_cap_is_sane():
    assert default_memory_mb(4) >= 512
    assert default_memory_mb(1) >= default_memory_mb(8)
    assert os.cpu_count()
