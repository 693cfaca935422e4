"""Pictures of every puzzle (``--svg``, ``puzzlesat.draw``, ``_repr_svg_``) and output that
suits where it goes: progress as a bar on a terminal only, no drawing on stderr unasked."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from clirun import run_cli

from puzzlesat import api, cli
from puzzlesat.core import PuzzlesatError, Result, Status, progress, registry

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "instances"
SVG = "{http://www.w3.org/2000/svg}"

# a verified answer to each seed (the test checks each with the verifier first)
ENGLISH = (
    "1:3-3:3 2:1-2:3 0:2-2:2 0:4-0:2 2:3-2:1 2:0-2:2 2:4-0:4 2:6-2:4 3:2-1:2 0:2-2:2 3:0-3:2 3:2-1:2 3:4-3:2 "
    "3:6-3:4 3:4-1:4 0:4-2:4 4:2-2:2 1:2-3:2 4:0-4:2 4:3-4:1 5:4-3:4 4:6-4:4 6:2-4:2 3:2-5:2 6:4-6:2 6:2-4:2 "
    "4:1-4:3 4:3-4:5 2:4-4:4 4:5-4:3 5:3-3:3"
)
ANSWERS = {
    "eternity": ("eternity/seed_4x4.txt", (SEEDS / "eternity/seed_4x4.sol").read_text()),
    "masyu": ("masyu/seed_7x7.txt", (SEEDS / "masyu/seed_7x7.sol").read_text()),
    "pegsol": ("pegsol/english33_center.txt", ENGLISH.replace(" ", "\n") + "\n"),
    "blacken": ("blacken/seed_7x7.txt", (SEEDS / "blacken/seed_7x7.sol").read_text()),
    "rubik": ("rubik/scramble_8_seed1.txt", "B2 L' D' R' B2 U2 D2 R  (8f)\n"),
}


def answered(puzzle: str) -> tuple[api.Instance, object]:
    """The seed instance and its answer, verified."""
    path, text = ANSWERS[puzzle]
    instance = api.load(puzzle, SEEDS / path)
    solution = instance.puzzle.parse_solution(instance.data, text, path)
    assert api.check(instance, solution) == [], puzzle
    return instance, solution


def parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and float(root.get("width", 0)) > 0 and float(root.get("height", 0)) > 0
    return root


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("puzzle", list(ANSWERS))
def test_every_puzzle_draws_its_instance_and_its_answer(puzzle: str) -> None:
    instance, solution = answered(puzzle)
    alone, drawn = parsed(api.draw(instance)), parsed(api.draw(instance, solution))
    assert api.draw(instance, ANSWERS[puzzle][1]) == api.draw(instance, solution)  # text is read first
    if puzzle == "eternity":
        assert len(drawn.findall(f"{SVG}polygon")) == 4 * 16 == len(alone.findall(f"{SVG}polygon"))
    elif puzzle == "masyu":
        circles = len(instance.data.black) + len(instance.data.white)
        assert len(drawn.findall(f"{SVG}polyline")) == 1 and not alone.findall(f"{SVG}polyline")
        assert len(drawn.findall(f"{SVG}circle")) == circles
    elif puzzle == "pegsol":
        captions = texts(drawn)
        assert captions[0] == "start" and captions[1] == "1: 1:3-3:3" and captions[-1] == "31: 5:3-3:3"
        assert len(drawn.findall(f"{SVG}g")) == 32 and texts(alone) == ["start", "goal"]
    elif puzzle == "blacken":
        assert sorted(t for t in texts(drawn) if t.isdigit()) == ["1", "2", "3", "4", "5", "6"]
        assert "after 6 moves" in texts(drawn) and texts(alone) == ["start"]
    else:
        assert texts(alone)[0] == "scramble: R' U2 D2 B2 R D L B2"
        labels = [t for t in texts(drawn) if t[:1].isdigit()]
        assert labels == ["1. B2", "2. L'", "3. D'", "4. R'", "5. B2", "6. U2", "7. D2", "8. R"]
        assert len(drawn.findall(f".//{SVG}rect")) == 1 + 54 * 9  # background, the net and 8 small nets


def test_a_wrong_answer_is_drawn_as_far_as_it_goes() -> None:
    instance, _ = answered("pegsol")
    wrong = instance.puzzle.parse_solution(instance.data, "1:3-3:3\n1:3-3:3\n", "wrong")
    captions = texts(parsed(api.draw(instance, wrong)))
    assert captions == ["start", "1: 1:3-3:3", "2: 1:3-3:3 illegal"]
    board, _ = answered("blacken")
    off = board.puzzle.parse_solution(board.data, "The result is 1.\nx: 1 y: 1\n", "off")
    assert texts(parsed(api.draw(board, off))) == ["start", "1", "after 1 move"]


@pytest.mark.parametrize("puzzle", list(ANSWERS))
def test_instances_and_results_show_themselves_in_a_notebook(puzzle: str) -> None:
    instance, solution = answered(puzzle)
    assert instance._repr_svg_() == api.draw(instance) == instance.data._repr_svg_()
    result = Result(Status.SOLVED, solution)
    assert result._repr_svg_() is None  # a strategy's result does not know its instance
    result.puzzle, result.instance = instance.puzzle, instance.data
    copy = pickle.loads(pickle.dumps(result))  # it still pickles (to a process, to a file)
    assert copy == result and copy._repr_svg_() == api.draw(instance, solution)
    assert "instance" not in repr(result)


def test_the_api_result_knows_its_instance() -> None:
    instance = api.load("masyu", SEEDS / "masyu/seed_7x7.txt")
    result = api.solve(instance, "cnf-lazy")
    assert result.status is Status.SOLVED and result._repr_svg_() == api.draw(instance, result)
    assert "<polyline" in (result._repr_svg_() or "")


@pytest.mark.parametrize("puzzle", list(ANSWERS))
def test_each_picture_renders_to_png(puzzle: str, tmp_path: Path) -> None:
    try:
        import cairosvg  # the test extra; it loads the cairo library on import
    except (ImportError, OSError) as exc:
        pytest.skip(f"no SVG renderer (pip install cairosvg, and the cairo library): {exc}")
    instance, solution = answered(puzzle)
    png = tmp_path / f"{puzzle}.png"
    cairosvg.svg2png(bytestring=api.draw(instance, solution).encode(), write_to=str(png))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert 100 <= width <= 1200 and 100 <= height <= 1200, (width, height)


# solved in this process: small inputs and the strategies that start fastest (no compilation)
SOLVES = {
    "eternity": (None, "cnf-heule"),
    "masyu": (None, "cnf-lazy"),
    "pegsol": ("1 5\n1 1 -1 1 -1\n-1 -1 -1 -1 1\n", "cnf-plan"),
    "blacken": ("5 1\n3,3\n", "bfs"),
    "rubik": ("R U F'\n", "cnf-bmc"),
}


@pytest.mark.parametrize("puzzle", list(ANSWERS))
def test_svg_flag_on_solve_and_check(puzzle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, text = ANSWERS[puzzle]
    small, strategy = SOLVES[puzzle]
    instance = str(SEEDS / path)
    if small is not None:
        instance = str(tmp_path / "small.txt")
        Path(instance).write_text(small)
    solved, checked, answer = tmp_path / "solved.svg", tmp_path / "checked.svg", tmp_path / "answer.txt"
    assert cli.main(["solve", puzzle, instance, "-s", strategy, "--svg", str(solved)]) == 0
    out, err = capsys.readouterr()
    assert out and all(line.startswith("c ") for line in err.splitlines()), err  # nothing drawn unasked
    loaded = api.load(puzzle, Path(instance))
    assert solved.read_text() == api.draw(loaded, out)
    answer.write_text(out)
    assert cli.main(["check", puzzle, instance, str(answer), "--svg", str(checked)]) == 0
    assert capsys.readouterr().err == "OK\n"
    assert checked.read_text() == solved.read_text()
    seed = api.load(puzzle, SEEDS / path)
    answer.write_text(text)
    assert cli.main(["check", puzzle, str(SEEDS / path), str(answer), "--svg", str(checked)]) == 0
    assert checked.read_text() == api.draw(seed, text)


def test_check_draws_a_failed_answer_and_eternity_scores_on_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    instance = str(SEEDS / "eternity/seed_4x4.txt")
    lines = ANSWERS["eternity"][1].splitlines()
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("\n".join([lines[5], *lines[1:5], lines[0], *lines[6:]]) + "\n")
    picture = tmp_path / "swapped.svg"
    assert cli.main(["check", "eternity", instance, str(swapped), "--svg", str(picture)]) == 1
    red = [line for line in parsed(picture.read_text()).iter(f"{SVG}line") if line.get("stroke") == "#ff0000"]
    assert red and " meet" in capsys.readouterr().err  # the mismatched edges, drawn and named
    assert cli.main(["check", "eternity", instance, str(SEEDS / "eternity/seed_4x4.sol"), "--score"]) == 0
    assert capsys.readouterr().err == "c score 24/24\nOK\n"
    board = api.load("eternity", SEEDS / "eternity/seed_4x4.txt")
    assert api.check(board, ANSWERS["eternity"][1], score=True) == []
    assert capsys.readouterr().err == ""  # the library reports; only the CLI prints


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_terminal_and_lines_elsewhere() -> None:
    for stream, live in ((Terminal(), True), (io.StringIO(), False)):
        display = cli.ProgressDisplay(stream, interval=0.0)
        with progress.reporting(display):
            progress.line("c building tables")
            progress.update("c building tables", 0.25, "depth 3")
            progress.update("c building tables", 0.5, "depth 4")
            progress.end()
            progress.line("c built tables in 1s")
        text = stream.getvalue()
        if live:
            assert "\r" in text and "[###############...............]  50.0% depth 4" in text
            assert text.endswith("\r\x1b[Kc built tables in 1s\n")
        else:
            assert text == "c building tables\nc built tables in 1s\n"


def test_no_carriage_return_into_a_pipe(tmp_path: Path) -> None:
    env = {**os.environ, "PUZZLESAT_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "solve", "rubik", "-", "-O", "tables=small", "-O", "plain_depth=0"],
        input="R U F' D2\n",
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "c building the rubik htm small tables" in proc.stderr
    assert "c built the rubik htm small tables in" in proc.stderr
    compared = run_cli(
        "compare", "masyu", str(SEEDS / "masyu/seed_7x7.txt"), "--strategies", "cnf-lazy", "--timeout", "60"
    )
    assert compared.returncode == 0, compared.stderr
    assert "\r" not in compared.stderr and "c compare 1/1: " in compared.stderr


def test_a_puzzle_without_a_picture_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_script_puzzles", {})  # registered for this test only
    plain = api.register_puzzle(replace(api.core.get_puzzle("blacken"), name="blacken-no-picture", draw=None))
    instance = api.Instance(plain.name, api.load("blacken", SEEDS / "blacken/seed_7x7.txt").data)
    with pytest.raises(PuzzlesatError, match="blacken-no-picture has no picture"):
        api.draw(instance)
    assert instance._repr_svg_() is None
    assert Result(Status.SOLVED, puzzle=plain, instance=instance.data)._repr_svg_() is None


def test_the_library_reports_progress_and_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PUZZLESAT_CACHE", str(tmp_path))  # the small tables, built afresh
    seen: list[progress.Progress] = []
    cube = api.load("rubik", "R U F' D2")
    result = api.solve(cube, "native-ida", tables="small", plain_depth=0, on_progress=seen.append)
    assert result.status is Status.OPTIMAL and result.objective == 4
    lines = [e.text for e in seen if e.kind == progress.LINE]
    assert lines[0].startswith("c building the rubik htm small tables") and lines[-1].startswith("c built the rubik")
    fractions = [e.fraction for e in seen if e.kind == progress.UPDATE]
    assert fractions and fractions == sorted(fractions) and fractions[-1] == 1.0
    loop = api.load("masyu", SEEDS / "masyu/seed_7x7.txt")
    with pytest.raises(PuzzlesatError, match="on_progress should be a function"):
        api.solve(loop, on_progress="stderr")  # type: ignore[arg-type]
    answer = api.solve(loop, "cnf-lazy", unique=True, draw=True, url=True)
    assert answer.second_solution is not None and capsys.readouterr() == ("", "")
    notes = api.core.get_puzzle("masyu").notes
    assert notes is not None and "●" in "\n".join(notes(loop.data, answer, {"draw": True}))
