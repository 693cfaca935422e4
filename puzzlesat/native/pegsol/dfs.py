"""``native-dfs``: bitboard depth-first search with a table of dead positions (numba).

The wrapper lays the board out in its bounding box (:mod:`.layout`), runs the
resumable kernel (:mod:`.kernel`) in slices of nodes so that the timeout is honoured,
restarts it in other jump orders, adds pagoda cuts learned from the dead positions that cost
the most, and turns the kernel's jump codes back into moves.  Boards whose bounding box has
at most 120 cells fit the two-word bitboard (with 8 bits to spare for the table's bookkeeping).
The first ``plain_nodes`` nodes (an Option, :data:`PLAIN_START` by default) run the same
search in plain Python (:mod:`.plain`), so that a board solved in that many never loads numba.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from puzzlesat.core import TIME_LIMIT, BackendUnavailable, Limits, Option, Result, Status, Strategy
from puzzlesat.core.kernel_status import BUDGET, FOUND, MEET, decision_status
from puzzlesat.core.knobs import head_start, knob, plain_budget, plain_nodes
from puzzlesat.domains.pegsol import Instance, Move, Solution

if TYPE_CHECKING:
    import numpy as np

    from puzzlesat.native.pegsol.layout import Layout

# nodes searched in plain Python (native/pegsol/plain.py, 50-130k nodes/s) before the kernel
# loads, in a process that has not loaded it yet: the English central game takes 17,208 of
# them, a fraction of loading the kernel
PLAIN_START = 1 << 15
HEAD_START = head_start(0.2)  # seconds in the kernel before --workers N starts the others (easy boards end sooner)
ENDGAME_SIZE = 1 << 21  # positions in the meet in the middle's last layer, at most
# (nodes searched, positions in the last layer at most): the endgame grows with the effort
# spent, so that a board solved in a second does not wait seconds for it
ENDGAME_STAGES = ((1 << 18, 1 << 15), (1 << 21, 1 << 18), (1 << 23, ENDGAME_SIZE))
ENDGAME_AT = Option(
    "endgame_at",
    int,
    ENDGAME_STAGES[0][0],
    "nodes searched before the endgame's first stage is built (0: from the start)",
    low=0,
    high=1 << 62,
)
# pagoda cuts are sought twice, the second time after HARVEST_LATER times the nodes of the first
HARVEST_LATER = 8
PAGODA_AT = Option(
    "pagoda_at",
    int,
    1 << 20,
    f"nodes searched before pagoda cuts are first sought (again at {HARVEST_LATER} times that)",
    low=1,
    high=1 << 58,
)

STRATEGY = Strategy(
    "native-dfs",
    "puzzlesat.native.pegsol.dfs:solve",
    "numba bitboard DFS: dead-position table up to symmetry, pagoda cuts, endgame search back from the goal; "
    "proves impossibility by exhaustion",
    options=(
        Option("order", str, None, "one fixed move order and no restarts: symK or randomN"),
        Option("table_bits", int, None, "log2 of the dead-position table's slots (default 24)", low=4, high=30),
        Option("no_restarts", bool, False, "one search, no restarts with other move orders"),
        Option("no_meet", bool, False, "no endgame search back from the goal (meet in the middle)"),
        Option("endgame_size", int, None, "most positions in the endgame's last layer (default 2**21)", low=1),
        Option("no_pagoda", bool, False, "no pagoda cuts learned from the dead positions"),
        Option("no_symmetry", bool, False, "key dead positions as they are, not up to the goal's symmetries"),
        Option("sym_depth", int, None, "positions at most this many jumps deep are keyed up to symmetry", low=0),
        plain_nodes(PLAIN_START),
        HEAD_START,
        ENDGAME_AT,
        PAGODA_AT,
    ),
    puzzle="pegsol",
    engine="native",
    parallel=True,
)

KEY_BITS = 120  # the kernel's KEY_BITS, repeated so that a refusal needs no numba import
SLICE = 1 << 17
RESTART_BASE = 1 << 13
ENDGAME_SECONDS = 20.0
FIRST_TABLE_BITS = 16
TABLE_BITS = 24
ORDERS = 8


def jump_order(order: str, layout: Layout) -> np.ndarray:
    """The kernel's ``[scan, d0, d1, d2, d3, rank of each of the 128 cells]`` for an order name.

    ``symK`` (K = 0..7) scans the cells from the first (K < 4) or the last board cell and
    tries the directions N, E, S, W rotated by K: from each corner of the board, with a
    different direction first.  ``outerK`` takes the jumps from the cells farthest from the
    board's centre first (Manhattan distance; ties as in ``symK``): it clears the arms of
    the cross boards before the middle, which solves the German central game in thousands
    of nodes instead of millions, but slows the English complements.  The search is very
    sensitive to the order, so restarts alternate ``symK`` and ``outerK`` through all
    sixteen.  ``randomN`` draws the scan and the direction priority with seed N.
    """
    import numpy as np

    name = order.rstrip("0123456789")
    number = order[len(name) :]
    if name == "random" and number.isdigit():
        rng = random.Random(int(number))
        directions = [0, 1, 2, 3]
        rng.shuffle(directions)
        head = [rng.randrange(2), *directions]
    elif name in ("sym", "outer") and number.isdigit() and int(number) < ORDERS:
        k = int(number)
        head = [int(k >= 4), *((k + i) % 4 for i in range(4))]
    else:
        raise BackendUnavailable(f"unknown jump order {order!r}; expected sym0..sym7, outer0..outer7 or randomN")
    rank = np.zeros(128, dtype=np.int64)
    if name == "outer":
        middle_r, middle_c = layout.height - 1, layout.width - 1  # twice the centre's coordinates
        for i in range(layout.size):
            r, c = divmod(i, layout.width)
            scan = i if head[0] == 0 else 127 - i
            rank[i] = -(abs(2 * r - middle_r) + abs(2 * c - middle_c)) * 256 + scan
        head[0] = 2
    return np.array([*head, *rank], dtype=np.int64)


def restart_order(run: int) -> str:
    """The order of the ``run``-th search (0-based): sym0, outer0, sym1, outer1, ..."""
    return f"{('sym', 'outer')[run % 2]}{run // 2 % ORDERS}"


def solve(instance: Instance, limits: Limits, variant: str | None = None) -> Result:
    """Search for the jumps; INFEASIBLE once the whole tree is exhausted.

    Options (``limits.options``): ``order`` (one fixed order, no restarts: symK, outerK,
    randomN; see :func:`jump_order`),
    ``table_bits`` (log2 of the dead-position table's slots, default 24 = 16M entries,
    256 MB; it starts at 2**16 and doubles when half full), ``no_restarts``, ``no_meet``
    (no endgame search from the goal), ``endgame_size`` (positions in its last layer, at
    most), ``no_pagoda``, ``pagoda_at`` (nodes before the first pagoda cuts), ``no_symmetry``,
    ``sym_depth`` (positions at most this deep are keyed by their canonical form; default two
    thirds of the jumps).

    The stages are :class:`_Search`'s methods: set up, then slices of the kernel between which
    the table grows, the endgame deepens, pagoda cuts are harvested and restarts change the
    order; then the answer.
    """
    start_time = time.perf_counter()
    if limits.workers > 1 and "share" not in limits.options:
        return _head_start_then_split(instance, limits, start_time)
    refused = _too_large(instance)
    if refused is not None:
        return refused
    search = _Search(instance, limits, start_time)
    return search.answer(search.run())


def _too_large(instance: Instance) -> Result | None:
    """The UNKNOWN answer for a board whose bounding box the two-word bitboard cannot hold."""
    rows = [r for r, _ in instance.cells]
    cols = [c for _, c in instance.cells]
    box = (max(rows) - min(rows) + 1) * (max(cols) - min(cols) + 1)
    if box <= KEY_BITS:
        return None
    return Result(
        Status.UNKNOWN,
        message=f"native-dfs handles boards whose bounding box has at most {KEY_BITS} cells, this one has {box}",
    )


class _Search:
    """One search of a board by :func:`solve`, stage by stage.

    Attributes beside the setup's: ``nodes`` searched so far, ``run`` (1-based) and its
    ``run_budget`` and ``run_nodes`` (restarts), the table's ``bits``, the ``endgame`` met in
    the middle and its ``stage``, the pagoda ``harvests``, and the time spent outside the
    search (``compile_time``, ``harvest_seconds``, ``endgame_seconds``).
    """

    def __init__(self, instance: Instance, limits: Limits, start_time: float) -> None:
        """Lay the board out and build the search; numpy and numba load only now: a board the
        proofs settle never pays for them."""
        setup_start = time.perf_counter()
        import numpy  # noqa: F401 - loaded here, as the stages' modules are: setup time, not search time

        import puzzlesat.native.first_dispatch
        import puzzlesat.native.pegsol.endgame  # noqa: F401
        from puzzlesat.native.pegsol.layout import Layout
        from puzzlesat.native.pegsol.plain import Search as PlainSearch

        self.instance, self.limits = instance, limits
        options = self.options = limits.options
        self.layout = layout = Layout.of(instance)
        self.goal = layout.pegs(instance.target)
        self.maps = layout.symmetries(self.goal)[: 1 if options.get("no_symmetry") else None]
        fixed_order = options.get("order")
        self.restarts = not options.get("no_restarts") and not fixed_order
        self.order = jump_order(str(fixed_order or restart_order(limits.seed)), layout)
        self.depth = instance.moves_needed
        # the table starts small and doubles while it is more than half full: touching memory
        # is slow here (fresh pages cost microseconds each), so an easy board stays cheap
        self.max_bits = int(options.get("table_bits") or min(TABLE_BITS, len(instance.cells) + 2))
        self.bits = min(self.max_bits, FIRST_TABLE_BITS)
        given_depth = options.get("sym_depth")
        sym_depth = self.depth * 2 // 3 if given_depth is None else int(given_depth)
        self.runner = runner = _Runner(layout, instance, self.depth, self.bits, self.maps, sym_depth)
        runner.cuts.share[:] = options.get("share") or (0, 1)
        runner.reset()
        self.plain_nodes = plain_budget(options, PLAIN_START, loaded=_kernel_loaded())
        self.endgame_at = int(knob(options, ENDGAME_AT))
        first_harvest = int(knob(options, PAGODA_AT))
        # node counts at which pagoda cuts are sought; none with no_pagoda
        self.harvest_at = () if options.get("no_pagoda") else (first_harvest, first_harvest * HARVEST_LATER)
        if self.plain_nodes > 0:
            runner.plain = PlainSearch(runner.game, runner.cuts.share, runner.tree.table)
        self.stats: dict[str, Any] = {}
        self.nodes = 0
        self.compile_time = 0.0
        self.kernel_at = 0.0  # when the kernel took over from the plain start
        self.import_time = time.perf_counter() - setup_start
        self.search_start = start_time + self.import_time
        if runner.plain is None:
            self.load_kernel()
        self.endgame: Any = None
        self.meeting = self.depth >= 2 and not options.get("no_meet")
        self.stage = 0
        self.endgame_seconds = 0.0
        self.run_number = 1
        self.run_budget = RESTART_BASE if self.restarts else -1
        self.run_nodes = 0
        self.harvests = 0
        self.harvest_seconds = 0.0

    def run(self, alone: float | None = None) -> int:
        """Search in slices until the kernel answers or the time is up, or (``alone``: a head
        start) that many seconds after the kernel took over; the kernel's last status."""
        while True:
            grow = self.runner.tree.state[1] > (1 << self.bits) // 2 and self.bits < self.max_bits
            if self.runner.plain is not None and self.kernel_wanted(grow):
                self.load_kernel()
            if grow:
                self.grow_table()
            if self.stage < len(ENDGAME_STAGES) and self.meeting and self.nodes >= self.endgame_due():
                self.deepen_endgame()
            if self.harvest_due():
                self.harvest()
            status = self.search_slice()
            remaining = self.limits.remaining(self.search_start)
            if status != BUDGET or (remaining is not None and remaining <= 0):
                return status
            if alone is not None and self.runner.plain is None and time.perf_counter() - self.kernel_at >= alone:
                return status
            if 0 <= self.run_budget <= self.run_nodes:
                self.restart()

    def kernel_wanted(self, grow: bool) -> bool:
        """Whether the plain start hands over to the kernel now: the table grows, the plain
        share is spent, or the endgame or the pagoda cuts are due (they need the kernel)."""
        return bool(
            grow
            or self.nodes >= self.plain_nodes
            or (self.meeting and self.nodes >= self.endgame_at)
            or self.harvest_due()
        )

    def harvest_due(self) -> bool:
        """Whether the next pagoda cuts are due (``pagoda_at``; none with ``no_pagoda``)."""
        return self.harvests < len(self.harvest_at) and self.nodes >= self.harvest_at[self.harvests]

    def load_kernel(self) -> None:
        """Hand the search over to the kernel: its table, then a zero budget that only loads
        (or compiles) it.  numba's import and this call are compile_time, outside wall_time;
        the table's growth and the endgame compile their kernels when a board first needs
        them (seconds on a fresh install, which an easy board never pays)."""
        from puzzlesat.native.first_dispatch import without_blas_probe

        began = time.perf_counter()
        runner = self.runner
        if runner.plain is not None:
            self.stats["plain_nodes"] = self.nodes
            runner.plain.flush(runner.tree.table)
            runner.plain = None
        with without_blas_probe():
            runner.run(self.order, 0)
        spent = time.perf_counter() - began
        self.compile_time += spent
        self.search_start += spent
        self.kernel_at = time.perf_counter()

    def grow_table(self) -> None:
        """Double the dead-position table, its entries hashed again into the new one."""
        import numpy as np

        from puzzlesat.native.pegsol.kernel import rehash

        self.bits += 1
        bigger = np.zeros(2 << self.bits, dtype=np.uint64)
        rehash(self.runner.tree.table, bigger)
        self.runner.grow(bigger)
        self.runner.tree.state[1] = int(np.count_nonzero(bigger[1::2]))

    def endgame_due(self) -> int:
        """The nodes after which the next endgame stage is built."""
        return ENDGAME_STAGES[self.stage][0] if self.stage else self.endgame_at

    def deepen_endgame(self) -> None:
        """A board not solved quickly gets the meet in the middle, deeper at each stage."""
        from puzzlesat.native.pegsol.endgame import build as build_endgame

        limit = min(ENDGAME_STAGES[self.stage][1], int(self.options.get("endgame_size") or ENDGAME_SIZE))
        self.stage += 1
        remaining = self.limits.remaining(self.search_start)
        seconds = ENDGAME_SECONDS if remaining is None else min(ENDGAME_SECONDS, remaining / 4)
        deeper = build_endgame(self.layout, self.goal, self.depth, limit, seconds, self.runner.game)
        self.endgame_seconds += deeper.seconds
        if deeper.depth > (self.endgame.depth if self.endgame else 0):
            self.endgame = deeper
            self.runner.meet(self.depth - deeper.depth, deeper.sets[-1])
            self.runner.reset()

    def harvest(self) -> None:
        """Pagoda cuts learned from the dead positions that cost the most (an LP each)."""
        import numpy as np

        from puzzlesat.native.pegsol.layout import MAX_PAGODAS, harvest_pagodas

        self.harvests += 1
        began = time.perf_counter()
        runner = self.runner
        found = harvest_pagodas(self.layout, self.instance, runner.tree.table, runner.cuts.weights, self.goal)
        self.harvest_seconds += time.perf_counter() - began
        if found:
            from puzzlesat.native.pegsol.kernel import pagoda_values

            runner.add_pagodas(np.array(found, dtype=np.int64)[: MAX_PAGODAS - len(runner.cuts.weights)], pagoda_values)

    def search_slice(self) -> int:
        """One slice of the search (at most a quarter of the table's slots, and what is left
        of the run's budget); the kernel's status."""
        budget = min(SLICE, max(1024, (1 << self.bits) // 4))
        if self.run_budget >= 0:
            budget = min(budget, self.run_budget - self.run_nodes)
        status, done = self.runner.run(self.order, budget)
        self.nodes += done
        self.run_nodes += done
        return int(status)

    def restart(self) -> None:
        """The next order, doubling the budget after each round of sixteen; the dead positions
        found so far stay in the table."""
        self.run_number += 1
        self.run_budget = RESTART_BASE << ((self.run_number - 1) // (2 * ORDERS))
        self.run_nodes = 0
        self.order = jump_order(restart_order(self.run_number - 1 + self.limits.seed), self.layout)
        self.runner.reset()

    def answer(self, status: int) -> Result:
        """The Result of the kernel's last status: the jumps found (through the endgame when
        the search met it), a proof by exhaustion, or the time limit; with the statistics."""
        from puzzlesat.native.pegsol.endgame import tail

        elapsed = time.perf_counter() - self.search_start
        runner, layout, depth, stats = self.runner, self.layout, self.depth, self.stats
        if runner.plain is not None:
            stats["plain_nodes"] = self.nodes
        stats |= {
            "nodes": self.nodes,
            "nodes_per_second": round(self.nodes / max(elapsed - self.harvest_seconds, 1e-9)),
            "runs": self.run_number,
            "table_entries": int(runner.tree.state[1]),
            "table_bits": self.bits,
            "symmetries": len(self.maps),
            "pagodas": len(runner.cuts.weights),
        }
        if self.harvests:
            stats["pagoda_seconds"] = round(self.harvest_seconds, 3)
        if self.endgame is not None:
            stats["endgame_jumps"] = self.endgame.depth
            stats["endgame_positions"] = self.endgame.sizes[-1]
            stats["endgame_seconds"] = round(self.endgame_seconds, 3)
        moves: tuple[Move, ...] = ()
        if status == FOUND:
            moves = tuple(layout.move(int(code)) for code in runner.tree.chosen[:depth])
        elif status == MEET:
            assert self.endgame is not None
            reached = int(runner.tree.state[0])
            head = [layout.move(int(code)) for code in runner.tree.chosen[:reached]]
            position = (int(runner.tree.board[reached, 0]), int(runner.tree.board[reached, 1]))
            moves = (*head, *tail(layout, self.endgame, position, runner.game))
            stats["met_at"] = reached
            status = FOUND
        stats["compile_time"] = round(self.compile_time + self.import_time, 3)
        outcome = decision_status(status)
        if outcome is Status.SOLVED:
            return Result(outcome, Solution(moves), wall_time=elapsed, stats=stats)
        if outcome is Status.INFEASIBLE:
            return Result(
                outcome, None, wall_time=elapsed, stats=stats, message="exhaustive search: every line of play fails"
            )
        return Result(outcome, None, wall_time=elapsed, stats=stats, message=TIME_LIMIT)


def _kernel_loaded() -> bool:
    """Whether this process has the search kernel already (an earlier solve loaded it): then
    the plain start would only slow the search down."""
    kernel = sys.modules.get("puzzlesat.native.pegsol.kernel")
    return kernel is not None and bool(kernel.search.overloads)


def _head_start_then_split(instance: Instance, limits: Limits, start_time: float) -> Result:
    """``--workers N`` (N > 1, the default on a machine with several cores): this process
    searches alone, its plain-Python nodes and then ``head_start`` seconds in the kernel
    (most boards end there, with no process started), then :func:`_split`."""
    refused = _too_large(instance)
    if refused is not None:
        return refused
    search = _Search(instance, replace(limits, workers=1), start_time)
    status = search.run(alone=knob(limits.options, HEAD_START))
    left = limits.remaining(start_time)
    if status != BUDGET or (left is not None and left <= 0):
        return search.answer(status)
    return _split(instance, limits, start_time)


def _split(instance: Instance, limits: Limits, start_time: float) -> Result:
    """``--workers N``: N shares on a :class:`~puzzlesat.core.processes.TaskPool`, share k the
    first jumps whose code is k mod N (each with its own tables, restarts and endgame).  A
    solution from any share ends the search; the board is impossible once every share is exhausted."""
    from puzzlesat.core.processes import TaskPool, WorkerDied

    workers = limits.workers
    shares = [
        (instance, replace(limits, seed=limits.seed + k, workers=1, options={**limits.options, "share": (k, workers)}))
        for k in range(workers)
    ]
    results: list[Result] = []
    with TaskPool(workers, name="puzzlesat-pegsol") as pool:
        pool.submit(_solve_share, shares)
        while len(results) < workers:
            left = limits.remaining(start_time)
            if left is not None and left <= -2.0:  # each share stops itself at the limit
                break
            try:
                result = pool.next(timeout=0.1)
            except TimeoutError:
                continue
            except WorkerDied:  # its share is lost; wait for the others' unless none is left
                if len(results) + sum(not p.is_alive() for p in pool.processes) >= workers:
                    break
                continue
            results.append(result)
            if result.status is Status.SOLVED:
                break
    stats: dict[str, Any] = {"workers": workers, "nodes": sum(int(r.stats.get("nodes", 0)) for r in results)}
    elapsed = time.perf_counter() - start_time
    solved = next((r for r in results if r.status is Status.SOLVED), None)
    if solved is not None:
        return Result(Status.SOLVED, solved.solution, wall_time=elapsed, stats={**solved.stats, **stats})
    if len(results) == workers and all(r.status is Status.INFEASIBLE for r in results):
        return Result(
            Status.INFEASIBLE,
            None,
            wall_time=elapsed,
            stats=stats,
            message=f"exhaustive search: every line of play fails (in all {workers} shares)",
        )
    return Result(Status.UNKNOWN, None, wall_time=elapsed, stats=stats, message=TIME_LIMIT)


def _solve_share(task: tuple[Instance, Limits]) -> Result:
    """One share of :func:`_split`, run by a pool worker."""
    return solve(*task)


class _Runner:
    """The kernel's arrays between calls (native/pegsol/arrays.py): the game, the search's
    state and tables (``tree``), the cuts."""

    def __init__(
        self,
        layout: Layout,
        instance: Instance,
        depth: int,
        bits: int,
        maps: list[Any],
        sym_depth: int,
    ) -> None:
        import numpy as np

        from puzzlesat.native.pegsol.arrays import Cuts, Game, Tree

        self.np = np
        self.layout = layout
        self.instance = instance
        self.depth = depth
        full = layout.words(layout.cells)
        self.start = layout.words(layout.pegs(instance.start))
        goal = layout.words(layout.pegs(instance.target))
        self.game = Game(
            layout.chunks(),
            np.array(full, dtype=np.uint64),
            layout.steps(),
            layout.from_masks(),
            layout.jump_masks(),
            np.uint64(goal[0]),
            np.uint64(goal[1]),
            depth,
            layout.symmetry_tables(maps),
            sym_depth,
        )
        self.tree = Tree(
            board=np.zeros((depth + 1, 2), dtype=np.uint64),
            moves=np.zeros((depth + 1, 8), dtype=np.uint64),
            pagoda=np.zeros((depth + 1, 0), dtype=np.int64),
            entered=np.zeros(depth + 1, dtype=np.int64),
            chosen=np.zeros(max(1, depth), dtype=np.int64),
            state=np.zeros(3, dtype=np.int64),
            table=np.zeros(2 << bits, dtype=np.uint64),
        )
        self.cuts = Cuts(
            weights=np.zeros((0, 128), dtype=np.int64),
            goal_values=np.zeros(0, dtype=np.int64),
            meet_depth=-1,
            endgame=np.zeros(4, dtype=np.uint64),
            share=np.array([0, 1], dtype=np.int64),
        )
        self.plain: Any = None  # a plain-Python search (native/pegsol/plain.py) until the kernel loads

    def meet(self, depth: int, endgame: np.ndarray) -> None:
        """Stop at ``depth``: the positions there are decided by the endgame set."""
        self.cuts = self.cuts._replace(meet_depth=depth, endgame=endgame)

    def reset(self) -> None:
        """Start again from the root (the tables keep their entries)."""
        self.tree.board[0] = self.start
        self.tree.state[0] = -1

    def grow(self, table: np.ndarray) -> None:
        """Go on with a larger table (holding the entries of the last one)."""
        self.tree = self.tree._replace(table=table)

    def add_pagodas(self, weights: np.ndarray, values: Any) -> None:
        """Add pagoda cuts; the values along the current line of play are computed here."""
        np = self.np
        weights = np.concatenate([self.cuts.weights, weights])
        goal_bits = np.zeros(128, dtype=np.int64)
        goal_bits[[self.layout.index(x) for x in self.layout.pegs(self.instance.target)]] = 1
        self.cuts = self.cuts._replace(weights=weights, goal_values=weights @ goal_bits)
        pagoda = np.zeros((self.depth + 1, len(weights)), dtype=np.int64)
        board = self.tree.board
        for d in range(max(0, int(self.tree.state[0])) + 1):
            values(board[d, 0], board[d, 1], weights, pagoda[d])
        self.tree = self.tree._replace(pagoda=pagoda)

    def run(self, order: np.ndarray, budget: int) -> tuple[int, int]:
        """One slice of search in ``order``; returns (status, new nodes)."""
        if self.plain is not None:
            return self.plain.run(self.tree, budget, order)
        from puzzlesat.native.pegsol.kernel import search

        status, nodes = search(self.game, self.tree, self.cuts, budget, order)
        return int(status), int(nodes)
