"""A small SVG writer shared by the puzzles' pictures: shapes and text appended to a list.

The pictures are plain SVG 1.1 (no script, no external font or image), so a browser, a
notebook, cairosvg or rsvg-convert draws them alike.  Numbers are written short (``12.5``,
not ``12.500000``) to keep large boards small.

>>> p = Picture(20, 10)
>>> p.rect(0, 0, 20, 10, fill="white")
>>> p.text(10, 5, "a<b", size=8)
>>> print(p.svg())  # doctest: +NORMALIZE_WHITESPACE
<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 20 10">
<rect x="0" y="0" width="20" height="10" fill="white"/>
<text x="10" y="5" font-size="8" text-anchor="middle" dominant-baseline="central"
 font-family="DejaVu Sans, Arial, sans-serif">a&lt;b</text>
</svg>
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Arial, sans-serif"


def num(value: float) -> str:
    """A coordinate as short text: ``3``, ``2.5``, ``0.333``.

    >>> num(3.0), num(2.5), num(1 / 3)
    ('3', '2.5', '0.333')
    """
    return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _attrs(extra: dict[str, object]) -> str:
    """``key="value"`` pairs; a trailing underscore is dropped and ``_`` becomes ``-``."""
    parts = []
    for key, value in extra.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        text = num(value) if isinstance(value, float | int) and not isinstance(value, bool) else str(value)
        parts.append(f"{name}={quoteattr(text)}")
    return (" " + " ".join(parts)) if parts else ""


class Picture:
    """An SVG picture being drawn: add shapes, then take :meth:`svg`.

    Args:
        width, height: the size in pixels (the view box is the same, from 0, 0).
    """

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height
        self.parts: list[str] = []

    def add(self, tag: str, **attrs: object) -> None:
        """Any empty element, e.g. ``add("polygon", points=..., fill=...)``."""
        self.parts.append(f"<{tag}{_attrs(attrs)}/>")

    def rect(self, x: float, y: float, width: float, height: float, **attrs: object) -> None:
        """A rectangle; ``attrs`` as SVG attributes (``fill``, ``stroke``, ``stroke_width``, ``rx``)."""
        self.add("rect", x=x, y=y, width=width, height=height, **attrs)

    def circle(self, cx: float, cy: float, r: float, **attrs: object) -> None:
        """A circle."""
        self.add("circle", cx=cx, cy=cy, r=r, **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: object) -> None:
        """A straight line."""
        self.add("line", x1=x1, y1=y1, x2=x2, y2=y2, **attrs)

    def polyline(self, points: Iterable[tuple[float, float]], **attrs: object) -> None:
        """An open line through the points (``fill="none"`` unless given)."""
        attrs.setdefault("fill", "none")
        self.add("polyline", points=" ".join(f"{num(x)},{num(y)}" for x, y in points), **attrs)

    def polygon(self, points: Iterable[tuple[float, float]], **attrs: object) -> None:
        """A closed shape through the points."""
        self.add("polygon", points=" ".join(f"{num(x)},{num(y)}" for x, y in points), **attrs)

    def text(self, x: float, y: float, text: str, size: float, **attrs: object) -> None:
        """Text centred on (x, y) unless ``text_anchor`` says otherwise."""
        attrs = {"text_anchor": "middle", "dominant_baseline": "central", "font_family": FONT, **attrs}
        self.parts.append(f"<text{_attrs({'x': x, 'y': y, 'font_size': size, **attrs})}>{escape(text)}</text>")

    def group(self, inner: Picture, dx: float, dy: float) -> None:
        """Another picture's shapes, moved by (dx, dy)."""
        self.parts.append(f'<g transform="translate({num(dx)},{num(dy)})">')
        self.parts.extend(inner.parts)
        self.parts.append("</g>")

    def arrow_head(self, x1: float, y1: float, x2: float, y2: float, size: float, **attrs: object) -> None:
        """A filled triangle at (x2, y2) pointing along the line from (x1, y1)."""
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5 or 1.0
        ux, uy = dx / length, dy / length
        back_x, back_y = x2 - ux * size, y2 - uy * size
        half = size * 0.55
        self.polygon(
            [(x2, y2), (back_x - uy * half, back_y + ux * half), (back_x + uy * half, back_y - ux * half)], **attrs
        )

    def svg(self) -> str:
        """The SVG text, one element a line."""
        w, h = num(self.width), num(self.height)
        head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
        return "\n".join([head, *self.parts, "</svg>"]) + "\n"
