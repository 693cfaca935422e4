"""Resumable table builds: the work folder, its kept arrays and lock, and the phase-1 build
stopped and resumed (quick: a few steps of the small ``phase1x6`` set; slow: whole builds,
one killed with SIGKILL, and the ``tables=auto`` escalation onto real tables)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from puzzlesat.native import table_build as tb
from puzzlesat.native.rubik import cache as rubik_cache
from puzzlesat.native.rubik import phase1 as p1

ROOT = Path(__file__).resolve().parents[1]


def test_a_workspace_keeps_its_arrays_and_state_for_the_next_run(tmp_path: Path) -> None:
    key = {"set": "t", "version": 1}
    with tb.Workspace(tmp_path / "w", key) as ws:
        ws.open()
        assert not ws.resumed
        a = ws.array("a", 1000, np.uint8, 0xFF)
        a[10:20] = 3
        ws.save("b", np.arange(5))
        ws.keep(step=1)
        assert not ws.due()
        a[20] = 4  # not kept: lost
        ws.state["step"] = 2
    with tb.Workspace(tmp_path / "w", key) as ws:
        ws.open()
        assert ws.resumed and ws.state["step"] == 1 and ws.state["seconds"] >= 0
        a = ws.array("a", 1000, np.uint8, 0xFF)
        assert a[10] == 3 and a[0] == 0xFF and a[20] == 0xFF
        assert ws.load("b").tolist() == [0, 1, 2, 3, 4]
    with tb.Workspace(tmp_path / "w", {"set": "t", "version": 2}) as ws:  # another build: afresh
        ws.open()
        assert not ws.resumed and not ws.path("a").exists()


def test_a_workspace_of_another_boot_or_a_half_made_array_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with tb.Workspace(tmp_path / "w", {}) as ws:
        ws.open()
        ws.keep(step=4)
    monkeypatch.setattr(tb, "boot_id", lambda: "another boot")
    with tb.Workspace(tmp_path / "w", {}) as ws:
        ws.open()
        assert not ws.resumed and "step" not in ws.state
        np.zeros(10, np.uint8).tofile(ws.folder / "a.bin")  # a file the note does not list: made again
        assert (ws.array("a", 10, np.uint8, 7) == 7).all()


def test_a_second_builder_waits_for_the_lock(tmp_path: Path) -> None:
    waited = threading.Event()
    first = tb.Workspace(tmp_path / "w", {})
    first.lock()
    second = tb.Workspace(tmp_path / "w", {}, on_wait=waited.set)
    thread = threading.Thread(target=second.lock)
    thread.start()
    assert waited.wait(10)
    time.sleep(0.1)
    assert thread.is_alive()  # still waiting
    first.__exit__(None, None, None)
    thread.join(10)
    assert not thread.is_alive()
    second.__exit__(None, None, None)


def test_the_time_left_scales_the_share_left_by_this_runs_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(tb.time, "monotonic", lambda: clock[0])
    bar = tb.Progress("c test", quiet=True, start=0.2)  # a resumed build: 20 % done before this run
    assert bar.left_seconds() is None
    clock[0] += 30
    bar.update(0.5, "x")
    assert bar.left_seconds() == pytest.approx(30 * 0.5 / 0.3)
    assert tb.format_seconds(125) == "2 min 05 s" and tb.format_seconds(42.4) == "42 s"


def _steps(cache: Path, runs: int) -> list[dict[str, object]]:
    """Run the phase1x6 build ``runs`` times, each stopped after its first step."""
    states = []
    for _ in range(runs):
        with pytest.raises(tb.BuildStopped, match="phase1x6 tables .*built; the next build resumes"):
            rubik_cache.load("phase1x6", "htm", True, stop_at=0.0)
        states.append(tb.read_state(rubik_cache.work_folder("phase1x6", "htm")))
    return states


def test_a_stopped_phase1_build_resumes_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    states = _steps(tmp_path, 3)
    assert states[0]["classes"] and "level" not in states[0]  # the first run: the classes only
    assert [s["level"] for s in states[1:]] == [[0, p1.FORWARD, 1], [0, p1.FORWARD, 2]]  # one group of rows a run
    shares = [float(s["share"]) for s in states]  # type: ignore[arg-type]
    assert shares == sorted(shares) and shares[0] == p1.CLASSES_SHARE
    # the table so far holds exactly the first two groups' share of depth 1
    x6 = p1._small_tables("htm", 6)
    folder = rubik_cache.work_folder("phase1x6", "htm")
    clsym, reps, selfsym = (np.load(folder / f"{k}.npy") for k in ("clsym", "reps", "selfsym"))
    reference = np.full(reps.shape[0] * p1.ROW_BYTES, 0xFF, np.uint8)
    goal = int(x6["slice_reduced"][p1.slice_of(np.arange(12, dtype=np.int64))])
    p1._set4(reference, (int(clsym[goal * p1.N_FLIP]) >> 4) * p1.ROW, 0)
    steps = p1.twist_steps(x6["twist_mv"], x6["twist_conj"])
    moves = (x6["flip_mv"], x6["slice_mv"], steps, x6["twist_conj"])
    rows = np.ones(reps.shape[0], np.uint8)  # every row read, every row may be marked
    p1._phase1_forward(
        reference, 0, reps, clsym, selfsym, *moves, rows, rows.copy(), 0, 2 * p1.FORWARD_CHUNKS // p1.LEVEL_GROUPS, 2
    )
    assert np.array_equal(np.fromfile(folder / "phase1.bin", np.uint8), reference)
    # the table list shows the partial build
    partial = rubik_cache.status("phase1x6", "htm")
    assert partial.state == "partial" and partial.done == shares[-1] and partial.disk_mb > 400


# ---------------------------------------------------------------- whole builds (slow)


def _digests(cache: Path, name: str) -> dict[str, str]:
    note = json.loads((cache / f"rubik-htm-{name}-v{p1.VERSION}.json").read_text())
    return {k: v for k, v in note.items() if k not in ("stamps", "build_seconds")}


@pytest.fixture(scope="module")
def x6_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding phase1x6 (HTM), built once without a stop."""
    cache = tmp_path_factory.mktemp("x6")
    code = "from puzzlesat.native.rubik import cache; cache.load('phase1x6', 'htm', True)"
    subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PUZZLESAT_CACHE": str(cache)}, check=True, timeout=900
    )
    return cache


