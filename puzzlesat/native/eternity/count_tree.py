"""Which of eight trees a count walks: the corner tile it fixes top-left, and the board as given or mirrored.

A count fixes a corner tile top-left, so that it counts one board per class of rotations
(:func:`~puzzlesat.domains.eternity.first_corner`).  Any of the four corner tiles does that, and
the puzzle mirrored in its main diagonal (:meth:`~puzzlesat.domains.eternity.Instance.transposed`)
has the same boards, mirrored: the eight puzzles have the same count, but their row-scan trees
do not have the same nodes (Brendan Owen's 7x7: the first corner tile's, whose nodes the
community quotes, is the largest of the eight, 1.2x the smallest down to row 3; docs/eternity.md).

So a count on tile bitsets (native/eternity/count_search.py) of a square board without hints
counts, with the count kernel, the nodes of each tree's first two rows (a small part of a tree
that has many: 0.7 s of CPU for the eight on the 7x7, against some 600 s for its count) and
walks the tree with the fewest (``count_tree=smallest``, the default; ``first`` walks the tree
of the first corner tile as given, the one the published node counts are of).  The count's nodes
are the nodes of the tree it walked; its stats name the tree (``tree=tile13-mirrored``) and the
nodes spent choosing it (``tree_nodes``), and its board is mapped back onto the board as given.
Hints and rectangles keep the one tree they had.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass
from typing import NamedTuple

from puzzlesat.core import Limits, Result
from puzzlesat.core.kernel_status import EXHAUSTED
from puzzlesat.domains.eternity import Instance, Solution, corner_tiles, first_corner
from puzzlesat.native.eternity.count_search import CountSearch, bit_table, fits
from puzzlesat.native.eternity.search import COUNT_LIMIT, Lookup, load_kernels

FIRST_SLICE = 1_000_000  # nodes of a tree's first rows before the first look at the clock
SLICE_SECONDS = 0.05  # then slices of about this long
SHARE = 0.25  # of the time limit left, what the choice may take


class Tree(NamedTuple):
    """One of a count's trees: the corner tile fixed top-left, in the puzzle as given or mirrored."""

    corner: int
    mirrored: bool

    @property
    def name(self) -> str:
        """How the stats name it: ``tile13``, ``tile13-mirrored``."""
        return f"tile{self.corner}" + ("-mirrored" if self.mirrored else "")

    def puzzle(self, instance: Instance) -> Instance:
        """The puzzle whose tree this is."""
        return instance.transposed() if self.mirrored else instance

    def lookup(self, instance: Instance, twins: bool) -> Lookup:
        """The candidate lookup of this tree (``instance`` the board as given)."""
        return Lookup(self.puzzle(instance), twins, corner=self.corner)

    def answer(self, result: Result, instance: Instance, spent: int, seconds: float) -> Result:
        """``result`` of this tree's count, its board on ``instance`` (the board as given), the
        tree, the nodes and the seconds spent choosing it in its stats."""
        if self.mirrored and isinstance(result.solution, Solution):
            result.solution = result.solution.transposed(instance.cols, instance.rows)
        result.stats.update(tree=self.name, tree_nodes=spent, tree_time=round(seconds, 3))
        return result


@dataclass
class Counted:
    """What a count walks (:func:`choose`): the puzzle and its lookup, the tree they are of (None:
    the board's own), and what choosing it cost, for :meth:`answer`."""

    instance: Instance
    puzzle: Instance
    lookup: Lookup
    tree: Tree | None
    spent: int = 0
    seconds: float = 0.0

    def answer(self, result: Result) -> Result:
        """``result`` of the count on the board as given (:meth:`Tree.answer`)."""
        return result if self.tree is None else self.tree.answer(result, self.instance, self.spent, self.seconds)


def choose(
    instance: Instance,
    limits: Limits,
    twins: bool,
    check: bool,
    began: float,
    choice: str = "smallest",
) -> Counted:
    """The tree a count of ``instance`` walks, :func:`pick`'s (``began`` and ``choice`` as there), timed."""
    start = time.perf_counter()
    tree, spent = pick(instance, limits, twins, check, began, choice)
    seconds = time.perf_counter() - start
    puzzle, lookup = counted(instance, tree, twins)
    return Counted(instance, puzzle, lookup, tree, spent, seconds)


def counted(instance: Instance, tree: Tree | None, twins: bool) -> tuple[Instance, Lookup]:
    """The puzzle a count walks and its lookup: ``tree``'s, or the board's own (None)."""
    if tree is None:
        return instance, Lookup(instance, twins)
    return tree.puzzle(instance), tree.lookup(instance, twins)


def trees(instance: Instance) -> list[Tree]:
    """The trees a count of ``instance`` may walk, the first corner tile's first; none for a
    rectangle, a board with hints or without corner tiles (their count keeps its one tree)."""
    if not instance.square or first_corner(instance) is None:
        return []
    corners = corner_tiles(instance)
    return [Tree(corner, mirrored) for mirrored in (False, True) for corner in corners]


def first_rows(instance: Instance, tree: Tree, twins: bool, depth: int) -> CountSearch:
    """A count of the tree's nodes down to ``depth`` cells (its boards say nothing)."""
    lookup = tree.lookup(instance, twins)
    table = bit_table(lookup)
    table = table._replace(base=array("Q", table.base[:depth]))  # the kernel's last cell: ``depth - 1``
    return CountSearch(tree.puzzle(instance), lookup, table)


def pick(
    instance: Instance, limits: Limits, twins: bool, check: bool, began: float, choice: str = "smallest"
) -> tuple[Tree | None, int]:
    """(the tree to count, the nodes spent choosing it): with ``choice`` first (the option
    ``count_tree``) the first corner tile's, without looking; None when the count has one tree
    (:func:`trees`) or runs the row-scan kernel
    (:func:`~puzzlesat.native.eternity.count_search.fits`).

    A tree is dropped as soon as its first rows have more nodes than the smallest so far.  With
    a time limit (counted from ``began``) the choice takes at most :data:`SHARE` of the time
    left, in slices of about :data:`SLICE_SECONDS`, and then gives the smallest tree measured
    whole so far (the first tree when none is)."""
    options = trees(instance)
    if not options or not fits(instance, check):
        return None, 0
    if choice == "first":
        return options[0], 0
    load_kernels(bits=True)
    left = limits.remaining(began)
    stop = None if left is None else time.perf_counter() + SHARE * left
    best, smallest, spent, step = options[0], COUNT_LIMIT, 0, FIRST_SLICE
    for tree in options:
        search = first_rows(instance, tree, twins, 2 * instance.cols)
        nodes = 0
        while nodes <= smallest:
            if stop is not None and time.perf_counter() >= stop:
                return best, spent + nodes
            sliced = time.perf_counter()
            status, done = search.run(min(step, smallest + 1 - nodes), limit=COUNT_LIMIT)
            nodes += done
            if status == EXHAUSTED:
                break
            step = max(FIRST_SLICE, int(done * SLICE_SECONDS / max(time.perf_counter() - sliced, 1e-6)))
        spent += nodes
        if nodes < smallest:
            best, smallest = tree, nodes
    return best, spent
