"""``native-rowscan --score``: an anytime search for the edge-matching board with most matched edges.

The boards searched are legal (every tile once, grey exactly on the frame, the hints kept);
the score is the number of matched adjacent edges (:func:`~puzzlesat.domains.eternity.score`).
Two searches share the best board:

1. **Scheduled row scan** (:func:`~puzzlesat.native.eternity.score_kernel.scan`): the row-scan
   backtracker of ``native-rowscan`` that also places tiles with one unmatched side (west or
   north), but only as many as a :class:`Schedule` allows at each depth: none over the first
   65% of the board, then a convex ramp to the best board's errors less one, so that every
   completed board beats the last one.  Each restart reshuffles the candidate lists with the
   run's seed (as ``native-rowscan`` does), tiles showing a few drawn colours first
   (:meth:`Candidates.preference`), and runs a node budget; it starts its own bound
   :data:`START_SLACK` errors above the best board's and tightens it with each board it
   completes (stepping stones), handing on only the boards that beat the best; a restart that exhausts its
   search loosens the schedule, up to the complete one, whose exhaustion proves the best
   board optimal.  The first board of all is a greedy dive that may leave both sides unmatched.
   The last rows (:func:`tail_rows`) are filled column by column (:func:`fill_order`), so the
   bottom border row is not left to the end with the few border tiles that are left over, and
   so is each hint's row with the :data:`HINT_AHEAD` rows above it, whose cells west and north
   of the hint take tiles that fit it first, and one that misses it only where the schedule
   allows the error at the hint (:func:`hint_neighbours`); a band's first two columns are
   filled together, row by row (:data:`LEAD_COLUMNS`).  A restart whose last board came within
   :data:`REVISIT` errors of the best is followed by a *revisit* (:meth:`ScoreSearch.revisit`):
   a search below that board's head aimed straight at the best, under looser schedules, for
   as many nodes as the restarts took to find that head.
2. **Large neighbourhood search** on the best board (:class:`Neighbourhoods`), in the time
   the scan leaves (:data:`SCAN_SHARE`): destroy and repair, each repair exact.  *Windows*: a small
   rectangle around an unmatched edge re-solved by branch and bound
   (:func:`~puzzlesat.native.eternity.score_kernel.window_best`).  *Scattered cells*: the
   tiles of a set of cells of one frame kind, no two adjacent, reassigned optimally as a
   linear assignment (each tile's cost on each cell, in its best turn, depends only on the
   fixed neighbours).  Moves that keep the score are taken too, to drift across plateaus.

With ``workers`` > 1 the row scans run in the worker processes of a
:class:`~puzzlesat.core.processes.TaskPool`, sharing the best board's errors as their bound
(:func:`scan_in_processes`), or in the workers of another pool (``--backend ray``:
:mod:`puzzlesat.native.eternity.ray`).  ``checkpoint`` keeps the
best board in a file as it improves and ``resume`` starts from one
(:mod:`puzzlesat.native.eternity.checkpoint`), its picture beside it.

Statistics: ``nodes`` (row-scan placements), ``restarts``, ``revisits``, ``improvements``, ``lns_moves`` and
``lns_gain`` (the errors the neighbourhood search removed), ``best_at`` (seconds to the best board).
"""

from __future__ import annotations

import math
import multiprocessing
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlesat.core import Limits, Result, Status, processes
from puzzlesat.core.incumbent import Incumbent
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.domains.eternity import Instance, Solution, max_score, rotated
from puzzlesat.native.eternity import checkpoint as eternity_checkpoint
from puzzlesat.native.eternity import score_kernel as kernel
from puzzlesat.native.eternity.arrays import Rows, ScanState
from puzzlesat.native.eternity.search import Lookup
from puzzlesat.native.first_dispatch import without_blas_probe

SLICE_SECONDS = 0.2  # between two looks at the clock (and at Ctrl-C)
FIRST_SLICE_NODES = 200_000
ALONE_FIRST = (
    0.2  # seconds of row scan in this process before --workers N starts the others (a small board ends sooner)
)
SCAN_SHARE = 0.9  # of the time limit for the row scan, the rest to polish its best board (measured: docs)
RESTART_NODES = 20_000_000  # row-scan nodes of a restart (20 M to 200 M reach 461-462 alike per node: docs)
START_SLACK = 3  # a restart first looks for boards this many errors worse than the best (measured: docs)
ORDER_COLOURS = 5  # colours drawn per restart: tiles showing them come first in every list (measured: docs)
HINT_AHEAD = 2  # rows above a hint filled with it, column by column, tiles that fit it first (measured: docs)
TAIL_COLUMNS: int | None = None  # the board's last rows the scan fills column by column; None: tail_rows() picks
LEAD_COLUMNS = 2  # a band's first columns, filled together row by row (1: none; measured: docs)
REVISIT = 2  # a restart ending on a board this many errors from the best revisits its head (-1: never; docs)
REVISIT_ROWS = 2  # rows' worth of depths before the tail band that a revisit searches again with the tail
REVISIT_SLACKS = (3, 4, 5, 6)  # a revisit's schedules, shaped for boards this many errors worse than the best,
# each tried when the search below the head under the last one was exhausted (docs)
REVISIT_SHARE = 1.0  # a revisit's nodes: this share of the restarts' nodes since the last one, a restart's at least


