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
   :data:`~Knobs.start_slack` errors above the best board's and tightens it with each board it
   completes (stepping stones), handing on only the boards that beat the best; a restart that exhausts its
   search loosens the schedule, up to the complete one, whose exhaustion proves the best
   board optimal.  The first board of all is a greedy dive that may leave both sides unmatched.
   The last rows (:func:`tail_rows`) are filled column by column (:func:`fill_order`), so the
   bottom border row is not left to the end with the few border tiles that are left over, and
   so is each hint's row with the ``hint_ahead`` rows above it, whose cells west and north
   of the hint take tiles that fit it first, and one that misses it only where the schedule
   allows the error at the hint (:func:`hint_neighbours`); a band's first two columns are
   filled together, row by row (``lead_columns``).  A restart whose last board came within
   ``revisit`` errors of the best is followed by a *revisit* (:meth:`ScoreSearch.revisit`):
   a search below that board's head aimed straight at the best, under looser schedules, for
   as many nodes as the restarts took to find that head.
2. **Large neighbourhood search** on the best board (:class:`Neighbourhoods`), in the time
   the scan leaves (``scan_share``): destroy and repair, each repair exact.  *Windows*: a small
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
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from puzzlesat.core import Limits, PuzzlesatError, Result, Status, processes
from puzzlesat.core.deadline import DeadlineExceeded, hard_deadline, held_off
from puzzlesat.core.incumbent import Incumbent
from puzzlesat.core.interrupts import terminate_as_interrupt
from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.core.knobs import knob
from puzzlesat.domains.eternity import GREY, Instance, Solution, max_score, rotated
from puzzlesat.native.eternity import checkpoint as eternity_checkpoint
from puzzlesat.native.eternity import completion
from puzzlesat.native.eternity import hunt as hunt_module
from puzzlesat.native.eternity.arrays import Rows, ScanState
from puzzlesat.native.eternity.hunt import Hunt
from puzzlesat.native.eternity.knobs import HEAD_START, Knobs
from puzzlesat.native.eternity.search import Lookup
from puzzlesat.native.first_dispatch import without_blas_probe

SLICE_SECONDS = 0.2  # between two looks at the clock (and at Ctrl-C)
FIRST_SLICE_NODES = 200_000
STOP_RESERVE = 1.0  # seconds (5% of a short limit) before the limit that the search ends, to stop its workers
COUNT_SECONDS = 1.0  # between a worker's reports of its counts (and at each restart)
# at the end of a hunt, for the workers' last boards and counts (a worker looks at the clock every
# SLICE_SECONDS); with the pool's grace for workers still busy to stop (0.5 s), within STOP_RESERVE
DRAIN_SECONDS = 0.35
BATCH_MESSAGES = 16  # a scan worker's messages taken in one go when they wait (a board: about 4 ms)
DEFAULT = Knobs()  # the knobs (Options of native-rowscan: puzzlesat.native.eternity.knobs) as measured


@dataclass
class Schedule:
    """How many unmatched edges the row scan may have left once it has placed cell d.

    ``allowed(d) = floor(errors * ((d - start + 1) / span) ** power)`` past ``start = cells -
    span`` and none before, ``span = ceil(tail * cells)``: the last ``tail`` of the board takes
    every error, most of them in its last rows, where few tiles are left to choose from.

    A restart that exhausts its search found no better board under the schedule: the next one
    is :meth:`looser`, and the loosest, :attr:`complete` (every error allowed everywhere, both
    sides of a tile unmatched too), searches every board, so exhausting it proves the best.

    With ``points`` (the ``breaks`` knob) the allowance is theirs instead, in (cell, errors)
    points: none before the first cell, linear between two points, the last one's after it,
    and never more than ``errors`` (Blackwood's shape: every edge matched until late in the
    fill order, then a fixed budget); looser than it is only the complete schedule.
    """

    tail: float = 0.35
    power: float = 2.5
    points: tuple[tuple[int, int], ...] = ()

    @property
    def complete(self) -> bool:
        """True for the schedule that excludes no board."""
        return self.power == 0

    def looser(self) -> Schedule:
        """A schedule that allows more: a tail half as long again, then the complete one."""
        if self.tail >= 1.0 or self.points:
            return Schedule(1.0, 0.0)
        return Schedule(min(1.0, self.tail * 1.5), self.power)

    def start(self, cells: int) -> int:
        """The first depth that may take an error: every edge before it matches (the head)."""
        return cells - max(1, math.ceil(self.tail * cells))

    def allowed(self, cells: int, errors: int) -> np.ndarray:
        """The allowance per depth for boards with at most ``errors`` unmatched edges."""
        if self.points:
            at, most = np.array(self.points, dtype=np.float64).T
            ramp = np.interp(np.arange(cells), at, most, left=0.0)
            return np.minimum(np.floor(ramp), max(errors, 0)).astype(np.int64)
        start = self.start(cells)
        depth = np.arange(cells)
        ramp = np.clip((depth - start + 1) / (cells - start), 0.0, 1.0)
        return np.floor(max(errors, 0) * ramp**self.power).astype(np.int64)


