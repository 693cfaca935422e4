"""Edge matching: hint pieces, the matched-edge score and the SVG picture."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clirun import run_cli

from puzzlesat import api, cli, core
from puzzlesat.core import Limits, ParseError, Status
from puzzlesat.domains import eternity
from puzzlesat.domains.eternity import Hint, Solution

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


def solved_5x5() -> tuple[eternity.Instance, Solution]:
    """A generated 5x5 and a solution of it, turned half a turn so that its top-left corner
    is not the tile the symmetry breaking would put there."""
    instance = eternity.generate({"size": 5, "frame_colours": 3, "inner_colours": 6}, 3)
    found = core.run_strategy(eternity.PUZZLE, instance, "native-rowscan", Limits(timeout=60)).solution
    # the board turned 180 degrees: cell c goes to n-1-c, every tile two more quarter turns
    n = instance.cells
    turned = Solution(tuple((t, (r + 2) % 4) for t, r in reversed(found.placements)))
    assert eternity.verify(instance, turned) == [] and turned.placements[0] != found.placements[0]
    assert n == 25
    return instance, turned


def hint_lines(instance: eternity.Instance, solution: Solution, cells: list[int]) -> str:
    return "".join(f"{solution.placements[c][0]} {c // 5} {c % 5} {solution.placements[c][1]}\n" for c in cells)


# a corner away from the top-left, a border cell and an inside cell
HINT_CELLS = [24, 7, 12]


@pytest.mark.parametrize("strategy", ["native-rowscan", "cpsat-table", "cnf-heule:cadical195"])
def test_every_formulation_keeps_the_hints(strategy: str) -> None:
    instance, solution = solved_5x5()
    hinted = eternity.with_hints(
        instance, "# three pieces of a known solution\n" + hint_lines(instance, solution, HINT_CELLS)
    )
    assert [h.cell for h in hinted.hints] == HINT_CELLS
    assert eternity.first_corner(hinted) is None and eternity.first_corner(instance) is not None
    result = core.run_strategy(eternity.PUZZLE, hinted, strategy, Limits(timeout=120))
    assert result.status is Status.SOLVED, result.message
    for cell in HINT_CELLS:
        assert result.solution.placements[cell] == solution.placements[cell]


def test_verifier_rejects_a_broken_hint() -> None:
    instance, solution = solved_5x5()
    hinted = eternity.with_hints(instance, hint_lines(instance, solution, [12]))
    assert eternity.verify(hinted, solution) == []
    # the same board turned half a turn again is a solution of the puzzle, but not of the hint
    other = Solution(tuple((t, (r + 2) % 4) for t, r in reversed(solution.placements)))
    assert eternity.verify(instance, other) == []
    problems = eternity.verify(hinted, other)
    assert problems and "the hint wants tile" in problems[0] and "(2, 2)" in problems[0]
    assert eternity.verify(hinted, other, matching=False) == problems


def test_hints_travel_in_the_instance_text() -> None:
    instance, solution = solved_5x5()
    hinted = eternity.with_hints(instance, hint_lines(instance, solution, HINT_CELLS))
    text = eternity.write_instance(hinted)
    assert text.startswith(eternity.write_instance(instance)) and "\nhints\n" in text
    assert eternity.parse(text) == hinted
    bad = text.replace(f"\n{solution.placements[12][0]} 2 2 ", "\n0 9 9 ")
    with pytest.raises(ParseError, match=r"^f:30: cell \(9, 9\) is off the 5x5 board"):
        eternity.parse(bad, "f")


def test_official_hints_read_one_based(shared_instances: Path) -> None:
    folder = shared_instances / "eternity"
    board = api.load("eternity", folder / "e2_16x16.txt", hints=str(folder / "e2_16x16_hints.txt"))
    hints = board.data.hints
    # the starter piece: official piece 139 (our tile 138) on I8, i.e. row 8, column 7, turned twice
    assert hints[0] == Hint(138, 8 * 16 + 7, 2)
    assert [(h.tile, divmod(h.cell, 16), h.rotation) for h in hints[1:]] == [
        (180, (13, 2), 3),
        (254, (2, 13), 3),
        (248, (13, 13), 0),
        (207, (2, 2), 3),
    ]
    assert eternity.rotated(board.data.tiles[138], 2) == (18, 6, 6, 11)
    # the same pieces written 0-based, without colours, read the same
    plain = "".join(f"{h.tile} {h.cell // 16} {h.cell % 16} {h.rotation}\n" for h in hints)
    assert eternity.parse_hints(eternity.parse((folder / "e2_16x16.txt").read_text()), plain) == hints


def legal_board(instance: eternity.Instance) -> Solution:
    """Some full legal board: the hints, then every other tile on the first free cell of its kind."""
    board = {hint.cell: (hint.tile, hint.rotation) for hint in instance.hints}
    hinted = {hint.tile for hint in instance.hints}
    for tile in range(instance.cells):
        if tile in hinted:
            continue
        for cell in range(instance.cells):
            if cell in board:
                continue
            frame = set(instance.frame_sides(cell))
            turns = [
                r
                for r in range(4)
                if {s for s, k in enumerate(eternity.rotated(instance.tiles[tile], r)) if k == 0} == frame
            ]
            if turns:
                board[cell] = (tile, turns[0])
                break
    return Solution(tuple(board[cell] for cell in range(instance.cells)))


def test_official_board_scores_and_draws(
    shared_instances: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_instances / "eternity"
    instance = api.load("eternity", folder / "e2_16x16.txt", hints=str(folder / "e2_16x16_hints.txt"))
    solution = legal_board(instance.data)
    board = tmp_path / "board.txt"
    board.write_text(eternity.format_solution(instance.data, solution))
    picture = tmp_path / "board.svg"
    args = [
        "check",
        "eternity",
        str(folder / "e2_16x16.txt"),
        str(board),
        "--hints",
        str(folder / "e2_16x16_hints.txt"),
    ]
    assert cli.main([*args, "--score", "--svg", str(picture)]) == 0
    score = eternity.score(instance.data, solution)
    assert f"c score {score}/480" in capsys.readouterr().err and score < 480
    root = ET.parse(picture).getroot()
    assert len(root.findall(f"{SVG}polygon")) == 4 * 256
    assert cli.main(args) == 1  # mismatched edges, no --score


# {t} and {u}: two inside tiles; each message names the line at fault (| separates its parts)
BAD_HINTS = {
    "tile": ("{t} 1 1 0\n99 2 2 0\n", ":2: tile 99 does not exist"),
    "cell": ("{t} 7 0 0\n", ":1: cell (7, 0) is off the 5x5 board"),
    "rotation": ("# comment\n\n{t} 1 1 4\n", ":3: rotation 4 not in 0..3"),
    "malformed": ("{t} 1 1\n", ":1: expected 'TILE ROW COL ROTATION"),
    "word": ("{t} 1 1 x\n", ":1: expected 'TILE ROW COL ROTATION"),
    "twice_tile": ("{t} 1 1 0\n{t} 2 2 0\n", ":2: tile {t} is hinted twice (cells (1, 1) and (2, 2))"),
    "twice_cell": ("{t} 1 1 0\n{u} 1 1 0\n", ":2: cell (1, 1) is hinted twice (tiles {t} and {u})"),
    "frame": ("{t} 0 2 0\n", ":1: tile {t} turned 0 shows|: its grey edges do not face the frame at (0, 2)"),
    "colours": ("{t} 1 1 0 -> 0 0 0 0\n", ":1: tile {t} turned 0 shows|, not (0, 0, 0, 0)"),
}


@pytest.mark.parametrize("name", sorted(BAD_HINTS))
def test_bad_hints_give_one_line_and_exit_2(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    instance, _ = solved_5x5()
    t, u = [tile for tile in range(instance.cells) if instance.grey_count(tile) == 0][:2]
    text, message = (part.format(t=t, u=u) for part in BAD_HINTS[name])
    puzzle, hints = tmp_path / "p.txt", tmp_path / "h.txt"
    puzzle.write_text(eternity.write_instance(instance))
    hints.write_text(text)
    assert cli.main(["solve", "eternity", str(puzzle), "--hints", str(hints)]) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    first, *rest = message.split("|")
    assert out.out == "" and len(lines) == 1 and f"{hints}{first}" in lines[0], out.err
    assert all(part in lines[0] for part in rest), out.err


def test_missing_hints_file_is_one_line_through_the_real_cli(tmp_path: Path) -> None:
    missing = tmp_path / "none.txt"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlesat.cli",
            "check",
            "eternity",
            "instances/eternity/seed_4x4.txt",
            "instances/eternity/seed_4x4.sol",
            "--hints",
            str(missing),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and proc.stderr == f"puzzlesat: {missing}: cannot read: No such file or directory\n"


def test_cli_hints_through_solve_check_export_decode(tmp_path: Path) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    instance, solution = solved_5x5()
    puzzle, hints = tmp_path / "p.txt", tmp_path / "h.txt"
    puzzle.write_text(eternity.write_instance(instance))
    hints.write_text(hint_lines(instance, solution, HINT_CELLS))
    hinted = eternity.with_hints(instance, hints.read_text())

    solved = run_cli("solve", "eternity", str(puzzle), "--hints", str(hints), "--svg", str(tmp_path / "s.svg"))
    assert solved.returncode == 0, solved.stderr
    answer = eternity.parse_solution(instance, solved.stdout)
    assert eternity.verify(hinted, answer) == []
    root = ET.parse(tmp_path / "s.svg").getroot()
    assert len(root.findall(f"{SVG}rect")) == 1 + 2 * len(HINT_CELLS)  # background, two outlines per hint
    # a solution of the puzzle that breaks a hint fails check --hints (and --score too)
    broken = tmp_path / "broken.txt"
    broken.write_text(
        eternity.format_solution(instance, Solution(tuple((t, (r + 2) % 4) for t, r in reversed(solution.placements))))
    )
    assert run_cli("check", "eternity", str(puzzle), str(broken)).returncode == 0
    failed = run_cli("check", "eternity", str(puzzle), str(broken), "--hints", str(hints), "--score")
    assert failed.returncode == 1 and "the hint wants tile" in failed.stderr and "c score" not in failed.stderr
    # export keeps the hints in its sidecar: decode re-encodes the same formula
    cnf = tmp_path / "p.cnf"
    exported = run_cli("export", "eternity", str(puzzle), "-s", "cnf-heule", "--hints", str(hints), "-o", str(cnf))
    assert exported.returncode == 0, exported.stderr
    assert "hints" in (tmp_path / "p.cnf.json").read_text()
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        model = sat.get_model()
    out = tmp_path / "answer.out"
    out.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    decoded = run_cli("decode", "eternity", str(out), "--map", str(cnf) + ".json")
    assert decoded.returncode == 0, decoded.stderr
    assert eternity.verify(hinted, eternity.parse_solution(instance, decoded.stdout)) == []


def neighbours_matching(instance: eternity.Instance, solution: Solution, cells: set[int]) -> int:
    """Matched edges touching ``cells``, counted edge by edge (each edge once)."""
    looks = [eternity.rotated(instance.tiles[t], r) for t, r in solution.placements]
    cols, count = instance.cols, 0
    for cell in range(instance.cells):
        if cell % cols + 1 < cols and {cell, cell + 1} & cells:
            count += looks[cell][1] == looks[cell + 1][3]
        if cell + cols < instance.cells and {cell, cell + cols} & cells:
            count += looks[cell][2] == looks[cell + cols][0]
    return count


def test_score_of_a_solved_board_and_of_a_swap(tmp_path: Path) -> None:
    instance, solution = solved_5x5()
    assert eternity.max_score(instance) == 2 * 5 * 4 == eternity.score(instance, solution)
    placements = list(solution.placements)
    a, b = 6, 18  # two inside cells, not neighbours
    placements[a], placements[b] = placements[b], placements[a]
    swapped = Solution(tuple(placements))
    lost = 8 - neighbours_matching(instance, swapped, {a, b})
    assert lost > 0 and eternity.score(instance, swapped) == 40 - lost
    assert eternity.verify(instance, swapped, matching=False) == []
    assert len(eternity.mismatches(instance, swapped)) == lost
    # check --score accepts it and prints the score; the picture marks each mismatch
    puzzle, board, picture = tmp_path / "p.txt", tmp_path / "b.txt", tmp_path / "b.svg"
    puzzle.write_text(eternity.write_instance(instance))
    board.write_text(eternity.format_solution(instance, swapped))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlesat.cli",
            "check",
            "eternity",
            str(puzzle),
            str(board),
            "--score",
            "--svg",
            str(picture),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and f"c score {40 - lost}/40" in proc.stderr, proc.stderr
    root = ET.parse(picture).getroot()
    red = [line for line in root.findall(f"{SVG}line") if line.get("stroke") == "#ff0000"]
    assert len(red) == lost and len(root.findall(f"{SVG}polygon")) == 100


def test_score_rejects_an_illegal_board(capsys: pytest.CaptureFixture[str]) -> None:
    instance, solution = solved_5x5()
    board = api.Instance("eternity", instance)
    twice = Solution((solution.placements[1], *solution.placements[1:]))
    assert "used twice" in api.check(board, twice, score=True)[0]
    assert "c score" not in capsys.readouterr().err


def test_load_accepts_only_declared_instance_options(tmp_path: Path) -> None:
    seed = ROOT / "instances" / "eternity" / "seed_4x4.txt"
    with pytest.raises(core.OptionError, match="unknown option 'hint' for eternity instance; valid options: hints"):
        api.load("eternity", seed, hint="h.txt")
    with pytest.raises(core.OptionError, match="for masyu instance; valid options: none"):
        api.load("masyu", ROOT / "instances" / "masyu" / "seed_7x7.txt", hints="h.txt")
    hints = tmp_path / "h.txt"
    hints.write_text("0 0 0 0\n")  # the seed's tile 0 is the corner (0, 1, 2, 0): grey N and W as it lies
    board = api.load("eternity", seed, hints=str(hints))
    assert board.data.hints == (Hint(0, 0, 0),) and api.load("eternity", board.text).data == board.data
