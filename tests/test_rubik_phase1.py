"""The phase-1 coordinates, symmetries and search of ``native-ida --tables phase1``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from puzzlesat.core import Limits, Status, run_strategy
from puzzlesat.domains import rubik as rk
from puzzlesat.native.rubik import cache as rubik_cache
from puzzlesat.native.rubik import phase1 as p1
from puzzlesat.native.rubik import symmetry as sy
from puzzlesat.native.rubik.prefixes import PrefixReduction
from puzzlesat.native.table_build import Store


@pytest.fixture(scope="module")
def small() -> dict[str, np.ndarray]:
    return p1._small_tables("htm")


def test_symmetries_are_automorphisms_that_map_moves_to_moves() -> None:
    rng = random.Random(3)
    syms = sy.ud_symmetries()
    assert len({(s.rotation, s.mirrored) for s in syms}) == 16
    moves = rk.move_cubes()
    for s in syms + sy.axis_symmetries():
        for _ in range(5):
            a, b = rk.random_cube(rng), rk.random_cube(rng)
            assert s(a * b) == s(a) * s(b)
        assert all(s(m) in moves for m in moves)
    # the 16 keep the UD axis: a U turn becomes a U or D turn
    assert all(moves.index(s(moves[0])) // 3 in (0, 3) for s in syms)
    # the mirror turns R into L' and keeps U's axis but reverses it
    m = next(s for s in syms if s.mirrored and s.rotation == rk.SOLVED)
    assert m(moves[3]) == moves[14] and m(moves[0]) == moves[2]


def test_edge_maps_and_inverses_agree_with_the_cube_model() -> None:
    rng = random.Random(4)
    syms = sy.ud_symmetries()
    maps = sy.edge_maps(syms)
    inverse = sy.symmetry_inverses(syms)
    for k, s in enumerate(syms):
        c = rk.random_cube(rng)
        d = s(c)
        q = maps[k, 1]
        assert tuple(int(maps[k, 0, c.ep[q[i]]]) for i in range(12)) == d.ep
        assert tuple(c.eo[q[i]] ^ int(maps[k, 2, i]) ^ int(maps[k, 3, c.ep[q[i]]]) for i in range(12)) == d.eo
        assert syms[inverse[k]](d) == c


def test_coordinates_round_trip_and_follow_the_moves(small: dict[str, np.ndarray]) -> None:
    a = np.zeros(12, np.int64)
    for s in range(0, p1.N_SLICE, 37):
        p1.set_slice(s, a)
        assert p1.slice_of(a) == s
    for c in range(0, p1.N_CORNERS, 101):
        p1.set_corners(c, a)
        assert p1.corners_of(a[:8]) == c
    assert p1.coordinates(rk.SOLVED)[:2] == (0, 0)
    rng = random.Random(5)
    moves = rk.move_cubes()
    for _ in range(40):
        c = rk.random_cube(rng)
        m = rng.randrange(18)
        before, after = p1.coordinates(c), p1.coordinates(c * moves[m])
        tables = (small["twist_mv"], small["flip_mv"], small["slice_mv"], small["corner_mv"])
        assert tuple(int(t[x, m]) for t, x in zip(tables, before, strict=True)) == after


def test_flipslice_classes() -> None:
    syms = sy.ud_symmetries()
    clsym, reps, selfsym = p1._classes(sy.edge_maps(syms), sy.symmetry_inverses(syms), *p1.slice_reduction(24))
    assert len(reps) == 1_523_864  # Kociemba's count of flipslice classes
    assert np.all(selfsym & 1)
    small = p1._small_tables("htm")
    rng = random.Random(6)
    for _ in range(100):
        c = rk.random_cube(rng)
        twist, flip, slc, _ = p1.coordinates(c)
        cs = int(clsym[slc * p1.N_FLIP + flip])
        d = syms[cs & 15](c)
        t2, f2, s2, _ = p1.coordinates(d)
        assert s2 * p1.N_FLIP + f2 == reps[cs >> 4]
        assert small["twist_conj"][twist, cs & 15] == t2


@njit(cache=True)
def _serial_level(table, depth, reps, clsym, selfsym, flip_mv, slice_mv, twist_mv, twist_conj):  # noqa: ANN001, ANN202
    """A breadth-first level of the phase-1 table, one entry after the other: the reference
    for the parallel ``_phase1_forward``."""
    new = 0
    for c in range(reps.shape[0]):
        flip, slc = reps[c] % p1.N_FLIP, reps[c] // p1.N_FLIP
        for t in range(p1.N_TWIST):
            if p1.get4(table, c * p1.ROW + t) != depth:
                continue
            for m in range(flip_mv.shape[1]):
                cs = clsym[slice_mv[slc, m] * p1.N_FLIP + flip_mv[flip, m]]
                t1 = twist_conj[twist_mv[t, m], cs & 15]
                for k in range(16):
                    if (selfsym[cs >> 4] >> k) & 1:
                        i = (cs >> 4) * p1.ROW + twist_conj[t1, k]
                        if p1.get4(table, i) == p1.EMPTY:
                            p1._set4(table, i, depth + 1)
                            new += 1
    return new


def test_two_bit_entries_read_back_as_lower_bounds_exact_in_their_window() -> None:
    rng = np.random.default_rng(5)
    exact = rng.integers(0, 14, 4000)
    table = np.zeros(2000, np.uint8)
    for i, v in enumerate(exact):
        p1._set4(table, i, int(v))
    base = 9
    packed = p1.pack2(table, base)
    assert packed.size == 1000
    read = np.array([p1.distance(packed, i, base) for i in range(exact.size)])
    assert (read <= exact).all()
    window = (exact > base) & (exact < base + 3)
    assert (read[window] == exact[window]).all()
    assert (read[exact <= base] == 0).all() and (read[exact >= base + 3] == base + 3).all()
    assert [p1.distance(table, i, -1) for i in range(50)] == exact[:50].tolist()


def test_parallel_levels_fill_the_same_entries_as_one_thread_and_when_run_again() -> None:
    x6 = p1._small_tables("htm", 6)
    syms = sy.ud_symmetries()
    clsym, reps, selfsym = p1._classes(
        sy.edge_maps(syms), sy.symmetry_inverses(syms), x6["slice_reduced"], x6["slice_reps"]
    )
    moves = (x6["flip_mv"], x6["slice_mv"], x6["twist_mv"], x6["twist_conj"])
    steps = p1.twist_steps(x6["twist_mv"], x6["twist_conj"])
    assert steps[5, 3, 100] == x6["twist_conj"][x6["twist_mv"][100, 5], 3]
    ncls = reps.shape[0]
    forward = (x6["flip_mv"], x6["slice_mv"], steps, x6["twist_conj"])
    backward = (x6["flip_mv"], x6["slice_mv"], steps)
    table = np.full(ncls * p1.ROW_BYTES, 0xFF, np.uint8)
    goal = int(x6["slice_reduced"][p1.slice_of(np.arange(12, dtype=np.int64))])
    goal_row = int(clsym[goal * p1.N_FLIP]) >> 4
    p1._set4(table, goal_row * p1.ROW, 0)  # as the build starts
    live, every = np.zeros(ncls, np.uint8), np.ones(ncls, np.uint8)
    live[goal_row] = 1
    for depth in range(6):
        serial = table.copy()
        reached = np.zeros(ncls, np.uint8)
        assert p1._phase1_forward(
            table, depth, reps, clsym, selfsym, *forward, live, reached, 0, p1.FORWARD_CHUNKS, 1 + depth % 3
        ) == _serial_level(serial, depth, reps, clsym, selfsym, *moves)
        assert np.array_equal(table, serial), depth
        rows = table.reshape(ncls, p1.ROW_BYTES)
        holds = ((rows & 15) == depth + 1).any(axis=1) | ((rows >> 4) == depth + 1).any(axis=1)
        assert np.array_equal(reached.astype(bool), holds), depth  # the rows marked are those given an entry
        live = reached
    # a build killed inside a group of chunks left part of its claims; the next run redoes the group
    killed = table.copy()
    p1._phase1_forward(table, 6, reps, clsym, selfsym, *forward, live, every.copy(), 0, p1.FORWARD_CHUNKS, 2)
    p1._phase1_forward(killed, 6, reps, clsym, selfsym, *forward, every, every.copy(), 0, 40, 2)  # got this far
    resumed = p1._phase1_forward(killed, 6, reps, clsym, selfsym, *forward, every, every.copy(), 32, 512, 2)  # group 1
    assert np.array_equal(killed, table)
    counts = p1._count4(killed)  # what the resumed build counts: every entry, its own claims or not
    assert 0 < resumed < counts[7] and counts.sum() == 2 * killed.size
    # the backward direction (on the first 2000 rows), stopped and resumed by rows
    whole = table.copy()
    done = p1._phase1_backward(table, 7, reps, clsym, *backward, every, every.copy(), 0, 1000)
    again = p1._phase1_backward(table, 7, reps, clsym, *backward, every, every.copy(), 500, 2000)
    assert done + again == p1._phase1_backward(whole, 7, reps, clsym, *backward, every, every.copy(), 0, 2000) > 0
    assert np.array_equal(table, whole)
    # rows not marked live are not read: with none marked, nothing is found
    assert p1._phase1_backward(table.copy(), 8, reps, clsym, *backward, np.zeros(ncls, np.uint8), every, 0, 2000) == 0


def test_the_x6_slice_coordinate_forgets_double_swaps_and_follows_the_moves(small: dict[str, np.ndarray]) -> None:
    reduced, reps = p1.slice_reduction(6)
    assert len(reps) == 2970 and np.bincount(reduced).tolist() == [4] * 2970
    x6 = p1._small_tables("htm", 6)
    rng = random.Random(12)
    for _ in range(300):
        s, m = rng.randrange(p1.N_SLICE), rng.randrange(18)
        # reducing then moving = moving then reducing: the coordinate is well defined
        assert x6["slice_mv"][reduced[s], m] == reduced[small["slice_mv"][s, m]]
    # FR<->BL with FL<->BR: the same reduced slice as solved; one swap alone is not
    swapped = rk.parse("UF UR UB UL DF DR DB DL BL BR FL FR UFR URB UBL ULF DRF DFL DLB DBR").cube
    one = rk.Cube(rk.SOLVED.cp, rk.SOLVED.co, (*range(8), 9, 8, 10, 11), rk.SOLVED.eo)  # FR<->FL, no cube
    solved = reduced[p1.coordinates(rk.SOLVED)[2]]
    assert reduced[p1.coordinates(swapped)[2]] == solved != reduced[p1.coordinates(one)[2]]


# The search needs the 1.9 GB tables (built in about 100 s on first use, 2 cores).


@pytest.mark.slow
def test_phase1_search_agrees_with_korf_tables() -> None:
    rng = random.Random(8)
    for metric in rk.METRICS:
        for length in (0, 1, 3, 6, 9):
            man = rk.random_maneuver(length, rng)
            if metric == "qtm":
                man = tuple((f, t) for f, t in man if t != 2)
            inst = rk.parse(rk.format_maneuver(man) or rk.SOLVED_SINGMASTER)
            results = []
            for tables in ("phase1", "phase1x12", "phase1x6", "small"):
                opts = {"metric": metric, "tables": tables, "progress": False, "all": True, "plain_depth": 0}
                res = run_strategy(rk.PUZZLE, inst, "native-ida", Limits(timeout=600, options=opts))
                assert res.status is Status.OPTIMAL, res.message
                assert res.solution is not None
                results.append((res.objective, set(res.solution.maneuvers)))
            assert all(r == results[0] for r in results), (metric, man)


@pytest.mark.slow
def test_x6_tables_do_not_take_a_double_swap_for_solved() -> None:
    # distance 0 on the UD axis of the x6 table, yet 8 moves from solved
    text = "UF UR UB UL DF DR DB DL BL BR FL FR UFR URB UBL ULF DRF DFL DLB DBR"
    for tables in ("phase1x12", "phase1x6", "small"):
        opts = {"metric": "htm", "tables": tables, "progress": False, "all": True, "plain_depth": 0}
        res = run_strategy(rk.PUZZLE, rk.parse(text), "native-ida", Limits(timeout=600, options=opts))
        assert res.status is Status.OPTIMAL and res.objective == 8, (tables, res.message)


@pytest.mark.slow
def test_phase1_bounds_are_admissible() -> None:
    from puzzlesat.native.rubik.ida import Phase1Searcher

    rng = random.Random(9)
    for length in range(0, 12):
        man = rk.random_maneuver(length, rng)
        for tables in ("phase1", "phase1x12"):
            s = Phase1Searcher(rk.SOLVED.apply(man), "htm", tables, quiet=True)
            assert s.lower_bound() <= length


@pytest.mark.slow
def test_the_two_bit_set_finds_the_optimum_of_deeper_positions() -> None:
    # deeper than the --all cross-check above: the 2-bit window is read above its base
    rng = random.Random(13)
    for metric in rk.METRICS:
        for length in (11, 13, 14):
            inst = rk.parse(rk.format_maneuver(rk.random_maneuver(length, rng)))
            found = {}
            for tables in ("phase1", "phase1x12"):
                opts = {"metric": metric, "tables": tables, "progress": False, "plain_depth": 0}
                res = run_strategy(rk.PUZZLE, inst, "native-ida", Limits(timeout=600, options=opts))
                assert res.status is Status.OPTIMAL and res.solution is not None, res.message
                assert inst.cube.apply(res.solution.maneuvers[0]) == rk.SOLVED
                found[tables] = res.objective
            assert found["phase1"] == found["phase1x12"], (metric, length, found)


SUPERFLIP = "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2"


def test_prefix_reduction_keeps_one_prefix_per_symmetry_class() -> None:
    from puzzlesat.native.rubik.ida import prefixes
    from puzzlesat.native.rubik.tables import move_set

    superflip = rk.parse(SUPERFLIP).cube
    for metric, firsts in (("htm", [(0, 1), (0, 2)]), ("qtm", [(0, 1)])):
        ms = move_set(metric)
        red = PrefixReduction.of(superflip, ms)
        assert red is not None and len(red.images) == 48
        assert [ms.moves[r[0]] for r in red.representatives(prefixes(ms.next_state, 1))] == firsts
        rows = prefixes(ms.next_state, 3)
        kept = red.representatives(rows)
        # every prefix is an image of a kept one: the kept rows' images cover all positions
        assert len(rows) / 48 < len(kept) < len(rows) / 20
        assert {tuple(r) for r in kept} <= {tuple(r) for r in rows}
    ms = move_set("htm")
    assert PrefixReduction.of(rk.parse("R U").cube, ms) is None


def _accepted(next_state: np.ndarray, length: int) -> set[tuple[int, ...]]:
    """Every move sequence of ``length`` the automaton accepts from its start state."""
    from puzzlesat.native.rubik.ida import prefixes

    return {tuple(row) for row in prefixes(next_state, length).tolist()}


def test_the_junction_automaton_opens_only_the_move_after_the_prefix() -> None:
    from puzzlesat.native.rubik.tables import move_set

    for metric in rk.METRICS:
        ms = move_set(metric)
        red = PrefixReduction(sy.all_symmetries()[:1], ms)
        for plen in (1, 2, 3):
            canonical = _accepted(ms.next_state, 5)
            opened = _accepted(red.automaton(plen), 5)
            assert canonical < opened
            heads, tails = _accepted(ms.next_state, plen), _accepted(ms.next_state, 5 - plen)
            for seq in opened - canonical:
                # a canonical prefix, then a canonical rest that starts with a turn of the
                # opposite face in the order the canonical sequences forbid (D after U)
                assert seq[:plen] in heads and seq[plen:] in tails
                assert ms.moves[seq[plen]][0] == ms.moves[seq[plen - 1]][0] - 3


@pytest.mark.parametrize(
    "text", ["U2 D2", "R2 L2 U2 D2 F2 B2", "U D' R L' F B' U D'", "F2 B2 U D' R2 L2 U D'", "R L U2 R' L'"]
)
def test_symmetric_cubes_keep_their_optimum_with_fewer_prefixes(text: str) -> None:
    cube = rk.parse(text).cube
    assert sum(s(cube) == cube for s in sy.all_symmetries()) > 1
    for metric in rk.METRICS:
        opts = {"metric": metric, "tables": "small", "progress": False, "plain_depth": 0}
        res = run_strategy(rk.PUZZLE, rk.parse(text), "native-ida", Limits(timeout=120, options=opts))
        every = run_strategy(
            rk.PUZZLE, rk.parse(text), "native-ida", Limits(timeout=120, options={**opts, "all": True})
        )
        assert res.status is every.status is Status.OPTIMAL
        assert res.objective == every.objective  # --all searches every prefix
        assert res.stats["nodes"] < every.stats["nodes"]


def test_unwritable_cache_fails_before_the_build(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from puzzlesat.core import PuzzlesatError

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("PUZZLESAT_CACHE", str(blocker / "cache"))
    with pytest.raises(PuzzlesatError, match="cannot write the rubik phase1 tables"):
        rubik_cache.load("phase1", "htm", quiet=True)


def test_inverse_coordinates_are_those_of_the_inverse_cube_on_each_axis() -> None:
    from puzzlesat.native.rubik.ida import cube_arrays
    from puzzlesat.native.rubik.phase1_kernel import inverse_coordinates

    inverse = p1.inverse_tables("htm")
    moves = rk.move_cubes()  # in HTM the tables' move order is the model's
    rng = random.Random(11)
    flipslice, twist = np.zeros(3, np.int64), np.zeros(3, np.int64)
    for _ in range(60):
        cube, m = rk.random_cube(rng), rng.randrange(18)
        inverse_coordinates(np.concatenate(cube_arrays(cube))[None], 0, m, inverse, flipslice, twist, 0)
        child_inverse = (cube * moves[m]).inverse()
        for k, sym in enumerate(sy.axis_symmetries()):
            t, f, s, _ = p1.coordinates(sym(child_inverse))
            assert (int(flipslice[k]), int(twist[k])) == (s * p1.N_FLIP + f, t), k


def test_a_new_build_removes_the_files_of_earlier_versions(tmp_path) -> None:  # noqa: ANN001
    names = [
        "rubik-htm-phase1-v1-phase1.npy",
        "rubik-htm-phase1-v1.json",
        "rubik-htm-phase1-v2-phase1.npy",
        "rubik-htm-phase1-v2-clsym.npy",
        "rubik-htm-phase1-v2.json",
        "rubik-qtm-phase1-v1.json",
        "rubik-htm-full-v1.npy",
    ]
    for n in names:
        (tmp_path / n).write_text("")
    Store({}, tmp_path / "rubik-htm-phase1-v2.json").remove_other_versions("rubik-htm-phase1-v")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[2:])


def test_loads_check_stamps_once_the_digests_were_checked(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    import json

    from puzzlesat.native.table_build import file_digest

    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    files, note = rubik_cache.paths("phase1", "htm")
    for k, path in files.items():
        np.save(path, np.arange(3 << 18, dtype=np.int64) * (len(k) + 1))
    note.write_text(json.dumps({"max_depth": 13, "build_seconds": 1.0} | {k: file_digest(p) for k, p in files.items()}))
    assert "digests" in rubik_cache.load("phase1", "htm", quiet=True).loaded_from  # an older note: digests, then stamps
    assert "stamps" in json.loads(note.read_text())
    assert "stamps" in rubik_cache.load("phase1", "htm", quiet=True).loaded_from

    def rebuild(*args: object) -> None:
        raise RuntimeError("rebuilt")

    monkeypatch.setattr(p1, "build", rebuild)
    data = np.load(files["phase1"])
    data[12345] += 1
    np.save(files["phase1"], data)  # a change the stamp sees (the time), and the digest too
    with pytest.raises(RuntimeError, match="rebuilt"):
        rubik_cache.load("phase1", "htm", quiet=True)


def test_a_process_that_builds_the_tables_searches_its_arrays_in_memory(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))
    files, _ = rubik_cache.paths("phase1", "htm")
    made = {k: np.arange(3 << 18, dtype=np.int64) * (len(k) + 1) for k in files}

    def build(*args: object) -> tuple[dict[str, np.ndarray], dict[str, int]]:
        return dict(made), {"max_depth": 11, "base": -1}

    monkeypatch.setattr(p1, "build", build)
    built = rubik_cache.load("phase1", "htm", quiet=True)
    assert built.loaded_from == "built" and not built.mapped
    assert built.phase1 is made["phase1"] and not built.phase1.flags.writeable  # as a mapped file: read-only
    assert built.in_huge_pages().phase1 is made["phase1"]  # no second copy
    loaded = rubik_cache.load("phase1", "htm", quiet=True)  # the files, mapped: the same bytes
    assert loaded.mapped and isinstance(loaded.corners, np.memmap)
    assert all(np.array_equal(getattr(loaded, k), made[k]) for k in p1.BIG)
    assert not isinstance(loaded.in_huge_pages().phase1, np.memmap)


def test_a_file_stamp_sees_a_rewrite_a_sampled_block_and_the_size(tmp_path) -> None:  # noqa: ANN001
    import os

    from puzzlesat.native.table_build import file_stamp

    path = tmp_path / "t.bin"
    data = np.random.default_rng(5).integers(0, 255, 1 << 20, dtype=np.uint8)
    data.tofile(path)
    base = file_stamp(path)
    assert file_stamp(path) == base
    info = path.stat()
    data[0] ^= 1  # the first block is always sampled
    data.tofile(path)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # the same time: only the sample differs
    assert file_stamp(path) != base
    data[:-1].tofile(path)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert file_stamp(path) != base


def test_the_rest_of_a_table_gets_the_next_depth_but_the_pads_stay_empty() -> None:
    rng = np.random.default_rng(3)
    rows = 5
    table = rng.choice(np.array([0x98, 0xFF, 0xF9, 0x8F, 0x77], np.uint8), rows * p1.ROW_BYTES)
    before = table.copy()
    for r in range(rows):  # a pad entry is the high half of a row's last byte, always empty
        table[(r + 1) * p1.ROW_BYTES - 1] |= 0xF0
    empty = [i for i in range(rows * p1.ROW) if p1.get4(table, i) == p1.EMPTY and i % p1.ROW != p1.ROW - 1]
    assert p1._fill_rest(table, 11, 1, 4) == sum(p1.ROW <= i < 4 * p1.ROW for i in empty)
    assert p1._fill_rest(table, 11, 0, rows) == sum(i < p1.ROW or i >= 4 * p1.ROW for i in empty)
    assert p1._fill_rest(table, 11, 0, rows) == 0  # run again: nothing left to fill
    for i in range(rows * p1.ROW):
        if i % p1.ROW == p1.ROW - 1:
            assert p1.get4(table, i) == p1.EMPTY
        elif i in empty:
            assert p1.get4(table, i) == 11
        else:
            assert p1.get4(table, i) == p1.get4(before, i)


def test_a_build_goes_backward_then_gives_the_rest_one_value() -> None:
    total = 3_332_690_568  # phase1, HTM: the levels 8 to 9, 9 to 10, then the 41 % left
    assert p1.next_way(29_213_223, total - 32_000_000) == p1.FORWARD
    assert p1.next_way(295_422_663, total - 328_000_000) == p1.FORWARD
    assert p1.next_way(1_642_511_261, total - 1_970_000_000) == p1.REST
    assert p1.next_way(500, 1000) == p1.BACKWARD
