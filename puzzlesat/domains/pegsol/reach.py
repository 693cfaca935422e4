"""Which jumps each step of a plan may play (planning graphs from the start and from the goal)."""

from __future__ import annotations

from puzzlesat.domains.pegsol.instance import PEG, Cell, Instance


def step_jumps(instance: Instance, reach: bool = True) -> list[list[int]]:
    """For each step t, the indices into ``instance.jumps()`` that may be played at t.

    A jump is kept when the planning graph grown from the start (cells that may hold a peg
    or a hole after t jumps) allows it, and the one grown backward from the goal does too.
    Both the CNF and the CP-SAT plan create jump variables only for these.
    """
    jumps = instance.jumps()
    horizon = instance.moves_needed
    if not reach:
        return [list(range(len(jumps))) for _ in range(horizon)]
    cells = instance.cells
    start, target = instance.start, instance.target
    fwd: list[tuple[set[Cell], set[Cell]]] = []
    may_peg = {x for x in cells if start[x[0]][x[1]] == PEG}
    may_hole = set(cells) - may_peg
    for _ in range(horizon):
        fwd.append((set(may_peg), set(may_hole)))
        for a, b, c in jumps:
            if a in fwd[-1][0] and b in fwd[-1][0] and c in fwd[-1][1]:
                may_peg.add(c)
                may_hole |= {a, b}
    bwd: list[tuple[set[Cell], set[Cell]]] = [(set(), set())] * horizon
    may_peg = {x for x in cells if target[x[0]][x[1]] == PEG}
    may_hole = set(cells) - may_peg
    for t in reversed(range(horizon)):
        bwd[t] = (set(may_peg), set(may_hole))  # the position after jump t
        for a, b, c in jumps:
            if a in bwd[t][1] and b in bwd[t][1] and c in bwd[t][0]:
                may_peg |= {a, b}
                may_hole.add(c)
    out = []
    for t in range(horizon):
        (fp, fh), (bp, bh) = fwd[t], bwd[t]
        out.append(
            [
                k
                for k, (a, b, c) in enumerate(jumps)
                if a in fp and b in fp and c in fh and a in bh and b in bh and c in bp
            ]
        )
    return out
