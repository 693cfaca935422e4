"""Hostile input at the parsers: the real command line answers in one line, never a traceback.

Each case writes a malformed file, runs ``python -m puzzlesat.cli`` on it in a child process
capped at 1 GiB of address space, and asserts exit code 2 (1 for an answer that ``check``
rejects), exactly one line on stderr naming the file and the line, no traceback, and a
bounded time.  The classes, as issue 15 lists them: sizes that would exhaust the machine,
digits that are not ASCII, counts that do not match, text that is not UTF-8, and numbers in
an answer that the answer's own moves contradict.  The default cases run a few at a time
(a child pays about a second of start-up); ``-m slow`` adds the exhaustive list.  The
``hypothesis`` tests feed random text to every parser directly: a PuzzlesatError or an
instance, nothing else.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlesat import api, core
from puzzlesat.core import OptionError, PuzzlesatError
from puzzlesat.domains import eternity, masyu, pegsol, rubik

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"
MEMORY_CAP = 1 << 30  # bytes of address space a child may reserve
WALL = 30.0  # seconds a refused input may take, start-up included, on a busy 2-core machine
PARSE_SECONDS = 2.0  # for one parser call on a random text

E4 = (INSTANCES / "eternity" / "seed_4x4.txt").read_text()
BLACKEN_SOL = (INSTANCES / "blacken" / "seed_7x7.sol").read_text()


@dataclass(frozen=True)
class Case:
    """One hostile command.

    Attributes:
        name: the test id.
        argv: arguments after ``puzzlesat``; ``BAD`` and ``INSTANCE`` stand for the files.
        bad: the hostile file's bytes (an instance, or the answer given to ``check``).
        expect: a fragment the one stderr line must hold.
        line: the line of the bad file the message must name, None when there is none.
        code: the exit code (2 bad input, 1 an answer ``check`` rejects).
        instance: the instance file for ``check`` cases.
    """

    name: str
    argv: tuple[str, ...]
    bad: bytes
    expect: str
    line: int | None = None
    code: int = 2
    instance: str = ""


def solve(puzzle: str, bad: str | bytes, expect: str, line: int | None, name: str) -> Case:
    """``puzzlesat solve PUZZLE BAD``."""
    data = bad.encode() if isinstance(bad, str) else bad
    return Case(f"{puzzle}-{name}", ("solve", puzzle, "BAD"), data, expect, line)


def check(puzzle: str, instance: str, answer: str, expect: str, line: int | None, name: str, code: int = 2) -> Case:
    """``puzzlesat check PUZZLE INSTANCE BAD``: a malformed (2) or contradicted (1) answer."""
    return Case(
        f"check-{puzzle}-{name}", ("check", puzzle, "INSTANCE", "BAD"), answer.encode(), expect, line, code, instance
    )


def _rect(rows: int, cols: int) -> str:
    """A full peg board with one hole, in the pegsol input format."""
    body = [" ".join("-1" if (r, c) == (0, 0) else "1" for c in range(cols)) for r in range(rows)]
    return "\n".join([f"{rows} {cols}", *body]) + "\n"


def _stones(count: int) -> str:
    """``count`` distinct white stones, one ``x,y`` a line, no header."""
    return "".join(f"{2 + i % 50},{2 + i // 50}\n" for i in range(count))


E4_LINES = E4.splitlines()
E4_ANSWER = (INSTANCES / "eternity" / "seed_4x4.sol").read_text()
M7 = (INSTANCES / "masyu" / "seed_7x7.txt").read_text()
EIGHT = "R U F D L B R2 U2"  # its inverse, 8 moves, is 10 quarter turns
EIGHT_BACK = "U2 R2 B' L' D' F' U' R'"
FACELETS = rubik.SOLVED_FACELETS

SIZES = [
    solve("eternity", "4 1000000000\n", "limit of 1000", 1, "colours-1e9"),
    solve("eternity", "4 20000\n", "limit of 1000", 1, "colours-20000"),
    solve("eternity", "1000 1000 5\n", "limit of 441", 1, "cells"),
    solve("eternity", "4 5\n" + "1 1 1 1\n" * 300_000, "limit of 1000000 characters", 125_001, "text"),
    solve("masyu", "1000 1000\nB\n0 0\nW\n0 0\n", "limit of 10000", 1, "two-line-1000x1000"),
    solve("masyu", "\nhttps://puzz.link/p?masyu/1000/1000/\n", "limit of 10000", 2, "url"),
    solve("masyu", "https://puzz.link/p?masyu/6/6/" + "0" * 5000 + "\n", "longer than a 6x6 grid", 1, "url-body"),
    solve("pegsol", _rect(12, 12), "limit of 81", 1, "12x12"),
    solve("pegsol", "1000000 1000000\n", "limit of 100", 1, "header"),
    solve("blacken", "5000 1\n3,3\n", "limit of 61", 1, "5000"),
    solve("blacken", "1000000 1\n3,3\n", "limit of 61", 1, "1000000"),
    solve("blacken", "3,3\n1000000,5\n", "limit 61", 2, "far-stone"),
    solve("blacken", _stones(151), "limit of 150", 151, "stones"),
    solve("rubik", "R U " * 2_500_000, "limit of 100000 characters", 1, "10MB-maneuver"),
    solve("rubik", "# long\n" + "R " * 20_000, "limit of 10000 moves", 2, "20000-moves"),
]
DIGITS = [
    solve("eternity", "４ 5\n", "'４'", 1, "fullwidth"),
    solve("eternity", "4 " + "9" * 5000 + "\n", "expected integers", 1, "5000-digits"),
    solve("masyu", "7 ７\nB\n0 0\nW\n0 0\n", "'rows cols'", 1, "fullwidth"),
    solve("pegsol", "3 3\n1 1 1\n1 -1 1\n1 1 １\n", "'１'", 4, "fullwidth"),
    solve("blacken", "7 1\n４,3\n", "expected 'x,y'", 2, "fullwidth"),
    solve("blacken", "7 ²\n", "expected 'k q'", 1, "superscript"),
    check("eternity", E4, E4_ANSWER.replace("0 ", "０ ", 1), "'０'", 1, "fullwidth"),
    check("pegsol", "3 3\n1 1 1\n1 -1 1\n1 1 1\n", "٣:1-1:1\n", "expected a move", 1, "arabic-indic"),
    check("rubik", EIGHT, EIGHT_BACK + "  (８f)\n", "expected a move", 1, "fullwidth"),
]
COUNTS = [
    solve("eternity", "\n".join(E4_LINES[:-1]) + "\n", "expected 16 tile lines", 16, "too-few"),
    solve("eternity", E4 + "1 2 3 4\n", "expected 16 tile lines", 18, "too-many"),
    solve("eternity", E4.replace("0 1 2 0", "0 1 2", 1), "expected 4 colours", 2, "short-tile"),
    solve("masyu", "3 3\nB\n1 1\nW\n0 0\n", "no '0 0' end", 4, "no-end"),
    solve("pegsol", "2 2\n1 1\n1\n", "expected 2 values", 3, "ragged"),
    solve("pegsol", "1 3\n1 1 -1\n-1 -1 1\n1 1 1\n", "got 3 rows", 4, "too-many"),
    solve("blacken", "7 3\n4,2\n4,3\n", "header says 3", 1, "too-few"),
    solve("blacken", "7 1\n4,2\n4,3\n", "header says 1", 3, "too-many"),
    solve("rubik", " ".join(rubik.SOLVED_SINGMASTER.split()[:19]) + "\n", "20 cubies", 1, "singmaster-19"),
    check("eternity", E4, "\n".join(E4_ANSWER.splitlines()[:15]) + "\n", "expected 16", 15, "answer-too-short"),
    solve("eternity", b"4 5\n\xff\xfe\n", "not UTF-8", None, "not-utf8"),
    solve("rubik", b"R U\n\xc3(\n", "not UTF-8", None, "not-utf8"),
]
ANSWERS = [
    solve("rubik", FACELETS[:53] + "\n", "facelet string of 54 letters", 1, "facelets-53"),
    solve("rubik", "# comment\n" + FACELETS + "U\n", "facelet string of 54 letters", 2, "facelets-55"),
    check("rubik", EIGHT, EIGHT_BACK + "  (3f)\n", "annotated (3f)", None, "htm-annotation", 1),
    check("rubik", EIGHT, EIGHT_BACK + "  (8q)\n", "annotated (8q)", None, "qtm-annotation", 1),
    check(
        "blacken",
        "7 6\n4,2\n4,3\n4,4\n2,5\n6,5\n4,6\n",
        BLACKEN_SOL.replace("is 6.", "is 7."),
        "says 7",
        None,
        "result",
        1,
    ),
]
DEFAULT = SIZES + DIGITS + COUNTS + ANSWERS

# -m slow: every class on every puzzle and every reader
SLOW = [
    solve("masyu", "200 200\nB\n0 0\nW\n0 0\n", "limit of 10000", 1, "cells"),
    solve("masyu", "2000 2\nB\n0 0\nW\n0 0\n", "out of range", 1, "side"),
    solve("pegsol", _rect(10, 9), "limit of 81", 1, "90-cells"),
    solve("blacken", "61 151\n", "limit of 150", 1, "header-stones"),
    solve("rubik", "R " * 10_001, "limit of 10000 moves", 1, "10001-moves"),
    solve("masyu", "7 7\nB\n１ 1 0 0\nW\n0 0\n", "expected integers, got '１'", 3, "fullwidth-cell"),
    solve("masyu", "https://puzz.link/p?masyu/６/6/0\n", "ASCII digits, got '６'", 1, "fullwidth-url"),
    solve("blacken", "4,2\n4,٣\n", "expected 'x,y'", 2, "arabic-indic"),
    check("masyu", M7, "１ 1\nRRDDLLUU\n", "start cell", 1, "fullwidth"),
    check("blacken", "7 1\n4,4\n", "The result is ２.\n", "The result is N.", 1, "fullwidth"),
    check("pegsol", "3 3\n1 1 1\n1 -1 1\n1 1 1\n", "0:1-" + "9" * 5000 + ":1\n", "expected a move", 1, "5000-digits"),
    solve("masyu", b"7 7\nB\n\x80\n", "not UTF-8", None, "not-utf8"),
    solve("pegsol", b"\xff", "not UTF-8", None, "not-utf8"),
    solve("blacken", b"7 1\n4,4\xe9\n", "not UTF-8", None, "not-utf8"),
    solve(
        "rubik", "U:UUUUUUUU R:RRRRRRRRR F:FFFFFFFFF D:DDDDDDDDD L:LLLLLLLLL B:BBBBBBBBB\n", "9 stickers", 1, "position"
    ),
    check("rubik", EIGHT, EIGHT_BACK + "  (9f)\n" + EIGHT_BACK + " R R'  (10f)\n", "annotated (9f)", None, "second", 1),
]


def _cap_memory() -> None:
    """In the child before exec: at most MEMORY_CAP bytes of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run(case: Case, folder: Path) -> tuple[subprocess.CompletedProcess[str], float, Path]:
    """Write the case's files into ``folder``, run the CLI on them; (process, seconds, bad path)."""
    folder.mkdir(parents=True, exist_ok=True)
    bad = folder / f"{case.name}.txt"
    bad.write_bytes(case.bad)
    files = {"BAD": str(bad)}
    if case.instance:
        files["INSTANCE"] = str(folder / f"{case.name}.instance.txt")
        Path(files["INSTANCE"]).write_text(case.instance)
    argv = [files.get(arg, arg) for arg in case.argv]
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WALL,
        preexec_fn=_cap_memory,
    )
    return proc, time.perf_counter() - start, bad


