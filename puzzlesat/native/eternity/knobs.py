"""The best-score search's knobs: declared Options of ``native-rowscan`` (``-O KEY=VALUE``, listed
by ``list -v``, checked at the edge), read into one :class:`Knobs` that the search, its workers
and a benchmark's variant all take as a value: nothing is set in a module.

The defaults are the measured ones (docs/eternity.md says how).  This module imports nothing
heavy: ``list`` reads the declarations.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from puzzlesat.core.knobs import head_start
from puzzlesat.core.options import Option, OptionError

_SLACKS = r"[0-9]{1,2}(,[0-9]{1,2}){0,15}"
_BREAK = r"[0-9]{1,5}:[0-9]{1,3}"
_COLOURS = r"[0-9]{1,3}(,[0-9]{1,3}){0,63}"
FILLS = ("bands", "blackwood")


def _steps(cells: tuple[int, ...], last: int) -> str:
    """A ``breaks`` text that allows one more error at each of ``cells`` (none before the first),
    then every error from ``last`` (the hunt's level caps them)."""
    points = [f"{cells[0] - 1}:0"]
    for i, cell in enumerate(cells):
        points += [f"{cell}:{i + 1}"] + ([f"{cells[i + 1] - 1}:{i + 1}"] if i + 1 < len(cells) else [])
    return ",".join(points + [f"{last - 1}:{len(cells)}", f"{last}:99"])


# ``breaks=blackwood``: his solver's (EternityII_Solver), one break more at each of these cells of
# his fill order (``fill=blackwood``), ten in all, then the level from cell 244 (where its boards
# are saved, their last cells completed: ``complete_cells``)
BLACKWOOD_BREAKS = _steps((201, 206, 211, 216, 221, 225, 229, 233, 237, 239), 244)
# ``preset=blackwood``: Blackwood's setup in one option (docs/eternity.md), the seven knobs his
# solver's boards came from; an option given on its own (``-O revisit=2``) overrides its preset value
PRESETS: dict[str, dict[str, Any]] = {
    "blackwood": {
        "fill": "blackwood",
        "rare": "10,13,16",
        "breaks": "blackwood",
        "complete_cells": 12,
        "restart_nodes": 2_000_000_000,
        "revisit": -1,
        "start_slack": 0,
    },
    # ``preset=hints``: for all five hints of the official board (the four clue pieces sit where
    # his breaks would have every edge matched): his fill order and colours at 0.9 of his
    # curve, our schedules, restarts ten times ours and no revisit (docs/eternity.md, *With all
    # five hints*)
    "hints": {
        "fill": "blackwood",
        "rare": "10,13,16",
        "rare_share": 0.9,
        "restart_nodes": 200_000_000,
        "revisit": -1,
    },
}
_SCHEDULE = r"(0?\.[0-9]+|1(\.0*)?):[0-9]{1,2}(\.[0-9]*)?"


@dataclass(frozen=True)
class Knobs:
    """The score search's settings (each an Option of the same name, :data:`OPTIONS`).

    Attributes:
        restart_nodes: row-scan nodes of a restart (20 M to 200 M reach 461-462 alike per node).
        start_slack: a restart first looks for boards this many errors worse than the best.
        order_colours: colours drawn per restart, whose tiles come first in every list.
        hint_ahead: rows above a hint filled with it, column by column, tiles that fit it first.
        tail_columns: the board's last rows filled column by column; None: the search picks.
        lead_columns: a band's first columns, filled together row by row (1: none).
        revisit: a restart ending this many errors from the best revisits its head (-1: never).
        revisit_rows: rows' worth of depths before the tail band that a revisit searches again.
        revisit_slacks: a revisit's schedules, shaped for boards this many errors worse than
            the best, each tried when the search under the last one was exhausted.
        revisit_share: a revisit's nodes, this share of the restarts' since the last one.
        schedules: (tail, power) of each worker's schedule, worker i taking the i-th (cyclically).
        scan_share: of the time limit, the share for the row scan; the rest polishes its best.
        breaks: (cell, errors) points of one schedule for every worker, in place of
            ``schedules``: no error before the first cell, then the errors allowed rise
            linearly from point to point and stay at the last (the hunt's level caps them);
            none: the ``schedules``.  Blackwood-style: ``199:0,200:10,243:10,244:99`` (every
            edge matched to cell 200 in fill order, then 10 errors to cell 244, the level
            after); ``blackwood`` is his solver's (:data:`BLACKWOOD_BREAKS`).
        complete_cells: a restart whose deepest partial board lacks at most this many cells
            has it completed by an exact search with the tiles left over, and a hunt keeps
            the completed board when it reaches the level (0: never).
        fill: the order the scan fills the cells in: ``bands`` (:func:`fill_order`'s bands)
            or ``blackwood`` (Blackwood's: the head row by row, then the last five rows by
            blocks: their first five columns row by row, the next ones column by column, the
            last four peeled a row and a column at a time; :func:`blackwood_order`).
        rare: colours to use up early (Blackwood's colour exhaustion): the tiles showing most
            of them come first in every list (in place of ``order_colours``), and the scan
            places a cell only when the sides of these colours placed so far reach a minimum
            per depth (:func:`rare_minimum`); empty: none.  Blackwood's: ``10,13,16``.
        rare_share: that minimum, as a share of Blackwood's curve (1: his, 0: none).
    """

    restart_nodes: int = 20_000_000
    start_slack: int = 3
    order_colours: int = 5
    hint_ahead: int = 2
    tail_columns: int | None = None
    lead_columns: int = 2
    revisit: int = 2
    revisit_rows: int = 2
    revisit_slacks: tuple[int, ...] = (3, 4, 5, 6)
    revisit_share: float = 1.0
    schedules: tuple[tuple[float, float], ...] = ((0.35, 2.5), (0.37, 2.5))
    scan_share: float = 0.9
    breaks: tuple[tuple[int, int], ...] = ()
    complete_cells: int = 0
    fill: str = "bands"
    rare: tuple[int, ...] = ()
    rare_share: float = 1.0

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Knobs:
        """The knobs among a run's options (the others left out, a missing or None one at its
        default): a ``preset``'s values first (:data:`PRESETS`), each one given overriding its own.

        Raises:
            OptionError: a value its Option does not accept (:class:`~puzzlesat.core.options.OptionError`).
        """
        chosen = {key: value for key, value in options.items() if value is not None}
        preset = PRESET.convert(chosen.pop("preset", None))
        chosen = {**PRESETS.get(preset, {}), **chosen}
        given = {opt.name: opt.convert(chosen[opt.name]) for opt in OPTIONS if chosen.get(opt.name) is not None}
        values: dict[str, Any] = {}
        for name, value in given.items():
            if name in ("revisit_slacks", "rare"):
                values[name] = tuple(int(x) for x in value.split(","))
            elif name == "breaks":
                value = BLACKWOOD_BREAKS if value == "blackwood" else value
                points = tuple(tuple(int(x) for x in pair.split(":")) for pair in value.split(","))
                if any(a[0] >= b[0] for a, b in zip(points, points[1:], strict=False)):
                    raise OptionError(f"option breaks={value!r}: expected the cells in increasing order")
                values[name] = points
            elif name == "schedules":
                values[name] = tuple(tuple(float(x) for x in pair.split(":")) for pair in value.split(","))
            else:
                values[name] = value
        return cls(**values)

    def options(self) -> dict[str, Any]:
        """These knobs as option values (what :meth:`from_options` reads back)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["revisit_slacks"] = ",".join(map(str, self.revisit_slacks))
        values["schedules"] = ",".join(f"{t:g}:{p:g}" for t, p in self.schedules)
        values["breaks"] = ",".join(f"{cell}:{errors}" for cell, errors in self.breaks) or None
        values["rare"] = ",".join(map(str, self.rare)) or None
        return values


# --workers N: seconds of search here before the others start (a small board ends sooner); the
# shared tree (split.py) and the score search (score.py) alike
HEAD_START = head_start(0.2)


def _text(name: str) -> str:
    """A default as an option's text."""
    return str(Knobs().options()[name])


# the preset's knobs default to None, so that a value given on its own is told from one left out
PRESET = Option(
    "preset",
    str,
    None,
    "--score: several knobs in one, each overridden by its own -O: "
    + "; ".join(f"{name} ({', '.join(f'{k}={v}' for k, v in knobs.items())})" for name, knobs in PRESETS.items()),
    choices=tuple(PRESETS),
)
OPTIONS = (
    PRESET,
    Option(
        "restart_nodes",
        int,
        None,
        f"--score: row-scan nodes of a restart (default {Knobs.restart_nodes})",
        low=1_000,
        high=10**12,
    ),
    Option(
        "start_slack",
        int,
        None,
        f"--score: a restart first aims this many errors above the best (default {Knobs.start_slack})",
        low=0,
        high=100,
    ),
    Option(
        "order_colours",
        int,
        Knobs.order_colours,
        "--score: colours drawn per restart, their tiles first",
        low=0,
        high=64,
    ),
    Option(
        "hint_ahead",
        int,
        Knobs.hint_ahead,
        "--score: rows above a hint filled with it, column by column",
        low=0,
        high=64,
    ),
    Option(
        "tail_columns",
        int,
        None,
        "--score: the last rows filled column by column (default: by the hints)",
        low=0,
        high=64,
    ),
    Option(
        "lead_columns",
        int,
        Knobs.lead_columns,
        "--score: a band's first columns filled together (1: none)",
        low=1,
        high=64,
    ),
    Option(
        "revisit",
        int,
        None,
        f"--score: a restart this many errors from the best revisits its head (-1: never; default {Knobs.revisit})",
        low=-1,
        high=100,
    ),
    Option(
        "revisit_rows",
        int,
        Knobs.revisit_rows,
        "--score: rows before the tail band a revisit searches again",
        low=0,
        high=64,
    ),
    Option(
        "revisit_slacks",
        str,
        _text("revisit_slacks"),
        "--score: a revisit's schedules, errors above the best, comma-separated, tried in turn",
        pattern=_SLACKS,
    ),
    Option(
        "revisit_share",
        float,
        Knobs.revisit_share,
        "--score: a revisit's nodes, this share of the restarts' since the last",
        low=0.0,
        high=1000.0,
    ),
    Option(
        "schedules",
        str,
        _text("schedules"),
        "--score: TAIL:POWER of each worker's error schedule, comma-separated (worker i takes the i-th)",
        pattern=f"{_SCHEDULE}(,{_SCHEDULE}){{0,63}}",
    ),
    Option(
        "scan_share",
        float,
        Knobs.scan_share,
        "--score: share of the time limit for the row scan, the rest polishes",
        low=0.0,
        high=1.0,
    ),
    Option(
        "breaks",
        str,
        None,
        "--score: CELL:ERRORS points of one error schedule for all workers, comma-separated, "
        "errors linear between them, or blackwood (his solver's: 10 breaks from cell 201; default: the schedules)",
        pattern=f"blackwood|{_BREAK}(,{_BREAK}){{0,63}}",
    ),
    Option(
        "complete_cells",
        int,
        None,
        "--score: a restart's deepest board lacking at most this many cells is completed exactly "
        f"(0: never; default {Knobs.complete_cells})",
        low=0,
        high=16,
    ),
    Option(
        "fill",
        str,
        None,
        "--score: the fill order, bands (ours) or blackwood (his: head row by row, tail by blocks; "
        f"default {Knobs.fill})",
        choices=FILLS,
    ),
    Option(
        "rare",
        str,
        None,
        "--score: colours used up early, comma-separated, a minimum of their sides per depth "
        "(Blackwood's: 10,13,16; default none)",
        pattern=_COLOURS,
    ),
    Option(
        "rare_share",
        float,
        None,
        f"--score: the rare colours' minimum per depth, a share of Blackwood's curve (default {Knobs.rare_share:g})",
        low=0.0,
        high=2.0,
    ),
)