@pytest.mark.slow
def test_a_build_killed_and_resumed_makes_the_same_tables(x6_cache: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PUZZLESAT_CACHE": str(tmp_path)}
    cmd = [sys.executable, "-m", "puzzlesat.cli", "tables", "build", "rubik", "phase1x6"]
    build = subprocess.Popen(cmd, env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    folder = tmp_path / f"rubik-htm-phase1x6-v{p1.VERSION}.partial"
    deadline = time.monotonic() + 600
    while tb.read_state(folder).get("level", [0])[0] < 8 and build.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)  # into the levels that take seconds
    os.kill(build.pid, signal.SIGKILL)
    build.wait(30)
    killed_at = tb.read_state(folder)
    assert killed_at["level"][0] >= 8
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "resuming the build" in done.stderr
    assert _digests(tmp_path, "phase1x6") == _digests(x6_cache, "phase1x6")
    assert not folder.exists()


@pytest.mark.slow
def test_auto_grows_into_the_deeper_set_with_the_same_optimum(x6_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from puzzlesat.core import Limits, Status, run_strategy
    from puzzlesat.domains import rubik as rk
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.rubik import ida as rubik

    monkeypatch.setenv("PUZZLESAT_CACHE", str(x6_cache))
    monkeypatch.setattr(rubik, "tables_for", lambda cap: "phase1x6")
    monkeypatch.setattr(rubik_cache, "is_built", lambda name, metric: False)  # built, but taken as not yet
    for moves, seed in ((12, 1), (13, 2), (14, 3)):
        inst = rk.generate({"moves": moves}, seed)
        found = {}
        for tables in ("auto", "phase1x6"):
            limits = Limits(
                timeout=600, workers=2, options={"tables": tables, "progress": False, "escalate_seconds": 0.3}
            )
            res = run_strategy(rk.PUZZLE, inst, "native-ida", limits)
            assert res.status is Status.OPTIMAL, res.message
            found[tables] = (res.objective, res.stats["tables"])
        assert found["auto"] == found["phase1x6"], (moves, found)