def assert_refused(case: Case, proc: subprocess.CompletedProcess[str], seconds: float, bad: Path) -> None:
    """Exit code, one stderr line naming the file (and line), no traceback, in time."""
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == case.code, (proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1, proc.stderr[-2000:]
    assert str(bad) in lines[0], lines[0]
    if case.line is not None:
        assert f"{bad}:{case.line}:" in lines[0], lines[0]
    assert case.expect in lines[0], lines[0]
    assert seconds < WALL


@pytest.fixture(scope="module")
def default_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every default case, run a few at a time (start-up dominates, so they overlap well)."""
    folder = tmp_path_factory.mktemp("hostile")
    with ThreadPoolExecutor(max_workers=max(2, min(4, 2 * (os.cpu_count() or 1)))) as pool:
        runs = dict(zip((c.name for c in DEFAULT), pool.map(lambda c: run(c, folder), DEFAULT), strict=True))
    return runs


def test_case_names_are_unique() -> None:
    names = [case.name for case in DEFAULT + SLOW]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", DEFAULT, ids=lambda c: c.name)
def test_cli_refuses(case: Case, default_runs: dict[str, Any]) -> None:
    assert_refused(case, *default_runs[case.name])


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=lambda c: c.name)
def test_cli_refuses_exhaustive(case: Case, tmp_path: Path) -> None:
    assert_refused(case, *run(case, tmp_path))


# ---------------------------------------------------------------- generator sizes


def _bounded_options() -> Iterator[tuple[str, core.Option]]:
    for puzzle in core.available_puzzles():
        for opt in puzzle.generator_options:
            if opt.high is not None:
                yield puzzle.name, opt


@pytest.mark.parametrize("puzzle, opt", list(_bounded_options()), ids=lambda x: getattr(x, "name", x))
def test_generator_sizes_are_bounded(puzzle: str, opt: core.Option) -> None:
    assert opt.high is not None
    assert opt.convert(str(int(opt.high))) == opt.high
    with pytest.raises(OptionError, match=f"at most {int(opt.high)}"):
        opt.convert(str(int(opt.high) + 1))
    with pytest.raises(OptionError):
        api.generate(puzzle, **{opt.name: 1_000_000_000})


def test_every_size_option_has_a_bound() -> None:
    sizes = {"size", "rows", "cols", "whites", "moves"}
    unbounded = [(p, o.name) for p, o in ((p.name, o) for p in core.available_puzzles() for o in p.generator_options)]
    unbounded = [(p, name) for p, name in unbounded if name in sizes]
    bounded = {(p, o.name) for p, o in _bounded_options()}
    assert [item for item in unbounded if item not in bounded] == []


@pytest.mark.parametrize(
    "puzzle, flag",
    [("eternity", "--size"), ("masyu", "--size"), ("pegsol", "--rows"), ("blacken", "--size"), ("rubik", "--moves")],
)
def test_cli_generate_refuses_huge_sizes(puzzle: str, flag: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlesat.cli", "generate", puzzle, flag, "1000000000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WALL,
        preexec_fn=_cap_memory,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{flag}: " in lines[0] and "expected at most" in lines[0], proc.stderr


def test_public_instances_fit_the_limits(shared_instances: Path) -> None:
    readers = {"eternity": eternity.parse, "masyu": masyu.parse_any, "pegsol": pegsol.parse, "rubik": rubik.parse}
    count = 0
    for puzzle, parse in readers.items():
        for path in sorted((shared_instances / puzzle).rglob("*")):
            if path.suffix not in (".txt", ".in") or path.name in ("SOURCES.txt", "INDEX.txt"):
                continue
            if path.name == "e2_16x16_hints.txt":  # placement hints for e2_16x16.txt, not an instance
                continue
            parse(path.read_text(), str(path))
            count += 1
    assert count > 100


# ---------------------------------------------------------------- random text, parsers called directly

JUNK = ["0 0", "B", "W", "x", ",", "-1", "+1", "#", ":", "３", "²", "٣", "9" * 30, "1" * 5000, "\n", " ", "\x00"]
TOKENS = st.one_of(
    st.integers(-3, 70).map(str),
    st.sampled_from(JUNK),
    st.sampled_from(["R", "U2", "F'", "(3f)", "(4q)", "UF", "URF", "U:UUUUUUUUU", FACELETS, FACELETS[:53]]),
    st.sampled_from(["x: 3 y: 4", "The result is 2.", "3:1-3:3", "4,4", "RRDDLLUU", "masyu/6/6/0"]),
)
LINES = st.lists(st.lists(TOKENS, max_size=8).map(" ".join), max_size=12).map("\n".join)
CHARS = st.text(alphabet="0123456789 \n\t-+,:;#()'BWURFDLBxyq３²٣é\x00", max_size=400)
TEXT = st.one_of(LINES, CHARS, st.text(max_size=200))

# per puzzle: its reader, a solved instance, and real texts to mutate (instances, answers)
FILES = {
    "eternity": ("seed_4x4.txt", ["seed_4x4.txt", "peak_5x5_b3_m6_s0.txt"], ["seed_4x4.sol"]),
    "masyu": ("seed_7x7.txt", ["seed_7x7.txt", "gen_10x10_s1.txt"], ["seed_7x7.sol"]),
    "pegsol": ("english33_center.txt", ["english33_center.txt", "english33_center_goal.txt"], []),
    "blacken": ("seed_7x7.txt", ["seed_7x7.txt", "lattice_10x10.txt"], ["seed_7x7.sol"]),
    "rubik": ("scramble_8_seed1.txt", ["scramble_8_seed1.txt", "superflip.txt", "seed_position.txt"], []),
}
EXTRA_ANSWERS = {"pegsol": ["3:1-3:3\n1:2-3:2\n"], "rubik": [EIGHT_BACK + "  (8f)\n" + EIGHT_BACK + "  (10q)\n"]}


def _texts(puzzle: str, names: list[str]) -> list[str]:
    return [(INSTANCES / puzzle / name).read_text() for name in names]


@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> str:
    """A real file with a few characters replaced, inserted or deleted, or a line doubled."""
    chars = list(draw(st.sampled_from(texts)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(chars)))
        edit = draw(st.sampled_from(["replace", "insert", "delete", "double"]))
        if edit == "insert" or (edit == "replace" and at == len(chars)):
            chars.insert(at, draw(st.sampled_from(JUNK)))
        elif edit == "replace":
            chars[at] = draw(st.sampled_from(JUNK))
        elif edit == "delete":
            del chars[at : at + draw(st.integers(1, 30))]
        else:
            end = "".join(chars).find("\n", at)
            line = "".join(chars)[at : end + 1] if end >= 0 else ""
            chars[at:at] = list(line)
    return "".join(chars)


def _reader(puzzle: str, answers: bool) -> tuple[Any, st.SearchStrategy[str]]:
    """The call under test (parse, or parse_solution then verify) and the texts to feed it."""
    target = core.get_puzzle(puzzle)
    solved, instances, sols = FILES[puzzle]
    if not answers:
        return (lambda text: target.parse(text, "fuzz.txt")), st.one_of(TEXT, mutated(_texts(puzzle, instances)))
    instance = target.parse((INSTANCES / puzzle / solved).read_text(), solved)

    def check(text: str) -> None:
        solution = target.parse_solution(instance, text, "fuzz.txt")
        if solution is not None:
            assert isinstance(target.verify(instance, solution), list)

    return check, st.one_of(TEXT, mutated(_texts(puzzle, sols) + EXTRA_ANSWERS.get(puzzle, [])))


def _only_puzzlesat_errors(puzzle: str, answers: bool, data: st.DataObject) -> None:
    """The reader returns, or raises a PuzzlesatError naming the source, quickly."""
    call, texts = _reader(puzzle, answers)
    text = data.draw(texts)
    start = time.perf_counter()
    try:
        call(text)
    except PuzzlesatError as exc:
        assert str(exc).startswith("fuzz.txt"), str(exc)
    assert time.perf_counter() - start < PARSE_SECONDS


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
READERS = [(puzzle, answers) for puzzle in FILES for answers in (False, True)]


def _reader_id(value: Any) -> str:
    return ("answer" if value else "instance") if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("puzzle, answers", READERS, ids=_reader_id)
@FAST
@given(data=st.data())
def test_readers_on_random_text(puzzle: str, answers: bool, data: st.DataObject) -> None:
    _only_puzzlesat_errors(puzzle, answers, data)


@pytest.mark.slow
@pytest.mark.parametrize("puzzle, answers", READERS, ids=_reader_id)
@THOROUGH
@given(data=st.data())
def test_readers_on_random_text_thorough(puzzle: str, answers: bool, data: st.DataObject) -> None:
    _only_puzzlesat_errors(puzzle, answers, data)


def test_read_text_names_the_line_of_a_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"4 5\n0 1 2 0\n0 0 \xff 1\n")
    with pytest.raises(core.ParseError, match=r"bad.txt:3: not UTF-8 text \(byte 0xff at column 5\)"):
        core.read_text(path, str(path))
    with pytest.raises(core.ParseError, match="larger than the limit of 8 bytes"):
        core.read_text(path, str(path), limit=8)
    path.write_bytes("4 ５\n".encode())
    assert core.read_text(path, str(path)) == "4 ５\n"