def kernels() -> ModuleType:
    """The numba kernels (:mod:`puzzlesat.native.eternity.score_kernel`), imported at first use:
    importing numba takes seconds on a loaded machine, which a run's time limit counts, and the
    run holds a board by then (:func:`solve_score`)."""
    from puzzlesat.native.eternity import score_kernel

    return score_kernel


def schedules(knobs: Knobs) -> tuple[Schedule, ...]:
    """The workers' schedules: worker i scans with the i-th (cyclically).  On 16x16 restarts with
    tails of 0.35-0.37 of the board reach 458 four times as often as with 0.4, 0.3 or 0.45, and
    powers 2 or 3 do far worse (docs).  The ``breaks`` knob gives every worker its schedule."""
    if knobs.breaks:
        return (Schedule(points=knobs.breaks),)
    return tuple(Schedule(tail, power) for tail, power in knobs.schedules)


SCHEDULES = schedules(DEFAULT)


def worker_schedule(knobs: Knobs, index: int) -> Schedule:
    """Worker ``index``'s schedule (:func:`schedules`, cyclically)."""
    given = schedules(knobs)
    return given[index % len(given)]


def tail_rows(instance: Instance, knobs: Knobs = DEFAULT) -> int:
    """How many of the last rows :func:`fill_order` fills column by column: ``tail_columns``
    when set, else five, or four when a hint lies in those five.  Measured on the official
    16x16 (docs): with the starter piece (row 8) five rows reach 460-462 in ten minutes where
    four reach 459 and six or eight fewer; with all five hints (two in row 13) restarts with
    four rows reached 456 and 457 two to four times as often as with five, and one hour
    reached 460 where five stayed at 459.  Blackwood's fill order: five, as his."""
    if knobs.tail_columns is not None:
        return knobs.tail_columns
    if knobs.fill == "blackwood":
        return 5
    return 4 if any(hint.cell // instance.cols >= instance.rows - 5 for hint in instance.hints) else 5


def revisit_depth(instance: Instance, knobs: Knobs = DEFAULT) -> int:
    """The depth from which a :meth:`ScoreSearch.revisit` searches a board again: the tail band
    (:func:`tail_rows`) and ``revisit_rows`` rows' worth of depths before it (0: none)."""
    return max(0, instance.cells - (tail_rows(instance, knobs) + knobs.revisit_rows) * instance.cols)


def fill_order(instance: Instance, tail: int, knobs: Knobs = DEFAULT) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, west_of, north_of) by depth: the order the row scan fills the cells in, and the
    depths of each cell's west and north neighbours (-1 across the rim), which come before it.

    The rows fall into bands, filled one after the other, each column by column (top-down,
    the columns left to right), so a band of one row is filled row-major:

    * the last ``tail`` rows form one band, so that the bottom border row is not left to the end,
      where few border tiles are left to match the row above (as Blackwood's solver fills its
      last rows by columns);
    * a hint's row above them and the ``hint_ahead`` rows above it form one, so that the
      cells that decide whether the hint fits are placed close together: row by row, a row's
      worth of cells that do not touch the hint lie between the tile above it and the one left
      of it, and when the hint does not fit, the scan tries every choice of those cells again
      before it changes the ones that matter (with all five hints of the official board, most
      restarts of 20 M nodes never got past the first rows; measured: docs).

    The first ``lead_columns`` (2) of a band are filled together, row by row: the first
    column is the board's border, whose cells only the colour above them holds, and filled
    alone its tiles are tried in every order before the second column finds that the first
    does not fit (with the starter piece a third of the scan's nodes went there: docs).
    """
    rows, cols = instance.rows, instance.cols
    tail = min(max(tail, 0), rows)
    if knobs.fill == "blackwood":
        return neighbours_by_depth(instance, blackwood_order(rows, cols, tail))
    band = [min(row, rows - tail) for row in range(rows)]  # each row's band: the first row in it
    ahead, lead = knobs.hint_ahead, knobs.lead_columns
    for hint in instance.hints if ahead else ():
        row = hint.cell // cols
        if row < rows - tail:  # the hint's band joins the ones of the hint_ahead rows above
            joined, into = band[row], band[max(row - ahead, 0)]
            band = [into if into <= b <= joined else b for b in band]
    by_band = sorted(
        range(instance.cells), key=lambda x: (band[x // cols], max(x % cols, lead - 1), x // cols, x % cols)
    )
    return neighbours_by_depth(instance, by_band)


def neighbours_by_depth(instance: Instance, order: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, west_of, north_of) by depth of the fill order ``order`` (cells)."""
    cols = instance.cols
    cell = np.array(order, dtype=np.int64)
    depth = np.empty(instance.cells, dtype=np.int64)
    depth[cell] = np.arange(instance.cells)
    r, c = cell // cols, cell % cols
    west_of = np.where(c > 0, depth[cell - 1], -1).astype(np.int64)
    north_of = np.where(r > 0, depth[cell - cols], -1).astype(np.int64)
    return cell, west_of, north_of


def blackwood_order(rows: int, cols: int, tail: int) -> list[int]:
    """Blackwood's fill order (``fill=blackwood``), his solver's on 16x16 and its shape on any
    board: the rows above the last ``tail`` row by row; then in those rows their first five
    columns row by row, the columns after them but the last four column by column, and the
    last four peeled: the block's top row, then its first column, until it is two columns
    wide, then row by row.  His breaks fall on the columns filled one by one, the last cells
    are a staircase whose every cell has both neighbours placed early."""
    head = [r * cols + c for r in range(rows - tail) for c in range(cols)]
    top, left, right = rows - tail, min(5, cols), max(min(5, cols), cols - 4)
    block = [r * cols + c for r in range(top, rows) for c in range(left)]
    middle = [r * cols + c for c in range(left, right) for r in range(top, rows)]
    peeled: list[int] = []
    r0, c0 = top, right
    while cols - c0 > 2 and r0 < rows:
        peeled += [r0 * cols + c for c in range(c0, cols)] + [r * cols + c0 for r in range(r0 + 1, rows)]
        r0, c0 = r0 + 1, c0 + 1
    peeled += [r * cols + c for r in range(r0, rows) for c in range(c0, cols)]
    return head + block + middle + peeled


# Blackwood's minimum of the rare colours' sides placed, (depth, sides) on 16x16 for his three
# colours' 122 sides, linear in between, none past the last point: read from his solver's
# source (EternityII_Solver, heuristic_array), taken here as shares of the board and the sides
BLACKWOOD_RARE = ((16, 0), (26, 28), (56, 71), (76, 89), (102, 106), (160, 119))
BLACKWOOD_CELLS, BLACKWOOD_SIDES = 256, 122


def rare_sides(instance: Instance, colours: tuple[int, ...]) -> np.ndarray:
    """Per tile, how many of its sides show one of ``colours``."""
    return np.isin(np.array(instance.tiles, dtype=np.int64), colours).sum(axis=1).astype(np.int64)


def rare_minimum(instance: Instance, colours: tuple[int, ...], share: float) -> np.ndarray:
    """Per depth, the least sides of ``colours`` placed once that depth's cell is (the ``rare``
    knob): Blackwood's curve (:data:`BLACKWOOD_RARE`) scaled to the board's cells and these
    colours' sides, times ``share``; 0 past its last point and everywhere without colours.
    His fill order places the rows first, so by two thirds of the board nearly every side of
    the rare colours is placed and the last rows, where errors are allowed, have the common
    colours to match each other with."""
    cells = instance.cells
    need = np.zeros(cells, dtype=np.int64)
    if not colours or share <= 0:
        return need
    total = int(rare_sides(instance, colours).sum())
    at, sides = np.array(BLACKWOOD_RARE, dtype=np.float64).T
    depth = np.arange(cells) * BLACKWOOD_CELLS / cells
    curve = np.interp(depth, at, sides, left=0.0) * total * share / BLACKWOOD_SIDES
    need[:] = np.floor(curve)
    need[depth > at[-1]] = 0
    return need


def hint_neighbours(
    instance: Instance, rows: np.ndarray, classes: np.ndarray, nclasses: int, ahead: int = DEFAULT.hint_ahead
) -> tuple[np.ndarray, np.ndarray, int]:
    """(rows, miss, nclasses) with a class of its own for each cell west or north of a hint
    (``classes`` changed in place): its class's rows again, ``miss`` the sides of the hint each
    would leave unmatched there (0 on every other row).  The lists put the rows that miss least
    first, so that the scan places a tile that fits the hint it will meet rather than find the
    mismatch there, and the scan places one that misses only where the schedule allows the
    error at the hint's depth (:func:`hints_ahead`).  Off with ``ahead`` (``hint_ahead``) 0."""
    miss = np.zeros(len(rows), dtype=np.int64)
    if not ahead:
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


def hints_ahead(instance: Instance, cell: np.ndarray, rows_ahead: int = DEFAULT.hint_ahead) -> np.ndarray:
    """Per depth of the fill order ``cell``: the depth of the hint east or south of its cell (the
    later one when both), -1 for none or with ``rows_ahead`` (``hint_ahead``) 0.  A tile placed there that
    misses the hint makes an error certain at that depth, which the scan checks at once."""
    depth = np.empty(instance.cells, dtype=np.int64)
    depth[cell] = np.arange(instance.cells)
    ahead = np.full(instance.cells, -1, dtype=np.int64)
    for hint in instance.hints if rows_ahead else ():
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

    def __init__(self, instance: Instance, knobs: Knobs = DEFAULT) -> None:
        self.knobs = knobs
        lookup = Lookup(instance, symmetry=instance.square)
        c = instance.colours
        self.colours = c
        classes = np.array(lookup.classes, dtype=np.int64)
        # class, west * C + north, tile, rotation, east, south
        rows = np.array(lookup.rows, dtype=np.int64).reshape(-1, 6)
        rows, self.miss, self.nclasses = hint_neighbours(instance, rows, classes, lookup.nclasses, knobs.hint_ahead)
        self.cls = rows[:, 0]
        west, north = rows[:, 1] // c, rows[:, 1] % c
        self.rot = np.ascontiguousarray(rows[:, 3])
        east, south = (np.ascontiguousarray(rows[:, i]) for i in (4, 5))
        tile = rows[:, 2].astype(np.uint16)
        self.cell, west_of, north_of = fill_order(instance, tail_rows(instance, knobs), knobs)
        classes = np.ascontiguousarray(classes[self.cell])
        miss, ahead = self.miss.astype(np.uint8), hints_ahead(instance, self.cell, knobs.hint_ahead)
        self.rare = rare_sides(instance, knobs.rare)
        self.need = rare_minimum(instance, knobs.rare, knobs.rare_share)
        self.rows = Rows(
            west_of,
            north_of,
            c,
            classes,
            tile,
            np.ascontiguousarray(north),
            east,
            south,
            west,
            miss,
            ahead,
            self.rare,
        )
        self.keys = (west * c + north, north, west, np.zeros_like(west))
        self.sides = np.stack([north, east, south, west])

    def preference(self, rng: np.random.Generator) -> np.ndarray:
        """Per row, how many of its sides show one of ``order_colours`` colours drawn (grey
        aside): such tiles come first in every list, so a restart uses those colours up early and
        leaves the tiles of the others for the last rows (a soft form of Blackwood's colour
        exhaustion); all zero when ``order_colours`` is 0, with nothing drawn.  With ``rare``
        colours, the sides of those instead, nothing drawn (Blackwood's order of his lists)."""
        if self.knobs.rare:
            return self.rare[self.rows.tile]
        colours = self.knobs.order_colours
        if not colours:
            return np.zeros(len(self.cls), dtype=np.int64)
        drawn = rng.choice(np.arange(1, self.colours), size=min(colours, self.colours - 1), replace=False)
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
    depths, which the scan never changes), resumable call after call; with ``rare``, under the
    rare colours' minimum (:func:`rare_minimum`; a complete scan, whose exhaustion is a proof,
    goes without it)."""

    def __init__(
        self,
        cands: Candidates,
        rng: np.random.Generator,
        allowed: np.ndarray,
        head: np.ndarray | None = None,
        rare: bool = False,
    ) -> None:
        self.cands = cands
        self.state = ScanState.start(cands.arrays(rng), allowed, cands.need.copy() if rare else None)
        self.completed = 0  # the depth of the last deepest board completed (ScoreSearch.complete_deepest)
        if head is not None:
            self.keep(head)

    def keep(self, head: np.ndarray) -> None:
        """Place ``head`` on the first depths for good (the kernels' phase ``KEPT``), its errors
        counted as the kernel counts them (west and north sides)."""
        r, s = self.cands.rows, self.state
        for d, row in enumerate(head):
            west = r.east[s.placed[r.west_of[d]]] if r.west_of[d] >= 0 else 0
            north = r.south[s.placed[r.north_of[d]]] if r.north_of[d] >= 0 else 0
            s.placed[d], s.phase[d], s.used[r.tile[row]] = row, kernels().KEPT, 1
            s.rare_sum[d + 1] = s.rare_sum[d] + r.rare[r.tile[row]]
            s.errors[d + 1] = s.errors[d] + int(r.west[row] != west) + int(r.north[row] != north)
        s.depth[0] = len(head)

    def run(self, budget: int, best: np.ndarray, double: bool = False) -> tuple[int, int]:
        """(kernel status, nodes) of at most ``budget`` nodes; FOUND lowers ``best[0]``."""
        status, nodes = kernels().scan(self.cands.rows, self.state, best, int(double), max(1, budget))
        return int(status), int(nodes)

    def deepest(self) -> np.ndarray:
        """The deepest partial board the scan has filled, as (tile, rotation) per cell, -1 on the
        cells it left empty."""
        depth = int(self.state.deep[0])
        rows = self.state.deep_placed[:depth]
        board = np.full((len(self.state.placed), 2), -1, dtype=np.int64)
        board[self.cands.cell[:depth]] = np.stack([self.cands.rows.tile[rows], self.cands.rot[rows]], axis=1)
        return board

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


Pool = Callable[["ScoreSearch", list[Any], "float | None"], None]
"""Runs row scans elsewhere: ``pool(search, seeds, until)`` scans with one worker per seed until
``until`` (:func:`time.perf_counter`; None: until stopped), offering their boards to ``search``."""


# a search's nodes, restarts, revisits and a hunt's boards by errors (ScoreSearch.counts)
Counts = tuple[int, int, int, dict[int, int]]


def worker_seeds(seed: int, runs: int, count: int) -> list[Any]:
    """The workers' seeds, ``[seed, i + 1]``: no two runs of different seeds share one (as
    ``seed + 1 + i`` did); a resumed run (``runs`` before it) draws other orders."""
    return [[seed, i + 1] if runs == 0 else [seed, i + 1, runs] for i in range(count)]


def solve_score(instance: Instance, limits: Limits, pool: Pool | None = None, began: float | None = None) -> Result:
    """The anytime best-score search (:func:`search_score`), which holds its time limit itself,
    counted from ``began`` (perf_counter; default now: a caller that imported this module first
    says when it started): the caller's hard deadline (``run_strategy``'s) is held off, so that
    what it finds is answered even when the machine is too loaded to stop within that
    deadline's margin."""
    with held_off():
        return search_score(instance, limits, pool, time.perf_counter() if began is None else began)


