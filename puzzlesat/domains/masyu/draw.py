"""Masyu's loop drawn in text (box-drawing characters)."""

from __future__ import annotations

from puzzlesat.domains.masyu.instance import BLACK, STEP, WHITE, Cell, Instance, Solution

_BOX = {
    frozenset("UD"): "│",
    frozenset("LR"): "─",
    frozenset("DR"): "┌",
    frozenset("DL"): "┐",
    frozenset("UR"): "└",
    frozenset("UL"): "┘",
}


def draw_text(instance: Instance, solution: Solution | None) -> str:
    """The grid with the loop drawn in box characters; ● black, ○ white, · empty."""
    dirs: dict[Cell, set[str]] = {}
    if solution is not None:
        r, c = solution.start
        back = {"U": "D", "D": "U", "L": "R", "R": "L"}
        for move in solution.moves:
            dirs.setdefault((r, c), set()).add(move)
            dr, dc = STEP[move]
            r, c = r + dr, c + dc
            dirs.setdefault((r, c), set()).add(back[move])
    out = []
    for r in range(instance.rows):
        line = []
        below = []
        for c in range(instance.cols):
            clue = instance.clue(r, c)
            d = dirs.get((r, c), set())
            ch = {BLACK: "●", WHITE: "○"}.get(clue) or _BOX.get(frozenset(d), "·")
            line.append(ch)
            if c + 1 < instance.cols:
                line.append("─" if "R" in d else " ")
            below.append("│" if "D" in d else " ")
            if c + 1 < instance.cols:
                below.append(" ")
        out.append("".join(line).rstrip())
        if r + 1 < instance.rows:
            out.append("".join(below).rstrip())
    return "\n".join(out) + "\n"