@dataclass
class Schedule:
    """How many unmatched edges the row scan may have left once it has placed cell d.

    ``allowed(d) = floor(errors * ((d - start + 1) / span) ** power)`` past ``start = cells -
    span`` and none before, ``span = ceil(tail * cells)``: the last ``tail`` of the board takes
    every error, most of them in its last rows, where few tiles are left to choose from.

    A restart that exhausts its search found no better board under the schedule: the next one
    is :meth:`looser`, and the loosest, :attr:`complete` (every error allowed everywhere, both
    sides of a tile unmatched too), searches every board, so exhausting it proves the best.
    """

    tail: float = 0.35
    power: float = 2.5

    @property
    def complete(self) -> bool:
        """True for the schedule that excludes no board."""
        return self.power == 0

    def looser(self) -> Schedule:
        """A schedule that allows more: a tail half as long again, then the complete one."""
        return Schedule(1.0, 0.0) if self.tail >= 1.0 else Schedule(min(1.0, self.tail * 1.5), self.power)

    def start(self, cells: int) -> int:
        """The first depth that may take an error: every edge before it matches (the head)."""
        return cells - max(1, math.ceil(self.tail * cells))

    def allowed(self, cells: int, errors: int) -> np.ndarray:
        """The allowance per depth for boards with at most ``errors`` unmatched edges."""
        start = self.start(cells)
        depth = np.arange(cells)
        ramp = np.clip((depth - start + 1) / (cells - start), 0.0, 1.0)
        return np.floor(max(errors, 0) * ramp**self.power).astype(np.int64)


# worker i scans with SCHEDULES[i % len(SCHEDULES)]: on 16x16 restarts with tails of 0.35-0.37 of the board
# reach 458 four times as often as with 0.4, 0.3 or 0.45, and powers 2 or 3 do far worse (docs)
SCHEDULES = (Schedule(0.35, 2.5), Schedule(0.37, 2.5))


# the settings a caller (a benchmark's variant) may change; its workers take them over (settings())
TUNABLES = (
    "RESTART_NODES",
    "START_SLACK",
    "ORDER_COLOURS",
    "HINT_AHEAD",
    "TAIL_COLUMNS",
    "LEAD_COLUMNS",
    "REVISIT",
    "REVISIT_ROWS",
    "REVISIT_SLACKS",
    "REVISIT_SHARE",
    "SCHEDULES",
)


def settings() -> dict[str, Any]:
    """This process's values of :data:`TUNABLES`, for the workers it starts: a spawned or remote
    worker imports this module afresh, with the values written above."""
    return {name: globals()[name] for name in TUNABLES}


def use_settings(values: dict[str, Any]) -> None:
    """Take over a caller's :func:`settings` (names outside :data:`TUNABLES` are refused)."""
    unknown = set(values) - set(TUNABLES)
    if unknown:
        raise ValueError(f"not a setting of the score search: {', '.join(sorted(unknown))}")
    globals().update(values)