def search_score(instance: Instance, limits: Limits, pool: Pool | None, started: float) -> Result:
    """The anytime best-score search (module docstring); OPTIMAL for a board with no error or
    after a complete scan (:attr:`Schedule.complete`) found none better.

    ``limits.workers`` > 1 runs that many row scans in worker processes
    (:func:`scan_in_processes`, or ``pool``'s workers), each with its own seed and schedule
    (the ``schedules`` knob), sharing the best board's errors as their bound; this process
    polishes the best board they find.  The options ``checkpoint`` and ``resume`` are read
    here (module docstring), and ``target`` and ``boards``: a hunt at a fixed level
    (:mod:`~puzzlesat.native.eternity.hunt`), which scans the whole time and polishes nothing.

    The answer is never lost: a legal board is in hand before the kernels are compiled (the
    resumed one, or :func:`legal_board`), and the time limit counts the compilation: when it
    passes before the search is done (a cold cache, a loaded machine), or on Ctrl-C or SIGTERM,
    the best board held so far is the answer.
    """
    options = limits.options
    if options.get("boards") and options.get("target") is None:
        raise PuzzlesatError(hunt_module.ALONE)
    hunt = Hunt(instance, options["target"], options.get("boards")) if options.get("target") is not None else None
    for name in ("checkpoint", "resume"):
        if options.get(name):
            eternity_checkpoint.check_paths(options[name])
    try:  # the first board, within the time limit: a loaded machine may take it all
        with hard_deadline(limits.remaining(started), "the score search made its first board"):
            resumed = eternity_checkpoint.read(instance, options["resume"]) if options.get("resume") else None
            held = resumed.board if resumed is not None else legal_board(instance)
    except DeadlineExceeded as exc:
        return Result(Status.UNKNOWN, wall_time=time.perf_counter() - started, message=f"{exc}: no board held yet")
    run = ScoreRun(instance, limits, pool, resumed, hunt)
    message = ""
    timeout = limits.timeout
    # the search stops itself a moment before the time limit (STOP_RESERVE: for stopping its
    # workers); at the limit (imports or a compilation or the workers' start on a loaded
    # machine), the board held is the answer; with none in hand (a board the plain greedy cannot
    # fill), the search must make one
    stall = None if held is None else limits.remaining(started)
    try:
        with terminate_as_interrupt(), hard_deadline(stall, "the score search"):
            run.search_for(None if timeout is None else started + timeout - min(STOP_RESERVE, 0.05 * timeout))
    except KeyboardInterrupt:
        message = "interrupted"
    except DeadlineExceeded:
        message = "time limit reached before the search was done: the best board held"
    finally:
        if run.search is not None and run.search.checkpoint is not None:
            run.search.checkpoint.flush()
    search = run.search
    board = held if search is None else search.best.board
    if board is None:
        return Result(Status.UNKNOWN, wall_time=time.perf_counter() - started, message=message)
    errors = board_errors(instance, looks(instance), board)
    total = max_score(instance)
    stats: dict[str, Any] = {"score": f"{total - errors}/{total}"}
    if search is None:
        stats["compile_time"] = round(time.perf_counter() - started, 3)
        stats["answer"] = "resumed board" if resumed is not None else "plain greedy board (the kernels were not ready)"
    else:
        stats |= {
            "nodes": search.nodes,
            "restarts": search.restarts,
            "revisits": search.revisits,
            "improvements": search.best.improvements,
            "lns_moves": search.lns_moves,
            "lns_gain": search.lns_gain,
            "best_at": round(search.best.found_at - run.start, 3),
            "compile_time": round(run.compile_time, 3),
        }
        if run.pool is not None:
            stats["workers"] = limits.workers
        if search.replaced:
            stats["workers_replaced"] = search.replaced
        if search.checkpoint is not None:
            stats.update(search.checkpoint.stats())
    # a hunt's complete search proves its best board only when that board is of its level
    proven = errors == 0 or (search is not None and search.proven and (hunt is None or errors <= hunt.errors))
    if hunt is not None:
        found = {} if search is None else search.found_so_far()
        stats.update(hunt.stats(found))
        hunt.report(0 if search is None else search.nodes, found, force=True)
        if search is not None and search.proven and errors > hunt.errors:
            message = f"no board of score {hunt.target} or more exists (a complete search)"
        if hunt.failed:
            message += f"; {hunt.failed}"
    if not message and not proven:
        message = "time limit: the best board found, not proven the best"
    if search is not None and search.checkpoint is not None and search.checkpoint.failed:
        message += f"; {search.checkpoint.failed}"
    return Result(
        Status.OPTIMAL if proven else Status.FEASIBLE,
        Solution(tuple((int(t), int(r)) for t, r in board)),
        objective=errors,
        wall_time=time.perf_counter() - started,
        stats=stats,
        message=message.lstrip("; "),
        boards=[] if hunt is None else hunt.boards,
    )


