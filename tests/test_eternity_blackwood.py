"""What the score search takes from Blackwood's solver: his fill order (``fill=blackwood``) and
his colour exhaustion (``rare``, ``rare_share``: a minimum of the rare colours' sides per depth)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from clirun import run_cli

from puzzlesat import api
from puzzlesat.core import Status
from puzzlesat.core.options import OptionError
from puzzlesat.core.registry import get_puzzle
from puzzlesat.core.run_options import for_run
from puzzlesat.domains import eternity
from puzzlesat.native.eternity import score as es
from puzzlesat.native.eternity.knobs import Knobs

BLACKWOOD = Knobs(fill="blackwood", rare=(1, 2), rare_share=1.0)


def unsolvable(rows: int, cols: int, seed: int) -> eternity.Instance:
    """A generated board with one tile's colour changed: no board matches every edge."""
    options = {"rows": rows, "cols": cols, "frame_colours": 2, "inner_colours": rows + 1}
    return eternity.make_unsolvable(eternity.generate(options, seed))


def test_blackwood_order_on_16x16_is_his() -> None:
    """Rows 0-10 row by row, then in the last five rows: columns 0-4 row by row (176-200),
    columns 5-11 column by column (201-235), the last four peeled (his solver's table, turned
    upside down: he fills from the bottom row)."""
    order = es.blackwood_order(16, 16, 5)
    depth = np.empty(256, dtype=np.int64)
    depth[order] = np.arange(256)
    grid = depth.reshape(16, 16)
    assert (grid[:11].ravel() == np.arange(176)).all()
    assert grid[11, :5].tolist() == [176, 177, 178, 179, 180] and grid[15, 4] == 200
    assert grid[11:, 5].tolist() == [201, 202, 203, 204, 205] and grid[15, 11] == 235
    assert grid[11, 12:].tolist() == [236, 237, 238, 239]
    assert grid[12:, 12].tolist() == [240, 241, 242, 243]
    assert grid[12, 13:].tolist() == [244, 245, 246] and grid[13:, 13].tolist() == [247, 248, 249]
    assert grid[13:, 14:].ravel().tolist() == [250, 251, 252, 253, 254, 255]


@pytest.mark.parametrize(("rows", "cols", "tail"), [(16, 16, 5), (5, 6, 5), (4, 3, 2), (7, 9, 5), (2, 4, 1)])
def test_blackwood_fill_places_west_and_north_neighbours_first(rows: int, cols: int, tail: int) -> None:
    instance = eternity.generate({"rows": rows, "cols": cols, "frame_colours": 2, "inner_colours": 4}, 0)
    cell, west_of, north_of = es.fill_order(instance, tail, Knobs(fill="blackwood"))
    assert sorted(cell) == list(range(instance.cells))
    depth = np.argsort(cell)
    for d, at in enumerate(cell):
        r, c = divmod(int(at), cols)
        assert west_of[d] == (depth[at - 1] if c > 0 else -1) and west_of[d] < d
        assert north_of[d] == (depth[at - cols] if r > 0 else -1) and north_of[d] < d