def tail_rows(instance: Instance) -> int:
    """How many of the last rows :func:`fill_order` fills column by column: :data:`TAIL_COLUMNS`
    when set, else five, or four when a hint lies in those five.  Measured on the official
    16x16 (docs): with the starter piece (row 8) five rows reach 460-462 in ten minutes where
    four reach 459 and six or eight fewer; with all five hints (two in row 13) restarts with
    four rows reached 456 and 457 two to four times as often as with five, and one hour
    reached 460 where five stayed at 459."""
    if TAIL_COLUMNS is not None:
        return TAIL_COLUMNS
    return 4 if any(hint.cell // instance.cols >= instance.rows - 5 for hint in instance.hints) else 5


def revisit_depth(instance: Instance) -> int:
    """The depth from which a :meth:`ScoreSearch.revisit` searches a board again: the tail band
    (:func:`tail_rows`) and :data:`REVISIT_ROWS` rows' worth of depths before it (0: none)."""
    return max(0, instance.cells - (tail_rows(instance) + REVISIT_ROWS) * instance.cols)


def fill_order(instance: Instance, tail: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, west_of, north_of) by depth: the order the row scan fills the cells in, and the
    depths of each cell's west and north neighbours (-1 across the rim), which come before it.

    The rows fall into bands, filled one after the other, each column by column (top-down,
    the columns left to right), so a band of one row is filled row-major:

    * the last ``tail`` rows form one band, so that the bottom border row is not left to the end,
      where few border tiles are left to match the row above (as Blackwood's solver fills its
      last rows by columns);
    * a hint's row above them and the :data:`HINT_AHEAD` rows above it form one, so that the
      cells that decide whether the hint fits are placed close together: row by row, a row's
      worth of cells that do not touch the hint lie between the tile above it and the one left
      of it, and when the hint does not fit, the scan tries every choice of those cells again
      before it changes the ones that matter (with all five hints of the official board, most
      restarts of 20 M nodes never got past the first rows; measured: docs).

    The first :data:`LEAD_COLUMNS` (2) of a band are filled together, row by row: the first
    column is the board's border, whose cells only the colour above them holds, and filled
    alone its tiles are tried in every order before the second column finds that the first
    does not fit (with the starter piece a third of the scan's nodes went there: docs).
    """
    rows, cols = instance.rows, instance.cols
    tail = min(max(tail, 0), rows)
    band = [min(row, rows - tail) for row in range(rows)]  # each row's band: the first row in it
    for hint in instance.hints if HINT_AHEAD else ():
        row = hint.cell // cols
        if row < rows - tail:  # the hint's band joins the ones of the HINT_AHEAD rows above
            joined, into = band[row], band[max(row - HINT_AHEAD, 0)]
            band = [into if into <= b <= joined else b for b in band]
    by_band = sorted(
        range(instance.cells), key=lambda x: (band[x // cols], max(x % cols, LEAD_COLUMNS - 1), x // cols, x % cols)
    )
    cell = np.array(by_band, dtype=np.int64)
    depth = np.empty(instance.cells, dtype=np.int64)
    depth[cell] = np.arange(instance.cells)
    r, c = cell // cols, cell % cols
    west_of = np.where(c > 0, depth[cell - 1], -1).astype(np.int64)
    north_of = np.where(r > 0, depth[cell - cols], -1).astype(np.int64)
    return cell, west_of, north_of


def hint_neighbours(
    instance: Instance, rows: np.ndarray, classes: np.ndarray, nclasses: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """(rows, miss, nclasses) with a class of its own for each cell west or north of a hint
    (``classes`` changed in place): its class's rows again, ``miss`` the sides of the hint each
    would leave unmatched there (0 on every other row).  The lists put the rows that miss least
    first, so that the scan places a tile that fits the hint it will meet rather than find the
    mismatch there, and the scan places one that misses only where the schedule allows the
    error at the hint's depth (:func:`hints_ahead`).  Off with :data:`HINT_AHEAD` 0."""
    miss = np.zeros(len(rows), dtype=np.int64)
    if not HINT_AHEAD:
        return rows, miss, nclasses
    hinted = {hint.cell: rotated(instance.tiles[hint.tile], hint.rotation) for hint in instance.hints}
    extra, extra_miss = [rows], [miss]
    for cell in range(instance.cells):
        r, col = divmod(cell, instance.cols)
        east = hinted.get(cell + 1) if col + 1 < instance.cols else None
        south = hinted.get(cell + instance.cols) if r + 1 < instance.rows else None
        if cell in hinted or (east is None and south is None):
            continue
        copy = rows[rows[:, 0] == classes[cell]].copy()
        missed = np.zeros(len(copy), dtype=np.int64)
        if east is not None:  # the hint's west side meets this tile's east
            missed += copy[:, 4] != east[3]
        if south is not None:  # the hint's north side meets this tile's south
            missed += copy[:, 5] != south[0]
        copy[:, 0] = classes[cell] = nclasses
        nclasses += 1
        extra.append(copy)
        extra_miss.append(missed)
    return np.concatenate(extra), np.concatenate(extra_miss), nclasses


def hints_ahead(instance: Instance, cell: np.ndarray) -> np.ndarray:
    """Per depth of the fill order ``cell``: the depth of the hint east or south of its cell (the
    later one when both), -1 for none or with :data:`HINT_AHEAD` 0.  A tile placed there that
    misses the hint makes an error certain at that depth, which the scan checks at once."""
    depth = np.empty(instance.cells, dtype=np.int64)
    depth[cell] = np.arange(instance.cells)
    ahead = np.full(instance.cells, -1, dtype=np.int64)
    for hint in instance.hints if HINT_AHEAD else ():
        r, col = divmod(hint.cell, instance.cols)
        for before in ([hint.cell - 1] if col > 0 else []) + ([hint.cell - instance.cols] if r > 0 else []):
            ahead[depth[before]] = max(ahead[depth[before]], depth[hint.cell])
    return ahead


class Candidates:
    """The row scan's candidate lists: every turned tile that fits a frame class, in four keyings.

    Built from :class:`~puzzlesat.native.eternity.search.Lookup` (classes and hints as there; the
    symmetry rule on square boards only, where the first corner tile is the first cell's only
    candidate: on a rectangle it may take either top corner, and a greedy dive that left it
    for a bottom one would have to undo the whole bottom row); :meth:`arrays` gives a fresh
    random order within every list.
    """

    def __init__(self, instance: Instance) -> None:
        lookup = Lookup(instance, symmetry=instance.square)
        c = instance.colours
        self.colours = c
        classes = np.array(lookup.classes, dtype=np.int64)
        # class, west * C + north, tile, rotation, east, south
        rows = np.array(lookup.rows, dtype=np.int64).reshape(-1, 6)
        rows, self.miss, self.nclasses = hint_neighbours(instance, rows, classes, lookup.nclasses)
        self.cls = rows[:, 0]
        west, north = rows[:, 1] // c, rows[:, 1] % c
        self.rot = np.ascontiguousarray(rows[:, 3])
        east, south = (np.ascontiguousarray(rows[:, i]) for i in (4, 5))
        tile = rows[:, 2].astype(np.uint16)
        self.cell, west_of, north_of = fill_order(instance, tail_rows(instance))
        classes = np.ascontiguousarray(classes[self.cell])
        miss, ahead = self.miss.astype(np.uint8), hints_ahead(instance, self.cell)
        self.rows = Rows(
            west_of, north_of, c, classes, tile, np.ascontiguousarray(north), east, south, west, miss, ahead
        )
        self.keys = (west * c + north, north, west, np.zeros_like(west))
        self.sides = np.stack([north, east, south, west])

    def preference(self, rng: np.random.Generator) -> np.ndarray:
        """Per row, how many of its sides show one of :data:`ORDER_COLOURS` colours drawn (grey
        aside): such tiles come first in every list, so a restart uses those colours up early and
        leaves the tiles of the others for the last rows (a soft form of Blackwood's colour
        exhaustion); all zero when ORDER_COLOURS is 0, with nothing drawn."""
        if not ORDER_COLOURS:
            return np.zeros(len(self.cls), dtype=np.int64)
        drawn = rng.choice(np.arange(1, self.colours), size=min(ORDER_COLOURS, self.colours - 1), replace=False)
        return np.isin(self.sides, drawn).sum(axis=0)

    def arrays(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(off, order, tiles, sides): ``order[p]`` the rows sorted by (class, phase key, the
        hint sides missed, the :meth:`preference` drawn first, random), ``tiles[p]`` their tiles,
        ``sides[p]`` the colour they show on the side phase p leaves unmatched (phase 1: west, 2:
        north; 0 in phases 0 and 3)."""
        slots = self.colours * self.colours
        count = len(self.cls)
        shows = self.preference(rng)
        off = np.empty((4, self.nclasses, slots + 1), dtype=np.int64)
        order = np.empty((4, count), dtype=np.int64)
        for p, key in enumerate(self.keys):
            order[p] = np.lexsort((rng.random(count), -shows, self.miss, key, self.cls))
            flat = (self.cls * slots + key)[order[p]]
            bounds = np.searchsorted(flat, np.arange(self.nclasses * slots + 1))
            off[p, :, :slots] = bounds[:-1].reshape(self.nclasses, slots)
            off[p, :, slots] = bounds[slots::slots]
        tiles = self.rows.tile[order]
        sides = np.zeros(order.shape, dtype=np.int16)
        sides[1], sides[2] = self.rows.west[order[1]], self.rows.north[order[2]]
        return off.astype(np.int32), order.astype(np.uint32), tiles, sides


class Scan:
    """One row-scan search from the empty board, or below a kept ``head`` (the rows of its first
    depths, which the scan never changes), resumable call after call."""

    def __init__(
        self, cands: Candidates, rng: np.random.Generator, allowed: np.ndarray, head: np.ndarray | None = None
    ) -> None:
        self.cands = cands
        self.state = ScanState.start(cands.arrays(rng), allowed)
        if head is not None:
            self.keep(head)

    def keep(self, head: np.ndarray) -> None:
        """Place ``head`` on the first depths for good (phase :data:`~kernel.KEPT`), its errors
        counted as the kernel counts them (west and north sides)."""
        r, s = self.cands.rows, self.state
        for d, row in enumerate(head):
            west = r.east[s.placed[r.west_of[d]]] if r.west_of[d] >= 0 else 0
            north = r.south[s.placed[r.north_of[d]]] if r.north_of[d] >= 0 else 0
            s.placed[d], s.phase[d], s.used[r.tile[row]] = row, kernel.KEPT, 1
            s.errors[d + 1] = s.errors[d] + int(r.west[row] != west) + int(r.north[row] != north)
        s.depth[0] = len(head)

    def run(self, budget: int, best: np.ndarray, double: bool = False) -> tuple[int, int]:
        """(kernel status, nodes) of at most ``budget`` nodes; FOUND lowers ``best[0]``."""
        status, nodes = kernel.scan(self.cands.rows, self.state, best, int(double), max(1, budget))
        return int(status), int(nodes)

    def board(self) -> np.ndarray:
        """The last board found, as (tile, rotation) per cell."""
        rows = self.state.best_placed
        board = np.empty((len(rows), 2), dtype=np.int64)
        board[self.cands.cell] = np.stack([self.cands.rows.tile[rows], self.cands.rot[rows]], axis=1)
        return board


def looks(instance: Instance) -> np.ndarray:
    """``looks[t, r, s]``: the colour on side s of tile t turned r clockwise quarter turns."""
    tiles = np.array(instance.tiles, dtype=np.int64)
    sides = np.arange(4)
    return np.ascontiguousarray(np.stack([tiles[:, (sides - r) % 4] for r in range(4)], axis=1))


def board_errors(instance: Instance, look: np.ndarray, board: np.ndarray) -> int:
    """Unmatched edges of a full board (tile, rotation) per cell."""
    shown = look[board[:, 0], board[:, 1]].reshape(instance.rows, instance.cols, 4)
    horizontal = int((shown[:, :-1, 1] != shown[:, 1:, 3]).sum())
    vertical = int((shown[:-1, :, 2] != shown[1:, :, 0]).sum())
    return horizontal + vertical


@dataclass
class Best:
    """The best board so far, its unmatched edges and when it was found."""

    board: np.ndarray
    errors: int
    found_at: float
    improvements: int = 0


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt while searching, so the best board is still answered."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: SIGTERM keeps its meaning
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


Pool = Callable[["ScoreSearch", list[Any], "float | None"], None]
"""Runs row scans elsewhere: ``pool(search, seeds, until)`` scans with one worker per seed until
``until`` (:func:`time.perf_counter`; None: until stopped), offering their boards to ``search``."""


Counts = tuple[int, int, int]  # a search's nodes, restarts and revisits (ScoreSearch.counts)


def worker_seeds(seed: int, runs: int, count: int) -> list[Any]:
    """The workers' seeds, ``[seed, i + 1]``: no two runs of different seeds share one (as
    ``seed + 1 + i`` did); a resumed run (``runs`` before it) draws other orders."""
    return [[seed, i + 1] if runs == 0 else [seed, i + 1, runs] for i in range(count)]


def solve_score(instance: Instance, limits: Limits, pool: Pool | None = None) -> Result:
    """The anytime best-score search (module docstring); OPTIMAL for a board with no error or
    after a complete scan (:attr:`Schedule.complete`) found none better.

    ``limits.workers`` > 1 runs that many row scans in worker processes
    (:func:`scan_in_processes`, or ``pool``'s workers), each with its own seed and schedule
    (:data:`SCHEDULES`), sharing the best board's errors as their bound; this process
    polishes the best board they find.  The options ``checkpoint`` and ``resume`` are read
    here (module docstring).
    """
    compile_start = time.perf_counter()
    with without_blas_probe():
        kernel.warm_up()
    compile_time = time.perf_counter() - compile_start
    start = time.perf_counter()
    options = limits.options
    resumed = eternity_checkpoint.read(instance, options["resume"]) if options.get("resume") else None
    runs = 0 if resumed is None else (resumed.record.runs if resumed.record else 1)
    search = ScoreSearch(
        instance, np.random.default_rng(limits.seed if runs == 0 else [limits.seed, runs]), SCHEDULES[0]
    )
    if resumed is not None:
        search.best = Best(resumed.board, resumed.errors, time.perf_counter())
    path = options.get("checkpoint") or options.get("resume")
    before = resumed.record if resumed is not None and resumed.record is not None else None
    record = eternity_checkpoint.Record(
        eternity_checkpoint.fingerprint(instance),
        max_score(instance) - search.best.errors,
        limits.seed,
        runs + 1,
        before.seconds if before else 0.0,
        before.nodes if before else 0,
        limits.workers,
    )
    if path:
        search.checkpoint = eternity_checkpoint.Checkpoint(
            instance, path, eternity_checkpoint.picture(path), record, search.nodes_so_far
        )
        search.checkpoint.save(search.best.board, search.best.errors)
    if limits.shared is not None:
        join_race(search, limits.shared)
    seeds = worker_seeds(limits.seed, runs, limits.workers)
    alone = pool is None and limits.workers > 1  # a head start here before the processes
    if alone:
        pool = scan_in_processes
    left = limits.remaining(compile_start)
    message = ""
    with stop_on_sigterm():
        try:
            if alone:  # a small board is settled here, with no process started
                head_until = time.perf_counter() + (
                    ALONE_FIRST if left is None else min(ALONE_FIRST, left * SCAN_SHARE)
                )
                search.scan(lambda: head_until - time.perf_counter())
            if search.proven or search.best.errors == 0:
                pass
            elif left is None:
                search.alternate(seeds, pool)
            else:
                scan_until = time.perf_counter() + left * SCAN_SHARE
                if pool is not None:
                    pool(search, seeds, scan_until)
                else:
                    search.scan(lambda: scan_until - time.perf_counter())
                if not search.proven:
                    search.polish(limits.remaining(compile_start) or 0.0)
        except KeyboardInterrupt:
            message = "interrupted"
        finally:
            if search.checkpoint is not None:
                search.checkpoint.flush()
    best = search.best
    errors = board_errors(instance, search.look, best.board)
    total = max_score(instance)
    stats = {
        "score": f"{total - errors}/{total}",
        "nodes": search.nodes,
        "restarts": search.restarts,
        "revisits": search.revisits,
        "improvements": best.improvements,
        "lns_moves": search.lns_moves,
        "lns_gain": search.lns_gain,
        "best_at": round(best.found_at - start, 3),
        "compile_time": round(compile_time, 3),
    }
    if pool is not None:
        stats["workers"] = limits.workers
    if search.replaced:
        stats["workers_replaced"] = search.replaced
    if search.checkpoint is not None:
        stats.update(search.checkpoint.stats())
    proven = errors == 0 or search.proven
    if not message and not proven:
        message = "time limit: the best board found, not proven the best"
    if search.checkpoint is not None and search.checkpoint.failed:
        message += f"; {search.checkpoint.failed}"
    return Result(
        Status.OPTIMAL if proven else Status.FEASIBLE,
        Solution(tuple((int(t), int(r)) for t, r in best.board)),
        objective=errors,
        wall_time=time.perf_counter() - start,
        stats=stats,
        message=message,
    )


def join_race(search: ScoreSearch, race: Incumbent) -> None:
    """A race member's search: each better board is offered to the race, and the race's best,
    when another member holds a better one, becomes this search's best board and so its bound."""

    def bound() -> int:
        entry = race.best()
        if entry is not None and entry.objective < search.best.errors:
            search.offer(np.array(entry.solution.placements, dtype=np.int64), entry.objective)
        return search.best.errors

    def improve(board: np.ndarray, errors: int) -> None:
        race.offer(errors, Solution(tuple((int(t), int(r)) for t, r in board)))

    search.shared_bound = bound
    search.on_improve = improve
    improve(search.best.board, search.best.errors)  # the first board too: a hint for the others


def scan_in_processes(search: ScoreSearch, seeds: list[Any], until: float | None) -> None:
    """The :data:`Pool` of ``--workers``: row scans in one worker process per seed until ``until``
    (perf_counter; None: until stopped), on a :class:`~puzzlesat.core.processes.TaskPool`,
    sharing the bound (a ``multiprocessing`` value).  Every worker is stopped before this
    returns, also on Ctrl-C; the search's counts add up the workers' (:meth:`ScoreSearch.settle`),
    as of their last restart."""
    shared = multiprocessing.get_context("spawn").Value("q", search.best.errors)
    deadline = None if until is None else time.time() + until - time.perf_counter()
    done = 0
    try:
        with processes.TaskPool(len(seeds), _start_scans, (shared, settings()), name="puzzlesat-score") as pool:
            pool.submit(_scans, [(search.instance, seed, i, deadline) for i, seed in enumerate(seeds)])
            while done < len(seeds) and search.best.errors > 0 and not search.proven:
                if until is not None and time.perf_counter() > until:
                    break
                search.tick()
                with shared.get_lock():  # a race's best reaches the workers
                    shared.value = min(shared.value, search.bound())
                try:
                    message = pool.next(timeout=0.2)
                except TimeoutError:
                    continue
                except processes.WorkerDied:  # the others scan on
                    if not any(process.is_alive() for process in pool.processes):
                        break
                    continue
                if message[0] == "board":
                    search.offer(message[2], message[1])
                elif message[0] == "proof":  # a worker's complete scan: the shared bound is optimal
                    search.proven = True
                else:  # "count", or "done" with the last counts
                    search.workers[message[1]] = message[2]
                    done += message[0] == "done"
    finally:
        search.settle()


_SHARED: list[Any] = []  # in a scan worker: the shared bound


def _start_scans(shared: Any, values: dict[str, Any]) -> None:
    """A scan worker's start: the caller's :func:`settings`, the kernels, and the shared bound."""
    use_settings(values)
    with without_blas_probe():
        kernel.warm_up()
    _SHARED.append(shared)


def _scans(task: tuple[Instance, Any, int, float | None]) -> tuple[str, int, Counts]:
    """A pool task: row scans with seed and schedule ``index`` until ``deadline`` (:func:`time.time`,
    which every process reads alike); each board beating the shared bound is reported, and the
    counts at each restart.  Returns ("done", index, counts)."""
    instance, seed, index, deadline = task
    shared = _SHARED[0]
    search = ScoreSearch(instance, np.random.default_rng(seed), SCHEDULES[index % len(SCHEDULES)])

    def improve(board: np.ndarray, errors: int) -> None:
        with shared.get_lock():
            shared.value = min(shared.value, errors)
        processes.report(("board", errors, board))

    search.shared_bound = lambda: int(shared.value)
    search.on_improve = improve
    search.on_proof = lambda: processes.report(("proof",))
    search.on_restart = lambda: processes.report(("count", index, search.counts()))
    search.scan(lambda: None if deadline is None else deadline - time.time())
    return "done", index, search.counts()


class Neighbourhoods:
    """Destroy-and-repair moves on a full board (module docstring, part 2), each repair exact."""

    # (kind, ...) and how often: scattered inner cells gain most per second, measured on 16x16
    MOVES: tuple[tuple[str, int, int], ...] = (
        ("scattered", 0, 0),  # kind: 0 inside, 1 border
        ("scattered", 1, 0),
        ("window", 2, 2),  # height, width
        ("window", 2, 3),
        ("window", 3, 2),
        ("window", 3, 3),
    )
    WEIGHTS = (0.45, 0.1, 0.2, 0.1, 0.1, 0.05)
    WINDOW_NODES = 100_000

    def __init__(self, instance: Instance, look: np.ndarray, rng: np.random.Generator) -> None:
        self.instance = instance
        self.look = look
        self.rng = rng
        rows, cols, n = instance.rows, instance.cols, instance.cells
        cell = np.arange(n)
        r, c = cell // cols, cell % cols
        # neighbour[cell, side]: the adjacent cell across that side, -1 across the rim
        self.neighbour = np.stack(
            [
                np.where(r > 0, cell - cols, -1),
                np.where(c < cols - 1, cell + 1, -1),
                np.where(r < rows - 1, cell + cols, -1),
                np.where(c > 0, cell - 1, -1),
            ],
            axis=1,
        )
        self.rim_pattern = ((self.neighbour < 0) << np.arange(4)).sum(axis=1)
        self.grey_pattern = ((look == 0) << np.arange(4)).sum(axis=2)  # (tile, rotation)
        self.hinted = np.zeros(n, dtype=bool)
        self.hinted[[h.cell for h in instance.hints]] = True
        kinds = (self.neighbour < 0).sum(axis=1)
        self.free_of_kind = [np.flatnonzero((kinds == k) & ~self.hinted) for k in range(3)]

    def shown(self, board: np.ndarray) -> np.ndarray:
        """The colours each cell shows on its four sides."""
        return self.look[board[:, 0], board[:, 1]]

    def scattered(self, board: np.ndarray, kind: int) -> int:
        """Reassign the tiles of a random set of non-adjacent cells of one kind optimally; the gain."""
        free = self.free_of_kind[kind]
        if len(free) < 2:
            return 0
        blocked = np.zeros(self.instance.cells, dtype=bool)
        chosen = []
        for cell in self.rng.permutation(free):
            if not blocked[cell]:
                chosen.append(cell)
                blocked[cell] = True
                blocked[self.neighbour[cell][self.neighbour[cell] >= 0]] = True
        cells = np.array(chosen)
        shown = self.shown(board)
        nb = self.neighbour[cells]
        facing = np.where(nb >= 0, shown[nb, (np.arange(4) + 2) % 4], -1)  # (cells, side)
        tiles = board[cells, 0]
        tile_looks = self.look[tiles]  # (tile, rotation, side)
        miss = (tile_looks[:, None, :, :] != facing[None, :, None, :]) & (facing[None, :, None, :] >= 0)
        cost = miss.sum(axis=3)  # (tile, cell, rotation)
        fits = self.grey_pattern[tiles][:, None, :] == self.rim_pattern[cells][None, :, None]
        cost = np.where(fits, cost, 99)
        turn = cost.argmin(axis=2)
        least = cost.min(axis=2)
        old = int(cost[np.arange(len(cells)), np.arange(len(cells)), board[cells, 1]].sum())
        to = kernel.assignment(least)
        new = int(least[np.arange(len(cells)), to].sum())
        if new > old:
            return 0
        board[cells[to], 0] = tiles
        board[cells[to], 1] = turn[np.arange(len(cells)), to]
        return old - new

    def window(self, board: np.ndarray, height: int, width: int) -> int:
        """Re-solve a small window holding an unmatched edge by branch and bound; the gain."""
        instance = self.instance
        shown = self.shown(board)
        nb = self.neighbour
        bad = np.flatnonzero(((shown != shown[nb, (np.arange(4) + 2) % 4]) & (nb >= 0)).any(axis=1))
        if len(bad) == 0:
            return 0
        focus = int(self.rng.choice(bad))
        fr, fc = divmod(focus, instance.cols)
        top = min(max(0, fr - int(self.rng.integers(height))), instance.rows - height)
        left = min(max(0, fc - int(self.rng.integers(width))), instance.cols - width)
        if top < 0 or left < 0:
            return 0
        cells = np.array(
            [r * instance.cols + c for r in range(top, top + height) for c in range(left, left + width)],
            dtype=np.int64,
        )
        cells = cells[~self.hinted[cells]]
        m = len(cells)
        if m < 2:
            return 0
        index = np.full(instance.cells, -1, dtype=np.int64)
        index[cells] = np.arange(m)
        around = np.empty((m, 4), dtype=np.int64)
        current = 0
        for j, cell in enumerate(cells):
            for side in range(4):
                other = nb[cell, side]
                if other < 0:
                    around[j, side] = -1
                elif index[other] >= 0:
                    around[j, side] = -2 - index[other]
                    if index[other] < j:
                        current += int(shown[cell, side] != shown[other, (side + 2) % 4])
                else:
                    around[j, side] = shown[other, (side + 2) % 4]
                    current += int(shown[cell, side] != around[j, side])
        if current == 0:
            return 0
        tiles = board[cells, 0]
        fits = (self.grey_pattern[tiles][None, :, :] == self.rim_pattern[cells][:, None, None]).astype(np.int64)
        out = np.zeros(m, dtype=np.int64)
        best, _ = kernel.window_best(cells, around, self.look[tiles], fits, current, self.WINDOW_NODES, out)
        if best >= current:
            return 0
        board[cells, 0] = tiles[out // 4]
        board[cells, 1] = out % 4
        return int(current - best)

    def step(self, board: np.ndarray) -> int:
        """One random move, drawn by :attr:`MOVES` weights; the errors it removed."""
        move = self.MOVES[self.rng.choice(len(self.MOVES), p=self.WEIGHTS)]
        if move[0] == "window":
            return self.window(board, move[1], move[2])
        return self.scattered(board, move[1])


class ScoreSearch:
    """The row scan and the neighbourhood search, sharing :attr:`best`.

    ``shared_bound`` gives the errors of the best board of every worker: the scan's bound
    follows it; ``on_improve`` hears of each board better than the last, and ``checkpoint``
    writes it.
    """

    def __init__(self, instance: Instance, rng: np.random.Generator, schedule: Schedule) -> None:
        self.instance = instance
        self.rng = rng
        self.schedule = schedule
        self.cands = Candidates(instance)
        self.look = looks(instance)
        self.nodes = 0
        self.restarts = 0
        self.revisits = 0
        self.unrevisited = 0  # the restarts' nodes since the last revisit: what the next one may spend
        self.lns_moves = 0
        self.lns_gain = 0
        self.shared_bound: Callable[[], int] | None = None
        self.checkpoint: eternity_checkpoint.Checkpoint | None = None
        self.replaced = 0  # workers of a pool that died and were replaced
        self.workers: dict[int, Counts] = {}  # each worker's counts as of its last report, while they scan
        self.on_improve: Callable[[np.ndarray, int], None] | None = None
        self.on_proof: Callable[[], None] | None = None
        self.on_restart: Callable[[], None] | None = None
        self.proven = False  # a complete scan found nothing better than the best
        n = instance.cells
        greedy = Scan(self.cands, rng, np.full(n, 2 * n, dtype=np.int64))
        bound = np.array([4 * n], dtype=np.int64)
        status, done = greedy.run(4 * n, bound, double=True)
        assert status == FOUND, "a greedy dive that may leave any edge unmatched always ends"
        self.nodes += done
        board = greedy.board()
        self.best = Best(board, board_errors(instance, self.look, board), time.perf_counter())

    def offer(self, board: np.ndarray, errors: int) -> bool:
        """Keep the board if it beats the best (and tell ``on_improve`` and ``shared``); True when it does."""
        if errors >= self.best.errors:
            return False
        self.best = Best(board, errors, time.perf_counter(), self.best.improvements + 1)
        if self.on_improve is not None:
            self.on_improve(board, errors)
        if self.checkpoint is not None:
            self.checkpoint.save(board, errors)
        return True

    def counts(self) -> Counts:
        """(nodes, restarts, revisits) so far: what a worker tells the caller's search."""
        return self.nodes, self.restarts, self.revisits

    def nodes_so_far(self) -> int:
        """This search's nodes and its workers' as of their last report."""
        return self.nodes + sum(nodes for nodes, _, _ in self.workers.values())

    def settle(self) -> None:
        """The workers are done: their last :meth:`counts` added to this search's."""
        for nodes, restarts, revisits in self.workers.values():
            self.nodes += nodes
            self.restarts += restarts
            self.revisits += revisits
        self.workers = {}

    def tick(self) -> None:
        """Between two slices of work: write a board the checkpoint holds back."""
        if self.checkpoint is not None:
            self.checkpoint.tick()

    def bound(self) -> int:
        """The errors a new board must beat: the best board's, or the workers' best."""
        return self.best.errors if self.shared_bound is None else min(self.best.errors, self.shared_bound())

    def alternate(self, seeds: list[Any], pool: Pool | None = None) -> None:
        """Without a time limit, until stopped: scan restarts each followed by as long a polish,
        or with a pool of workers, their scans alone."""
        if pool is not None:
            pool(self, seeds, None)
            return
        while self.best.errors > 0 and not self.proven:
            began = time.perf_counter()
            self.scan(lambda: None, one_restart=True)
            self.polish(time.perf_counter() - began)

    def polish(self, seconds: float) -> None:
        """Neighbourhood moves on a copy of the best board for ``seconds``."""
        moves = Neighbourhoods(self.instance, self.look, self.rng)
        board = self.best.board.copy()
        errors = self.best.errors
        until = time.perf_counter() + seconds
        while errors > 0 and time.perf_counter() < until:
            for _ in range(20):
                gain = moves.step(board)
                self.lns_moves += 1
                if gain:
                    errors -= gain
                    self.lns_gain += gain
            if errors < self.best.errors:
                self.offer(board.copy(), errors)
            self.tick()

    def scan(
        self, remaining: Callable[[], float | None], restart_nodes: int | None = None, one_restart: bool = False
    ) -> None:
        """Row-scan restarts of ``restart_nodes`` nodes (:data:`RESTART_NODES`, read at the call),
        each with its :meth:`revisit`, until the time is up (or after one)."""
        restart_nodes = RESTART_NODES if restart_nodes is None else restart_nodes
        while self.bound() > 0 and not self.proven:
            left = remaining()
            if left is not None and left <= 0:
                return
            complete = self.schedule.complete
            scan = Scan(self.cands, self.rng, np.zeros(self.instance.cells, dtype=np.int64))
            began = self.nodes
            status, last = self.search(scan, START_SLACK, 0, restart_nodes, remaining)
            self.unrevisited += self.nodes - began
            if status is None:  # the time is up
                return
            if status == EXHAUSTED and complete:  # no board beats the best: it is optimal
                self.proven = True
                if self.on_proof is not None:
                    self.on_proof()
                return
            if status == EXHAUSTED:
                self.schedule = self.schedule.looser()
            elif last is not None and not complete:
                self.revisit(scan, last, restart_nodes, remaining)
            self.restarts += 1
            if self.on_restart is not None:
                self.on_restart()
            if one_restart:
                return

    def search(
        self, scan: Scan, start_slack: int, shape_slack: int, nodes: int, remaining: Callable[[], float | None]
    ) -> tuple[int | None, int | None]:
        """Run ``scan`` for ``nodes`` nodes with a bound of its own, ``start_slack`` errors above
        the best board's (or the workers' best), under the schedule for boards ``shape_slack``
        errors worse than its bound; each board it finds lowers its bound, and is offered when it
        beats the best.  (The kernel status it ended on, None when the time ran out; the errors
        of the last board it found, None for none.)"""
        n = self.instance.cells
        bound = np.array([self.bound() + start_slack], dtype=np.int64)
        complete = self.schedule.complete
        spent, last, shaped = 0, None, -1
        slice_nodes = FIRST_SLICE_NODES
        while spent < nodes:
            bound[0] = min(bound[0], self.bound() + start_slack)  # another worker may have found better
            if shaped != bound[0]:  # the schedule follows the bound
                shaped = int(bound[0])
                scan.state.allowed[:] = self.schedule.allowed(n, shaped - 1 + shape_slack)
            began = time.perf_counter()
            status, done = scan.run(min(slice_nodes, nodes - spent), bound, double=complete)
            took = time.perf_counter() - began
            spent += done
            self.nodes += done
            if done >= slice_nodes:
                slice_nodes = int(max(FIRST_SLICE_NODES, slice_nodes * SLICE_SECONDS / max(took, 1e-3)))
            if status == FOUND:
                last = int(bound[0])
                if last < self.bound():  # a stepping stone above the best is not handed on
                    self.offer(scan.board(), last)
            if status == EXHAUSTED or bound[0] == 0:
                return status, last
            self.tick()
            left = remaining()
            if left is not None and left <= 0:
                return None, last
        return BUDGET, last

    def revisit(self, scan: Scan, errors: int, nodes: int, remaining: Callable[[], float | None]) -> None:
        """After a restart whose last board came within :data:`REVISIT` errors of the best: search
        again below that board's head (its depths before :func:`revisit_depth`), aiming straight at
        the best (no stepping stones), under the schedules of :data:`REVISIT_SLACKS` in turn, each
        looser than the last, until the nodes are spent: :data:`REVISIT_SHARE` of those the
        restarts took since the last revisit, and at least ``nodes``.  The restart searched below
        that head only with the tightened schedule of its last board, which better boards below
        it may not fit; a head that came that close holds them far more often than a fresh one,
        and the nearer the best, the rarer such heads and the more each is worth (measured: docs)."""
        keep = revisit_depth(self.instance)
        if REVISIT < 0 or keep <= 0 or self.bound() == 0 or errors > self.bound() + REVISIT:
            return
        budget = max(nodes, int(REVISIT_SHARE * self.unrevisited))
        self.unrevisited = 0
        self.revisits += 1
        began = self.nodes
        for slack in REVISIT_SLACKS:
            again = Scan(
                self.cands, self.rng, np.zeros(self.instance.cells, dtype=np.int64), scan.state.best_placed[:keep]
            )
            status, _ = self.search(again, 0, slack, budget - (self.nodes - began), remaining)
            if status != EXHAUSTED or self.bound() == 0 or self.nodes - began >= budget:
                return