class ScoreRun:
    """One ``--score`` run's search, built once the kernels are compiled (:attr:`search` None
    before), so that what it holds is there whenever the run is stopped."""

    def __init__(self, instance: Instance, limits: Limits, pool: Pool | None, resumed: Any, hunt: Hunt | None) -> None:
        self.instance = instance
        self.limits = limits
        self.pool = pool if pool is not None or limits.workers <= 1 else scan_in_processes
        self.resumed = resumed
        self.hunt = hunt
        self.search: ScoreSearch | None = None
        self.compile_time = 0.0
        self.start = time.perf_counter()

    def search_for(self, until: float | None) -> None:
        """Compile, build the search (its checkpoint too) and search until ``until`` (perf_counter)."""
        instance, limits, resumed = self.instance, self.limits, self.resumed
        compile_start = time.perf_counter()
        with without_blas_probe():
            kernels().warm_up()
        self.compile_time = time.perf_counter() - compile_start
        self.start = time.perf_counter()
        runs = 0 if resumed is None else (resumed.record.runs if resumed.record else 1)
        knobs = Knobs.from_options(limits.options)
        rng = np.random.default_rng(limits.seed if runs == 0 else [limits.seed, runs])
        search = ScoreSearch(instance, rng, schedules(knobs)[0], knobs)
        if resumed is not None:
            search.best = Best(resumed.board, resumed.errors, time.perf_counter())
        if self.hunt is not None:
            search.level, search.hunt = self.hunt.errors, self.hunt
        options = limits.options
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
        self.search = search
        seeds = worker_seeds(limits.seed, runs, limits.workers)
        if self.pool is scan_in_processes and self.hunt is None:  # a small board is settled here, no process started
            alone = knob(limits.options, HEAD_START)
            head_until = time.perf_counter() + (
                alone if until is None else min(alone, (until - time.perf_counter()) * knobs.scan_share)
            )
            search.scan(lambda: head_until - time.perf_counter())
            if search.proven or search.best.errors == 0:
                return
        if until is None:
            search.alternate(seeds, self.pool)
            return
        hunting = self.hunt is not None
        scan_until = until if hunting else time.perf_counter() + (until - time.perf_counter()) * knobs.scan_share
        if self.pool is not None:
            self.pool(search, seeds, scan_until)
        else:
            search.scan(lambda: scan_until - time.perf_counter())
        if not search.proven and not hunting:
            search.polish(until - time.perf_counter())


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


