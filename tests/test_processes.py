"""The process helper: trees stopped whole, the task pool, and every user's children dying with
a parent killed by SIGKILL (the portfolio's own cases are in test_portfolio.py)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import portfolio_fixtures as fx  # noqa: E402

from puzzlesat.core import processes  # noqa: E402


@pytest.fixture(autouse=True)
def no_children_left():
    """After every test, this process has no child processes at all."""
    yield
    left = fx.children_left()
    assert not left, f"processes left behind: {[(p.pid, p.cmdline()[:3]) for p in left]}"


def test_stop_trees_stops_a_child_and_the_process_it_started(tmp_path):
    pidfile = tmp_path / "pids"
    child = processes.start(fx.start_grandchild_and_hang, (str(pidfile),))
    end = time.monotonic() + 30
    while not pidfile.exists() or len(pidfile.read_text().split()) < 2:
        assert time.monotonic() < end, "the child did not start its grandchild"
        time.sleep(0.05)
    pids = [int(p) for p in pidfile.read_text().split()]
    assert pids[0] == child.pid
    assert os.getpgid(child.pid) == child.pid, "the child leads its own process group"
    processes.stop_trees([child], grace=0.2)
    assert child.exitcode is not None
    assert fx.wait_gone(pids, 2) == []


def test_task_pool_runs_tasks_and_raises_what_a_task_raised():
    with processes.TaskPool(2, fx.worker_init, (7,)) as pool:
        pool.submit(fx.worker_task, [1, 2, 3])
        assert sorted(pool.next(timeout=30) for _ in range(3)) == [8, 9, 10]
        pool.submit(math.factorial, [-1])
        with pytest.raises(ValueError, match="negative"):
            pool.next(timeout=30)
        with pytest.raises(TimeoutError):
            pool.next(timeout=0.3)


def test_task_pool_drops_an_earlier_batch():
    with processes.TaskPool(1, fx.worker_init, (0,)) as pool:
        pool.submit(time.sleep, [0.5, 0.5, 0.5, 0.5])
        pool.submit(fx.worker_task, [5])
        assert pool.next(timeout=30) == 5  # not a sleep's None
        with pytest.raises(TimeoutError):
            pool.next(timeout=1.5)


def test_task_pool_task_reports_news_before_it_ends():
    with processes.TaskPool(1, name="puzzlesat-test") as pool:  # no init
        assert [p.name for p in pool.processes] == ["puzzlesat-test-0"]
        pool.submit(fx.worker_reporting, [4])
        assert [pool.next(timeout=30) for _ in range(3)] == [4, 5, "done"]
    with pytest.raises(RuntimeError, match="TaskPool"):
        processes.report(1)


def test_task_pool_tells_a_task_a_worker_waits_and_takes_more_work_in_the_batch():
    with processes.TaskPool(1) as pool:
        pool.submit(fx.worker_hungry, [0.5])
        assert pool.next(timeout=30) is False  # the one worker runs the task: nobody waits
    with processes.TaskPool(2) as pool:
        pool.submit(fx.worker_hungry, [30])
        assert pool.next(timeout=60) is True  # the other worker waits with nothing queued
        pool.extend(fx.worker_hungry, [30])  # a piece of work for it, in the same batch
        assert pool.next(timeout=60) is True
        end = time.monotonic() + 30
        while not pool.hungry():
            assert time.monotonic() < end, "the idle workers were not counted"
            time.sleep(0.05)
    with pytest.raises(RuntimeError, match="TaskPool"):
        processes.hungry()


def test_task_pool_reports_a_dead_worker():
    with processes.TaskPool(1, fx.worker_init, (0,)) as pool:
        pool.submit(fx.worker_exit, [3])
        with pytest.raises(processes.WorkerDied):
            pool.next(timeout=30)


# -- a parent killed by SIGKILL takes every process it started with it ------------------------


def _spawned(procs: list[psutil.Process]) -> int:
    """How many of ``procs`` are multiprocessing children (not the resource tracker)."""
    count = 0
    for proc in procs:
        try:
            count += "spawn_main" in " ".join(proc.cmdline())
        except psutil.Error:
            continue
    return count


def _killed_parent_leaves_nothing(args: list[str], ready: Callable[[list[psutil.Process]], bool]) -> None:
    """Run ``python args``; once ``ready(descendants)``, SIGKILL it; no descendant is alive 2 s later."""
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    try:
        parent = psutil.Process(proc.pid)
        end = time.monotonic() + 60
        tree: list[psutil.Process] = []
        while time.monotonic() < end:
            assert proc.poll() is None, f"the parent ended early: {proc.communicate()[1].decode()[-500:]}"
            tree = parent.children(recursive=True)
            if ready(tree):
                break
            time.sleep(0.1)
        assert ready(tree), f"the parent did not start its children: {[p.cmdline()[:3] for p in tree]}"
        time.sleep(0.3)
        tree = parent.children(recursive=True)
        proc.kill()
        proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    left = fx.wait_gone([p.pid for p in tree], 2)
    assert left == [], f"still alive 2 s after the parent was killed: {left}"


PIGEONS = """
import sys
sys.path.insert(0, {tests!r})
import portfolio_fixtures as fx
from puzzlesat.encoders.sat import solve_once
solve_once("kissat404", fx.pigeonhole(11), timeout=300)
"""


def test_the_kissat_child_dies_with_a_killed_parent():
    pytest.importorskip("pysat")
    _killed_parent_leaves_nothing(["-c", PIGEONS.format(tests=str(TESTS))], lambda tree: _spawned(tree) == 1)


def test_blacken_parallel_workers_die_with_a_killed_parent(tmp_path):
    pytest.importorskip("numba")
    from puzzlesat.domains import blacken

    board = tmp_path / "b14.txt"
    board.write_text(blacken.write_instance(blacken.generate({"size": 14, "whites": 35, "components": 6}, 1)))
    args = ["-m", "puzzlesat.cli", "solve", "blacken", str(board), "-s", "native-bb-par", "--workers", "2"]
    _killed_parent_leaves_nothing(args, lambda tree: _spawned(tree) == 2)


def test_eternity_workers_die_with_a_killed_parent():
    pytest.importorskip("numba")
    board = REPO / "instances" / "eternity" / "peak_8x8_b3_m10_s2.txt"  # minutes of search
    args = ["-m", "puzzlesat.cli", "solve", "eternity", str(board), "--workers", "2", "--timeout", "120"]
    # the two workers are forked: they run the parent's command line, not multiprocessing's spawn_main
    _killed_parent_leaves_nothing(args, lambda tree: len(tree) == 2)


RUBIK = """
from puzzlesat.core import Limits
from puzzlesat.native.rubik import ida as rubik
from puzzlesat.domains import rubik as rk
inst = rk.parse("R U F' L2 D B' R2 U' F D2 L B2")
rubik.solve(inst, Limits(workers=2, options={{"tables": "small", "progress": False, "parallel_from": 0}}))
"""


def test_rubik_parallel_workers_die_with_a_killed_parent():
    pytest.importorskip("numba")
    # the workers are forked (they share the parent's tables), so they are the whole tree
    _killed_parent_leaves_nothing(["-c", RUBIK.format()], lambda tree: len(tree) == 2)


def test_portfolio_members_and_their_children_die_with_a_killed_parent(tmp_path):
    pytest.importorskip("pysat")
    from puzzlesat.domains import blacken

    board = tmp_path / "b14.txt"
    board.write_text(blacken.write_instance(blacken.generate({"size": 14, "whites": 35, "components": 6}, 1)))
    args = ["-m", "puzzlesat.cli", "solve", "blacken", str(board), "--portfolio", "native-bb-par,native-bb"]
    args += ["--timeout", "120"]
    # two members, and the parallel member's worker
    _killed_parent_leaves_nothing(args, lambda tree: _spawned(tree) == 3)


def test_a_benchmark_killed_takes_its_runs_with_it():
    pytest.importorskip("numba")
    board = REPO / "instances" / "eternity" / "peak_8x8_b3_m10_s2.txt"
    args = [str(REPO / "benchmarks" / "eternity.py"), "--score", str(board), "--seeds", "1", "--timeout", "120"]

    def running(tree: list[psutil.Process]) -> bool:
        try:
            return any("puzzlesat.cli" in proc.cmdline() for proc in tree)
        except psutil.Error:
            return False

    _killed_parent_leaves_nothing(args, running)