def test_rare_minimum_is_blackwoods_curve_on_his_board_and_scaled_elsewhere() -> None:
    """On 16x16 with three colours showing 122 sides (his 10, 13, 16 show as many) the minimum is
    his: 0 to depth 16, 28 at 26, 119 at 160, none after; half with ``rare_share`` 0.5."""
    instance = eternity.generate({"size": 16, "frame_colours": 5, "inner_colours": 17}, 0)
    colours = (1, 2, 3)
    total = int(es.rare_sides(instance, colours).sum())
    need = es.rare_minimum(instance, colours, 1.0)
    scale = total / es.BLACKWOOD_SIDES
    assert need[:17].tolist() == [0] * 17
    assert need[26] == int(28 * scale) and need[160] == int(119 * scale) and not need[161:].any()
    assert (np.diff(need[:161]) >= 0).all()
    assert (es.rare_minimum(instance, colours, 0.5) <= need // 2 + 1).all()
    assert not es.rare_minimum(instance, (), 1.0).any() and not es.rare_minimum(instance, colours, 0.0).any()


def rare_profile(cands: es.Candidates, rows: np.ndarray) -> np.ndarray:
    """The rare sides placed once each depth's cell is, for the rows of a board in fill order."""
    return np.cumsum(cands.rare[cands.rows.tile[rows]])


def every_board(cands: es.Candidates, seed: int, rare: bool) -> list[tuple[int, np.ndarray]]:
    """(errors, rows) of every better board a scan finds until it has searched everything."""
    cells = len(cands.cell)
    scan = es.Scan(cands, np.random.default_rng(seed), np.full(cells, 99, dtype=np.int64), rare=rare)
    best = np.array([4 * cells], dtype=np.int64)
    found = []
    while True:
        status, _ = scan.run(100_000, best, double=True)
        if status == es.FOUND:
            found.append((int(best[0]), scan.state.best_placed.copy()))
        elif status == es.EXHAUSTED:
            return found


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_rare_scan_keeps_the_minimum_and_still_finds_the_best_board_that_keeps_it(seed: int) -> None:
    """The minimum set to the rare profile of a best board (found by a scan with random lists,
    some of whose boards miss it): every board a rare scan finds keeps it, the last is as good,
    and its lists put the tiles showing most rare sides first."""
    instance = unsolvable(5, 5, seed)
    cands = es.Candidates(instance, Knobs(fill="blackwood", rare=(3, 4), order_colours=0))
    plain = es.Candidates(instance, Knobs(fill="blackwood", order_colours=0))
    plain.rare = cands.rare
    free = every_board(plain, seed, rare=False)
    errors, rows = free[-1]
    cands.need[:] = rare_profile(cands, rows)
    assert cands.need[-1] > 0
    kept = every_board(cands, seed, rare=True)
    assert kept and kept[-1][0] == errors
    assert all((rare_profile(cands, placed) >= cands.need).all() for _, placed in kept)
    assert any((rare_profile(cands, placed) < cands.need).any() for _, placed in free[:-1])
    off, order, _, _ = cands.arrays(np.random.default_rng(seed))
    shows = cands.rare[cands.rows.tile]
    for k in range(cands.nclasses):
        for a, b in zip(off[0, k, :-1], off[0, k, 1:], strict=True):
            assert (np.diff(shows[order[0][a:b]]) <= 0).all()


def scored(instance: eternity.Instance, **options: Any) -> tuple[Status, int]:
    result = api.solve(api.Instance("eternity", instance), "native-rowscan", timeout=20, score=True, **options)
    assert result.solution is not None and eternity.verify(instance, result.solution, matching=False) == []
    return result.status, eternity.score(instance, result.solution)


@pytest.mark.parametrize(("rows", "cols", "seed"), [(4, 4, 0), (3, 5, 0), (4, 4, 2)])
def test_blackwood_options_prove_the_same_optimum(rows: int, cols: int, seed: int) -> None:
    """The complete scan, whose exhaustion is the proof, goes without the rare minimum: the
    optimum proved is the plain search's."""
    instance = unsolvable(rows, cols, seed)
    plain = scored(instance)
    assert plain[0] is Status.OPTIMAL
    assert scored(instance, fill="blackwood", rare="1,2,3", rare_share=2.0) == plain


def test_the_options_are_checked_at_the_edge() -> None:
    knobs = Knobs.from_options({"fill": "blackwood", "rare": "10,13,16", "rare_share": 0.5})
    assert (knobs.fill, knobs.rare, knobs.rare_share) == ("blackwood", (10, 13, 16), 0.5)
    assert Knobs.from_options(knobs.options()) == knobs
    assert Knobs.from_options(Knobs().options()) == Knobs()
    his = Knobs.from_options({"breaks": "blackwood"})
    allowed = es.schedules(his)[0].allowed(256, 16)
    assert not allowed[:201].any() and allowed[201] == 1 and allowed[239] == 10 and allowed[243] == 10
    assert np.flatnonzero(np.diff(allowed[:244])).tolist() == [200, 205, 210, 215, 220, 224, 228, 232, 236, 238]
    assert (allowed[244:] == 16).all()
    instance = api.Instance("eternity", unsolvable(3, 3, 0))
    for bad in ({"fill": "spiral"}, {"rare": "10;13"}, {"rare_share": 3.0}):
        with pytest.raises(OptionError, match=next(iter(bad))):
            api.solve(instance, "native-rowscan", timeout=5, score=True, **bad)


def test_the_blackwood_preset_sets_his_seven_knobs_each_overridable() -> None:
    """``preset=blackwood`` is the seven options spelled out, a knob given on its own wins, and
    the options a run resolves (every default filled in) leave the preset's knobs to it."""
    spelled = Knobs.from_options(
        {
            "fill": "blackwood",
            "rare": "10,13,16",
            "breaks": "blackwood",
            "complete_cells": "12",
            "restart_nodes": "2000000000",
            "revisit": "-1",
            "start_slack": "0",
        }
    )
    assert Knobs.from_options({"preset": "blackwood"}) == spelled != Knobs()
    over = Knobs.from_options({"preset": "blackwood", "revisit": "2", "fill": "bands", "rare_share": "0.5"})
    assert (over.revisit, over.fill, over.rare_share, over.restart_nodes) == (2, "bands", 0.5, 2_000_000_000)
    puzzle = get_puzzle("eternity")
    resolved = for_run(puzzle, "native-rowscan", {"preset": "blackwood", "start_slack": "3"})
    assert Knobs.from_options(resolved) == Knobs.from_options({**spelled.options(), "start_slack": 3})
    assert Knobs.from_options(for_run(puzzle, "native-rowscan", {})) == Knobs()
    with pytest.raises(OptionError, match="preset"):
        Knobs.from_options({"preset": "blackwod"})


def test_the_hints_preset_sets_its_knobs_and_its_share_is_overridable() -> None:
    """``preset=hints`` (for all five hints) is its five options spelled out, its rare share
    among them: a share given on its own wins, and a run's resolved options (every declared
    default filled in) leave the preset's share to it."""
    spelled = Knobs.from_options(
        {
            "fill": "blackwood",
            "rare": "10,13,16",
            "rare_share": "0.9",
            "restart_nodes": "200000000",
            "revisit": "-1",
        }
    )
    assert Knobs.from_options({"preset": "hints"}) == spelled
    assert (spelled.rare_share, spelled.breaks, spelled.schedules) == (0.9, (), Knobs().schedules)
    assert Knobs.from_options({"preset": "hints", "rare_share": "0.8"}).rare_share == 0.8
    resolved = for_run(get_puzzle("eternity"), "native-rowscan", {"preset": "hints"})
    assert Knobs.from_options(resolved) == spelled
    assert Knobs.from_options(for_run(get_puzzle("eternity"), "native-rowscan", {})).rare_share == 1.0


def test_list_shows_the_preset_and_its_knobs() -> None:
    listed = run_cli("list", "-v")
    assert listed.returncode == 0
    line = next(line for line in listed.stdout.splitlines() if "-O preset=" in line)
    assert "preset=blackwood|hints" in line and "restart_nodes=2000000000" in line and "start_slack=0" in line
    assert "hints (fill=blackwood, rare=10,13,16, rare_share=0.9" in line