def legal_board(instance: Instance) -> np.ndarray | None:
    """A legal board (every tile once, grey exactly on the frame, the hints kept) made in plain
    Python, before the kernels are ready: each cell in turn takes, of the unused tiles of its
    kind turned to fit the frame, the one that matches its west and north neighbours best (of
    the first few: this is a board to answer with, not a search)."""
    cells = instance.cells
    board = np.zeros((cells, 2), dtype=np.int64)
    hinted = {hint.cell: (hint.tile, hint.rotation) for hint in instance.hints}
    free = [t for t in range(cells) if t not in {tile for tile, _ in hinted.values()}]
    shown: list[tuple[int, ...]] = [()] * cells
    for cell in range(cells):
        if cell in hinted:
            tile, turn = hinted[cell]
        else:
            frame = set(instance.frame_sides(cell))
            r, c = divmod(cell, instance.cols)
            west = shown[cell - 1][1] if c > 0 else None
            north = shown[cell - instance.cols][2] if r > 0 else None
            best: tuple[int, int, int] | None = None
            looked = 0
            for index, t in enumerate(free):
                for turn in range(4):
                    sides = rotated(instance.tiles[t], turn)
                    if {s for s in range(4) if sides[s] == GREY} != frame:
                        continue
                    misses = int(west is not None and sides[3] != west) + int(north is not None and sides[0] != north)
                    if best is None or misses < best[0]:
                        best = (misses, index, turn)
                    looked += 1
                if best is not None and (best[0] == 0 or looked >= 64):
                    break
            if best is None:  # no tile of the cell's kind left: the search's greedy dive will say more
                return None
            tile, turn = free.pop(best[1]), best[2]
        board[cell] = tile, turn
        shown[cell] = rotated(instance.tiles[tile], turn)
    return board


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
        with processes.TaskPool(len(seeds), _start_scans, (shared,), name="puzzlesat-score") as pool:
            tasks = [(search.instance, seed, i, deadline, search.level, search.knobs) for i, seed in enumerate(seeds)]
            pool.submit(_scans, tasks)
            while done < len(seeds) and not search.done():
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
                done += _heard(search, message)
                done += _heard_ready(search, pool, BATCH_MESSAGES)
            drain = time.perf_counter() + DRAIN_SECONDS
            while search.level is not None and done < len(seeds) and time.perf_counter() < drain:
                try:  # a hunt's workers end on the same clock: their last boards and counts
                    done += _heard(search, pool.next(timeout=max(0.0, drain - time.perf_counter())))
                except (TimeoutError, processes.WorkerDied):
                    break
    finally:
        search.settle()


