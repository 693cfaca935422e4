"""An SVG picture of an edge-matching board: each tile as four coloured triangles.

Colour 0 (grey, the frame) is drawn grey; the others take a fixed palette of well-separated
colours (Kelly's colours of maximum contrast and a few more: 24 with grey, enough for
Eternity II's 22), then golden-angle hues for larger colour counts.  Hint pieces get a thick
outline and every mismatched edge a red line.
"""

from __future__ import annotations

import colorsys
from collections.abc import Iterable, Sequence

PALETTE = (
    "#9e9e9e",  # 0: grey, the frame
    "#f3c300",
    "#875692",
    "#f38400",
    "#a1caf1",
    "#be0032",
    "#c2b280",
    "#008856",
    "#e68fac",
    "#0067a5",
    "#f99379",
    "#604e97",
    "#f6a600",
    "#b3446c",
    "#dcd300",
    "#882d17",
    "#8db600",
    "#654522",
    "#e25822",
    "#2b3d26",
    "#00b7c7",
    "#f2f3f4",
    "#1c1c84",
    "#ff7ee8",
)
CELL = 40
MISMATCH = "#ff0000"
HINT = "#000000"


def colour(index: int) -> str:
    """The fill of a colour index: the palette, then evenly spread hues.

    >>> colour(0), colour(1), colour(30)[0]
    ('#9e9e9e', '#f3c300', '#')
    """
    if index < len(PALETTE):
        return PALETTE[index]
    red, green, blue = colorsys.hsv_to_rgb((index * 0.618034) % 1.0, 0.55 + 0.4 * (index % 2), 0.85)
    return f"#{int(red * 255):02x}{int(green * 255):02x}{int(blue * 255):02x}"


def draw_board(
    rows: int,
    cols: int,
    looks: Sequence[tuple[int, int, int, int] | None],
    hinted: Iterable[int] = (),
    mismatched: Iterable[tuple[int, int]] = (),
) -> str:
    """The SVG text of a board.

    Args:
        rows, cols: the board's size.
        looks: per cell (row-major), the colours on sides N, E, S, W, or None for a blank cell.
        hinted: cells holding a hint piece (outlined).
        mismatched: adjacent cell pairs whose touching colours differ (a red line between them).
    """
    width, height = cols * CELL, rows * CELL
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 4}" height="{height + 4}" '
        f'viewBox="-2 -2 {width + 4} {height + 4}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
    ]
    for cell, look in enumerate(looks):
        if look is None:
            continue
        x, y = cell % cols * CELL, cell // cols * CELL
        mx, my = x + CELL / 2, y + CELL / 2
        corners = ((x, y), (x + CELL, y), (x + CELL, y + CELL), (x, y + CELL))
        for side in range(4):
            (ax, ay), (bx, by) = corners[side], corners[(side + 1) % 4]
            parts.append(
                f'<polygon points="{ax},{ay} {bx},{by} {mx},{my}" fill="{colour(look[side])}" '
                'stroke="#333" stroke-width="0.5"/>'
            )
    for cell in sorted(set(hinted)):
        x, y = cell % cols * CELL, cell // cols * CELL
        parts.append(
            f'<rect x="{x + 3}" y="{y + 3}" width="{CELL - 6}" height="{CELL - 6}" fill="none" '
            f'stroke="{HINT}" stroke-width="5"/>'
        )
        parts.append(
            f'<rect x="{x + 6}" y="{y + 6}" width="{CELL - 12}" height="{CELL - 12}" fill="none" '
            'stroke="white" stroke-width="1.5"/>'
        )
    for first, second in mismatched:
        x, y = first % cols * CELL, first // cols * CELL
        if second == first + 1:  # the edge east of ``first``
            line = (x + CELL, y, x + CELL, y + CELL)
        else:  # the edge south of it
            line = (x, y + CELL, x + CELL, y + CELL)
        ends = f'x1="{line[0]}" y1="{line[1]}" x2="{line[2]}" y2="{line[3]}"'
        parts.append(f'<line {ends} stroke="white" stroke-width="7" stroke-linecap="round"/>')
        parts.append(f'<line {ends} stroke="{MISMATCH}" stroke-width="4" stroke-linecap="round"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
