"""``solve eternity --backend ray``: native-rowscan's score and exact searches as Ray tasks, on a
local 2-CPU Ray instance; a worker killed mid-run is replaced (score) or its share searched
again (count: the same number)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

from puzzlesat import api, cli
from puzzlesat.core import Result, Status
from puzzlesat.domains import eternity

ROOT = Path(__file__).resolve().parents[1]
PEAK = ROOT / "instances" / "eternity" / "peak_7x7_b4_m8_s1.txt"  # 4 boards, 31.5 M nodes with twins=0


def test_backend_ray_runs_only_eternity_native_rowscan(capsys: pytest.CaptureFixture[str]) -> None:
    """Refused before Ray is started (or even imported)."""
    board = ROOT / "instances" / "eternity" / "seed_4x4.txt"
    assert cli.main(["solve", "eternity", str(board), "-s", "cpsat-table", "--backend", "ray"]) == 2
    assert "runs eternity's native-rowscan" in capsys.readouterr().err
    assert cli.main(["solve", "eternity", str(board), "--address", "h:1"]) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err


@pytest.fixture(scope="module")
def ray_session():  # type: ignore[no-untyped-def]
    """A local Ray instance (2 CPUs) for the module's Ray tests; gone afterwards."""
    pytest.importorskip("ray")
    from puzzlesat.core.ray import connect

    assert connect(None, num_cpus=2)
    yield
    import ray

    ray.shutdown()


def kill_one(name: str, after_cpu: float, done: threading.Event) -> list[int]:
    """SIGKILL the first Ray worker running ``name`` once it has used ``after_cpu`` seconds; its pid."""
    while not done.is_set():
        for proc in psutil.process_iter(["cmdline"]):
            try:
                if any(f"ray::{name}" in part for part in proc.info["cmdline"] or ()):
                    if sum(proc.cpu_times()[:2]) >= after_cpu:
                        os.kill(proc.pid, signal.SIGKILL)
                        return [proc.pid]
            except (psutil.Error, OSError):
                continue
        time.sleep(0.1)
    return []


def in_background(run: object) -> tuple[threading.Thread, list[Result]]:
    out: list[Result] = []
    thread = threading.Thread(target=lambda: out.append(run()))  # type: ignore[operator]
    thread.start()
    return thread, out


def test_a_count_on_ray_runs_the_kernel_a_local_count_runs() -> None:
    """One worker on a one-CPU local Ray counts a small board on tile bitsets, as a local count
    does: the same boards and nodes; with the colour-count check both run the row scan."""
    ray = pytest.importorskip("ray")
    from puzzlesat.core.ray import connect

    board = api.Instance("eternity", eternity.generate({"size": 5, "frame_colours": 2, "inner_colours": 4}, 3))
    owned = connect(None, num_cpus=1)
    try:
        counts = {
            (check, backend): api.solve(board, count=True, workers=1, colour_check=check, backend=backend)
            for check in (False, True)
            for backend in ("local", "ray")
        }
    finally:
        if owned:
            ray.shutdown()
    for (check, backend), result in counts.items():
        local = counts[check, "local"]
        assert result.status is Status.SOLVED and result.count == local.count > 0, (check, backend, result)
        assert result.stats["nodes"] == local.stats["nodes"], (check, backend)
        assert result.stats["kernel"] == ("rowscan" if check else "bitsets"), (check, backend, result.stats)


@pytest.mark.slow
def test_count_on_ray_is_exact_even_when_a_worker_dies(ray_session: None) -> None:
    board = api.load("eternity", PEAK)
    local = api.solve(board, count=True, workers=2, twins=False)
    whole = api.solve(board, count=True, workers=2, twins=False, backend="ray")
    assert whole.status is Status.SOLVED and whole.count == local.count == 4
    assert whole.stats["nodes"] == local.stats["nodes"]  # the same tree, shared out
    assert whole.stats["kernel"] == local.stats["kernel"] == "bitsets"
    done = threading.Event()
    thread, out = in_background(lambda: api.solve(board, count=True, workers=2, twins=False, backend="ray"))
    killed = kill_one("tree_worker", 0.5, done)
    thread.join(timeout=300)
    done.set()
    result = out[0]
    assert killed and result.status is Status.SOLVED and result.count == 4, result
    assert result.stats.get("workers_replaced", 0) >= 1
    first = api.solve(board, workers=2, backend="ray")  # a first board, verified in the driver
    assert first.status is Status.SOLVED and eternity.verify(board.data, first.solution) == []


@pytest.mark.slow
def test_score_on_ray_replaces_a_dead_worker_and_keeps_the_best(ray_session: None, tmp_path: Path) -> None:
    options = {"size": 10, "frame_colours": 2, "inner_colours": 11}
    instance = eternity.make_unsolvable(eternity.generate(options, 3))
    board = api.Instance("eternity", instance)
    saved = tmp_path / "best.txt"
    done = threading.Event()
    run = lambda: api.solve(board, timeout=25, workers=2, score=True, checkpoint=str(saved), backend="ray")  # noqa: E731
    thread, out = in_background(run)
    killed = kill_one("score_worker", 2.0, done)
    thread.join(timeout=120)
    done.set()
    result = out[0]
    assert killed and result.status in (Status.FEASIBLE, Status.OPTIMAL), result
    assert result.stats.get("workers_replaced", 0) >= 1 or result.status is Status.OPTIMAL
    assert eternity.verify(instance, result.solution, matching=False) == []
    assert eternity.parse_solution(instance, saved.read_text()) == result.solution
    leftover = [p for p in psutil.process_iter(["cmdline"]) if "ray::score_worker" in " ".join(p.info["cmdline"] or ())]
    assert not [p for p in leftover if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.slow
def test_a_hunt_on_ray_writes_each_board_its_workers_find_once(ray_session: None, tmp_path: Path) -> None:
    """``--target`` on Ray: the workers' boards of the level reach the driver through the hub and
    are written once each, every one a legal board of its named score."""
    options = {"size": 7, "frame_colours": 2, "inner_colours": 8}
    instance = eternity.make_unsolvable(eternity.generate(options, 3))
    target = eternity.max_score(instance) - 24
    folder = tmp_path / "boards"
    result = api.solve(
        api.Instance("eternity", instance), timeout=20, workers=2, score=True, target=target, boards=str(folder),
        backend="ray",
    )  # fmt: skip
    names = sorted(p.name for p in folder.iterdir())
    assert names and len(names) == len(result.boards) == result.stats["boards"]
    assert len({name.rsplit("-", 1)[1] for name in names}) == len(names)
    for board in result.boards:
        assert eternity.verify(instance, board, matching=False) == [] and eternity.score(instance, board) >= target