def every(seconds: float, call: Callable[[], None]) -> Callable[[], None]:
    """``call``, made to run at most once every ``seconds`` (a worker's counts between restarts)."""
    last = [time.monotonic()]

    def maybe() -> None:
        if time.monotonic() - last[0] >= seconds:
            last[0] = time.monotonic()
            call()

    return maybe


def _heard_ready(search: ScoreSearch, pool: processes.TaskPool, most: int) -> int:
    """The messages already waiting (at most ``most``) taken into ``search`` in one go, before the
    next look at the clock and the shared bound (a hunt's boards come by the hundred a second);
    the number of "done" among them."""
    done = 0
    for _ in range(most):
        try:
            message = pool.next(timeout=0.0)
        except (TimeoutError, processes.WorkerDied):  # none waiting; a worker's end is seen by the caller
            break
        done += _heard(search, message)
    return done


def _heard(search: ScoreSearch, message: tuple[Any, ...]) -> int:
    """Take a scan worker's message into ``search``; 1 for its last ("done"), else 0."""
    if message[0] == "board":
        search.offer(message[2], message[1])
    elif message[0] == "hit":  # a board of the hunt's level, new to its worker, with its counts
        search.workers[message[3]] = message[4]
        if search.hunt is not None:
            search.hunt.add(message[2], message[1])
    elif message[0] == "proof":  # a worker's complete scan: the shared bound is optimal (a hunt's level searched)
        search.proven = True
    else:  # "count", or "done" with the last counts
        search.workers[message[1]] = message[2]
        return int(message[0] == "done")
    return 0


_SHARED: list[Any] = []  # in a scan worker: the shared bound


def _start_scans(shared: Any) -> None:
    """A scan worker's start: the kernels, and the shared bound."""
    with without_blas_probe():
        kernels().warm_up()
    _SHARED.append(shared)


def _scans(task: tuple[Instance, Any, int, float | None, int | None, Knobs]) -> tuple[str, int, Counts]:
    """A pool task: row scans with seed and schedule ``index`` until ``deadline`` (:func:`time.time`,
    which every process reads alike); each board beating the shared bound is reported, each
    board of a hunt's ``level`` (its most errors; None: no hunt) too, and the counts at each
    restart.  Returns ("done", index, counts)."""
    instance, seed, index, deadline, level, knobs = task
    shared = _SHARED[0]
    search = ScoreSearch(instance, np.random.default_rng(seed), worker_schedule(knobs, index), knobs)
    search.level = level
    search.on_hit = lambda board, errors: processes.report(("hit", errors, board, index, search.counts()))

    def improve(board: np.ndarray, errors: int) -> None:
        with shared.get_lock():
            shared.value = min(shared.value, errors)
        processes.report(("board", errors, board))

    search.shared_bound = lambda: int(shared.value)
    search.on_improve = improve
    search.on_proof = lambda: processes.report(("proof",))
    search.on_restart = lambda: processes.report(("count", index, search.counts()))
    search.on_tick = every(COUNT_SECONDS, search.on_restart)
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
        to = kernels().assignment(least)
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
        best, _ = kernels().window_best(cells, around, self.look[tiles], fits, current, self.WINDOW_NODES, out)
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

    A hunt (:attr:`level` set: the most unmatched edges a board of the target score has) keeps
    the bound at that level instead, never tightened by the boards found: each restart steps
    down to it from ``start_slack`` errors above as usual and then stays there, handing
    every board of the level or better to ``on_hit`` (``hunt`` in the process that answers,
    whose ladder :meth:`tick` reports).
    """

    def __init__(
        self, instance: Instance, rng: np.random.Generator, schedule: Schedule, knobs: Knobs = DEFAULT
    ) -> None:
        self.instance = instance
        self.knobs = knobs
        self.rng = rng
        self.schedule = schedule
        self.cands = Candidates(instance, knobs)
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
        self.level: int | None = None  # a hunt's errors at most (None: the best score search)
        self.on_hit: Callable[[np.ndarray, int], None] | None = None
        self.hunt: Hunt | None = None
        self.found: dict[int, int] = {}  # a hunt's boards completed, by their errors (the same one again too)
        self.hit_keys = hunt_module.Recent()  # the boards handed on lately, by hunt.key: each once
        self.on_tick: Callable[[], None] | None = None
        self.proven = False  # a complete scan found nothing better than the best (a hunt: every board of its level)
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

    def hit(self, board: np.ndarray, errors: int) -> None:
        """A board of the hunt's level or better: counted, and handed on once while this search
        remembers it (:class:`~puzzlesat.native.eternity.hunt.Recent`: a revisit finds its
        restart's boards again, a scan the neighbours of each) to ``on_hit``, or to the hunt."""
        self.found[errors] = self.found.get(errors, 0) + 1
        if not self.hit_keys.add(hunt_module.key(board)):
            return
        if self.on_hit is not None:
            self.on_hit(board, errors)
        elif self.hunt is not None:
            self.hunt.add(board, errors)

    def found_so_far(self) -> dict[int, int]:
        """A hunt's boards completed by errors: this search's and its workers' as of their last report."""
        found = dict(self.found)
        for *_, theirs in self.workers.values():
            for errors, count in theirs.items():
                found[errors] = found.get(errors, 0) + count
        return found

    def done(self) -> bool:
        """True when searching on cannot help: proved, or a board with no error (a hunt goes on)."""
        return self.proven or (self.level is None and self.best.errors == 0)

    def counts(self) -> Counts:
        """(nodes, restarts, revisits, a hunt's boards by errors) so far: what a worker tells the caller's search."""
        return self.nodes, self.restarts, self.revisits, dict(self.found)

    def nodes_so_far(self) -> int:
        """This search's nodes and its workers' as of their last report."""
        return self.nodes + sum(nodes for nodes, *_ in self.workers.values())

    def settle(self) -> None:
        """The workers are done: their last :meth:`counts` added to this search's."""
        self.found = self.found_so_far()
        for nodes, restarts, revisits, _ in self.workers.values():
            self.nodes += nodes
            self.restarts += restarts
            self.revisits += revisits
        self.workers = {}

    def tick(self) -> None:
        """Between two slices of work: write a board the checkpoint holds back, tell the hunt's ladder."""
        if self.checkpoint is not None:
            self.checkpoint.tick()
        if self.hunt is not None:
            self.hunt.report(self.nodes_so_far(), self.found_so_far())
        if self.on_tick is not None:
            self.on_tick()

    def bound(self) -> int:
        """The errors a new board must beat: the best board's, or the workers' best; a hunt's
        level and one."""
        if self.level is not None:
            return self.level + 1
        return self.best.errors if self.shared_bound is None else min(self.best.errors, self.shared_bound())

    def alternate(self, seeds: list[Any], pool: Pool | None = None) -> None:
        """Without a time limit, until stopped: scan restarts each followed by as long a polish,
        or with a pool of workers, their scans alone."""
        if pool is not None:
            pool(self, seeds, None)
            return
        while not self.done():
            began = time.perf_counter()
            self.scan(lambda: None, one_restart=True)
            if self.level is None:
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
        """Row-scan restarts of ``restart_nodes`` nodes (default the ``restart_nodes`` knob),
        each with its :meth:`revisit`, until the time is up (or after one)."""
        restart_nodes = self.knobs.restart_nodes if restart_nodes is None else restart_nodes
        while self.bound() > 0 and not self.done():
            left = remaining()
            if left is not None and left <= 0:
                return
            complete = self.schedule.complete
            scan = Scan(self.cands, self.rng, np.zeros(self.instance.cells, dtype=np.int64), rare=not complete)
            began = self.nodes
            status, last = self.search(scan, self.knobs.start_slack, 0, restart_nodes, remaining)
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
        errors worse than its bound; each board it finds lowers its bound (a hunt's: down to its
        level), is offered when it beats the best and is a hit when it is of the hunt's level.
        (The kernel status it ended on, None when the time ran out; the errors of the last board
        it found, None for none.)"""
        n = self.instance.cells
        bound = np.array([self.bound() + start_slack], dtype=np.int64)
        complete = self.schedule.complete
        spent, last, shaped = 0, None, -1
        slice_nodes = FIRST_SLICE_NODES
        while spent < nodes:
            # another worker may have found better; a hunt's bound stays at its level
            bound[0] = max(min(bound[0], self.bound() + start_slack), self.bound())
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
                    board = scan.board()
                    self.offer(board, last)
                    if self.level is not None:
                        self.hit(board, last)
            self.complete_deepest(scan)
            if status == EXHAUSTED or bound[0] == 0:
                return status, last
            self.tick()
            left = remaining()
            if left is not None and left <= 0:
                return None, last
        return BUDGET, last

    def complete_deepest(self, scan: Scan) -> None:
        """After a slice of ``scan``: its deepest partial board, when it is deeper than at the last
        slice and lacks at most ``complete_cells`` cells, completed with the tiles left over
        (:mod:`~puzzlesat.native.eternity.completion`), offered as any board found, and a hit
        when it reaches the hunt's level (so a restart completes a few boards at most, each
        deeper than the last, as Blackwood's solver completes the deepest of each restart)."""
        depth = int(scan.state.deep[0])
        if depth <= scan.completed or self.instance.cells - depth > self.knobs.complete_cells:
            return
        scan.completed = depth
        board, _ = completion.complete(self.instance, self.look, scan.deepest())
        errors = board_errors(self.instance, self.look, board)
        self.offer(board, errors)
        if self.level is not None and errors <= self.level:
            self.hit(board, errors)

    def revisit(self, scan: Scan, errors: int, nodes: int, remaining: Callable[[], float | None]) -> None:
        """After a restart whose last board came within ``revisit`` errors of the best: search
        again below that board's head (its depths before :func:`revisit_depth`), aiming straight at
        the best (no stepping stones), under the schedules of ``revisit_slacks`` in turn, each
        looser than the last, until the nodes are spent: ``revisit_share`` of those the
        restarts took since the last revisit, and at least ``nodes``.  The restart searched below
        that head only with the tightened schedule of its last board, which better boards below
        it may not fit; a head that came that close holds them far more often than a fresh one,
        and the nearer the best, the rarer such heads and the more each is worth (measured: docs)."""
        knobs = self.knobs
        keep = revisit_depth(self.instance, knobs)
        if knobs.revisit < 0 or keep <= 0 or self.bound() == 0 or errors > self.bound() + knobs.revisit:
            return
        budget = max(nodes, int(knobs.revisit_share * self.unrevisited))
        self.unrevisited = 0
        self.revisits += 1
        began = self.nodes
        for slack in knobs.revisit_slacks:
            again = Scan(
                self.cands,
                self.rng,
                np.zeros(self.instance.cells, dtype=np.int64),
                scan.state.best_placed[:keep],
                rare=True,
            )
            status, _ = self.search(again, 0, slack, budget - (self.nodes - began), remaining)
            if status != EXHAUSTED or self.bound() == 0 or self.nodes - began >= budget:
                return
