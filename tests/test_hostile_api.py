"""Hostile input at the Python API: every verb answers or raises a typed puzzlesat error.

Each verb is called with arguments drawn from valid values and hostile ones (wrong types,
out-of-range numbers, nan and inf, text for numbers, missing folders, files of other kinds).
The call must return or raise a :class:`~puzzlesat.PuzzlesatError` whose message is one line;
an argument of the wrong type is also a TypeError, a wrong value a ValueError.  The verbs
that start processes (race, compare, catalog) get at least one bad argument, refused before
any process starts.  Instances are tiny and time limits short, so the default run stays quick.
"""

from __future__ import annotations

import io
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import puzzlesat as ps
from puzzlesat.core import arguments

ROOT = Path(__file__).resolve().parents[1]
E4 = ROOT / "instances" / "eternity" / "seed_4x4.txt"
E4_SOL = ROOT / "instances" / "eternity" / "seed_4x4.sol"
SECONDS = 30.0  # a refused call, or a solve of the tiny instance, on a busy machine

BOARD = ps.load("eternity", E4)

JUNK: list[Any] = [
    None,
    True,
    0,
    -1,
    2**70,
    10**400,  # no float holds it
    -(10**4000),
    0.0,
    -0.5,
    math.nan,
    math.inf,
    -math.inf,
    1e300,
    "",
    "x",
    "10",
    "-1",
    "nan",
    "\x00",
    "３",
    b"bytes",
    [],
    [1, 2],
    {},
    {"a": 1},
    object(),
    Path("/nonexistent-folder/x.txt"),
    Path("/tmp"),
    Path("/dev/full"),
    Path("/dev/zero"),
    Path("nul\x00.txt"),
    "nul\x00.txt",
    BOARD.data,
    io.StringIO("4 5\n"),
    io.BytesIO(b"4 5\n\xff"),
    ps.Result(ps.Status.SOLVED, solution=42),
    ps.Result(ps.Status.UNKNOWN),
]
junk = st.sampled_from(JUNK)
# and drawn at random: any int or float, short text (never used where a file is written)
NUMBERS_AND_TEXT = st.one_of(st.integers(), st.floats(), st.text(max_size=12))
# what a sidecar's entries may be replaced with: every JSON type, and values of the right type
# that are wrong (another puzzle, a strategy without an encoding, an option it does not know)
JSON_JUNK: list[Any] = [None, True, -1, 0, 2**70, 1.5, "", "x", [], [1], {}, {"1": ["x", 0]}, "masyu", "native-rowscan"]
JSON_JUNK += ["cpsat-table", "cnf-heule:nosuch", {"amoo": 1}, {"amo": "maybe"}, "4 5\n0 0 0 0\n"]


def _typed_error(exc: BaseException) -> None:
    """A puzzlesat error on one line; an argument's error is a TypeError or a ValueError."""
    assert isinstance(exc, ps.PuzzlesatError), repr(exc)
    text = str(exc)
    assert text and "\n" not in text, text
    if isinstance(exc, ps.ArgumentTypeError):
        assert isinstance(exc, TypeError)
    if isinstance(exc, ps.ArgumentError | ps.OptionError | ps.BackendUnavailable | ps.ParseError):
        assert isinstance(exc, ValueError)


def answers_or_refuses(call: Any) -> Any:
    """Run ``call``: its value, or None after a typed error; anything else fails the test."""
    start = time.perf_counter()
    try:
        return call()
    except ps.PuzzlesatError as exc:
        _typed_error(exc)
        return None
    finally:
        assert time.perf_counter() - start < SECONDS


QUICK = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def either(*valid: Any) -> st.SearchStrategy[Any]:
    """A valid value (half the time) or a hostile one."""
    return st.one_of(st.sampled_from(valid), st.one_of(junk, NUMBERS_AND_TEXT))


TIMEOUTS = either(None, 0.5, 5, 1e10)
STRATEGIES = either(None, "native-rowscan", "cnf-heule", "cnf-heule:glucose4", "nosuch", "cnf-heule:x")


@QUICK
@given(puzzle=either("eternity", "masyu", "nope"), source=either(str(E4), E4, E4.read_text(), "4 5\n"))
def test_load(puzzle: Any, source: Any) -> None:
    if isinstance(source, io.IOBase):
        source.seek(0)
    loaded = answers_or_refuses(lambda: ps.load(puzzle, source))
    assert loaded is None or isinstance(loaded, ps.Instance)


@QUICK
@given(
    instance=either(BOARD),
    strategy=STRATEGIES,
    timeout=TIMEOUTS,
    seed=either(0, 7, 2**31 - 1),
    workers=either(1, None),
    options=st.dictionaries(st.sampled_from(["amo", "symmetry", "nope"]), either(True, False, "0"), max_size=2),
)
def test_solve(instance: Any, strategy: Any, timeout: Any, seed: Any, workers: Any, options: dict[str, Any]) -> None:
    result = answers_or_refuses(
        lambda: ps.solve(instance, strategy, timeout=timeout, seed=seed, workers=workers, **options)
    )
    if result is not None:
        assert result.status in (ps.Status.SOLVED, ps.Status.UNKNOWN), result
        assert ps.check(BOARD, result) == [] or result.solution is None


SOLUTION = ps.solve(BOARD, "native-rowscan")


@QUICK
@given(instance=either(BOARD), answer=either(SOLUTION, SOLUTION.solution, E4_SOL.read_text(), "0 0\n"))
def test_format_and_check(instance: Any, answer: Any) -> None:
    text = answers_or_refuses(lambda: ps.format(instance, answer))
    assert text is None or isinstance(text, str)
    problems = answers_or_refuses(lambda: ps.check(instance, answer))
    assert problems is None or isinstance(problems, list)
    picture = answers_or_refuses(lambda: ps.draw(instance, answer))
    assert picture is None or picture.startswith("<svg")


@QUICK
@given(data=st.data())
def test_export_and_decode(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("export")
    valid = st.sampled_from([folder / "p.cnf", str(folder / "q.cnf"), folder / "none" / "p.cnf"])
    target = data.draw(st.one_of(valid, junk.filter(_writes_nowhere)))
    strategy = data.draw(either("cnf-heule", "cpsat-table", "native-rowscan"))
    fmt = data.draw(either("dimacs", "wcnf", "cpsat"))
    done = answers_or_refuses(lambda: ps.export(BOARD, strategy, target, fmt, timeout=data.draw(TIMEOUTS)))
    sidecar = done.sidecar if done is not None and done.sidecar is not None else folder / "missing.json"
    answer = data.draw(either("s SATISFIABLE\nv 1 0\n", "s UNSATISFIABLE\n", "s UNKNOWN\n", "v 1\n"))
    decoded = answers_or_refuses(lambda: ps.decode(data.draw(either(sidecar)), answer, data.draw(either(None))))
    assert decoded is None or decoded.satisfiable is not True or ps.check(decoded.instance, decoded.solution) == []


def _writes_nowhere(value: Any) -> bool:
    """A junk value that names no file in the working folder (the tests write only to tmp)."""
    return not isinstance(value, str | Path) or str(value).startswith("/") or "\x00" in str(value) or not str(value)


@FEW
@given(data=st.data())
def test_corrupt_sidecars(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("sidecar")
    done = ps.export(BOARD, "cnf-heule", folder / "p.cnf")
    assert done.sidecar is not None
    entries = json.loads(done.sidecar.read_text())
    key = data.draw(st.sampled_from(sorted(entries)))
    entries[key] = data.draw(st.sampled_from(JSON_JUNK))
    done.sidecar.write_text(json.dumps(entries))
    answer = "s SATISFIABLE\nv " + " ".join(str(v) for v in range(1, 40)) + " 0\n"
    try:
        ps.decode(done.sidecar, answer)
    except ps.PuzzlesatError as exc:
        _typed_error(exc)
        assert str(done.sidecar) in str(exc) or "<text>" in str(exc), str(exc)


@QUICK
@given(
    puzzle=either("eternity", "rubik", "pegsol"), seed=either(0, 3), size=either(None, 2, 5), moves=either(None, 0, 4)
)
def test_generate(puzzle: Any, seed: Any, size: Any, moves: Any) -> None:
    params = {"moves": moves} if puzzle == "rubik" else {"rows": size} if puzzle == "pegsol" else {"size": size}
    params = {k: v for k, v in params.items() if v is not None}
    made = answers_or_refuses(lambda: ps.generate(puzzle, seed, **params))
    assert made is None or isinstance(made, ps.Instance)


# -- the verbs that start processes: one bad argument at least, refused before any starts

BAD_LIMITS = [
    ("timeout", 0),
    ("timeout", -1),
    ("timeout", math.nan),
    ("timeout", math.inf),
    ("timeout", "10"),
    ("seed", -1),
    ("seed", "x"),
    ("seed", 2**31),
    ("jobs", 0),
    ("jobs", -3),
    ("jobs", arguments.CORES + 1),
    ("jobs", 1.5),
    ("memory_limit", 1),
    ("memory_limit", "512"),
    ("memory_limit", 99999999999999),  # in bytes, past the kernel's limit
    ("timeout", 10**400),
    ("stream", 5),
]


def _refused(call: Any) -> None:
    start = time.perf_counter()
    with pytest.raises(ps.PuzzlesatError) as caught:
        call()
    _typed_error(caught.value)
    assert isinstance(caught.value, TypeError | ValueError)
    assert time.perf_counter() - start < 5.0  # refused at the edge: no process was started


@FEW
@given(bad=st.lists(st.sampled_from(BAD_LIMITS), min_size=1, max_size=3, unique_by=lambda kv: kv[0]))
def test_race_refuses_bad_limits(bad: list[tuple[str, Any]]) -> None:
    _refused(lambda: ps.race(BOARD, ["native-rowscan"], **dict(bad)))


@FEW
@given(
    bad=st.lists(
        st.sampled_from([*BAD_LIMITS, ("workers", 0), ("workers", "2"), ("backend", "x"), ("results", 5)]),
        min_size=1,
        max_size=3,
        unique_by=lambda kv: kv[0],
    )
)
def test_compare_refuses_bad_arguments(bad: list[tuple[str, Any]]) -> None:
    kwargs: dict[str, Any] = {"timeout": 5.0, **dict(bad)}
    _refused(lambda: ps.compare("eternity", [BOARD], ["native-rowscan"], **kwargs))


@FEW
@given(
    bad=st.lists(
        st.sampled_from([*BAD_LIMITS, ("rows", 0), ("rows", "3"), ("board", "hex"), ("board", 5)]),
        min_size=1,
        max_size=3,
        unique_by=lambda kv: kv[0],
    )
)
def test_catalog_refuses_bad_arguments(bad: list[tuple[str, Any]]) -> None:
    kwargs: dict[str, Any] = {"board": "rect", "rows": 1, "cols": 3, **dict(bad)}
    board = kwargs.pop("board")
    _refused(lambda: ps.catalog("pegsol", board, **kwargs))


@pytest.mark.parametrize(
    "call",
    [
        lambda: ps.compare("eternity", str(E4), timeout=5),
        lambda: ps.compare("eternity", [E4], "native-rowscan", timeout=5, results=E4),
        lambda: ps.compare("eternity", [5], timeout=5),
        lambda: ps.compare("eternity", [ps.load("pegsol", ROOT / "instances/pegsol/rect3x3_center.txt")], timeout=5),
        lambda: ps.compare("eternity", [BOARD], ["native-rowscan", 5], timeout=5),
        lambda: ps.race(BOARD, 5, timeout=5),
        lambda: ps.catalog("eternity"),
        lambda: ps.Comparison("eternity", []).plot("/tmp/cactus.xyz"),
        lambda: ps.Comparison("eternity", []).table("html"),
        lambda: ps.Catalog("pegsol", "rect", []).table(None),
        lambda: ps.api.build_kernels("eternity"),
        lambda: ps.api.build_kernels(["eternity", 3]),
        lambda: ps.api.build_kernels(["nope"]),
    ],
    ids=[
        "instances-as-str",
        "results-over-an-instance",
        "instance-of-type-int",
        "instance-of-another-puzzle",
        "strategy-of-type-int",
        "race-strategies-int",
        "catalog-for-eternity",
        "plot-format",
        "table-format",
        "catalog-table-format",
        "kernels-as-str",
        "kernel-of-type-int",
        "kernel-unknown",
    ],
)
def test_refused_at_the_edge(call: Any) -> None:
    _refused(call)


def test_any_finite_timeout_is_a_limit() -> None:
    assert ps.solve(BOARD, "native-rowscan", timeout=1e300).status is ps.Status.SOLVED
    assert arguments.timeout(1e300) == arguments.MAX_TIMEOUT
    with pytest.raises(ps.OptionError, match="finite"):
        ps.solve(BOARD, timeout=math.inf)


def test_an_instance_holding_other_data_is_refused() -> None:
    with pytest.raises(ps.ArgumentTypeError, match="not a eternity instance|not a .* instance"):
        ps.solve(ps.Instance("eternity", "4 5\n"))
    with pytest.raises(ps.ArgumentTypeError, match="instance"):
        ps.format(ps.Instance("masyu", BOARD.data), None)


def _closed_file() -> Any:
    handle = E4.open()
    handle.close()
    return handle


@pytest.mark.parametrize(
    ("call", "error", "names"),
    [
        (lambda: ps.load("eternity", 123), TypeError, "source"),
        (lambda: ps.load(123, E4), TypeError, "puzzle"),
        (lambda: ps.load("eternity", _closed_file()), ValueError, "seed_4x4.txt"),
        (lambda: ps.load("eternity", "/nonexistent-folder/x.txt"), ValueError, "/nonexistent-folder/x.txt"),
        (lambda: ps.solve(None), TypeError, "instance"),
        (lambda: ps.solve(BOARD, 42), TypeError, "strategy"),
        (lambda: ps.solve(BOARD, timeout=-1), ValueError, "timeout"),
        (lambda: ps.solve(BOARD, timeout="10"), TypeError, "timeout"),
        (lambda: ps.solve(BOARD, seed="x"), TypeError, "seed"),
        (lambda: ps.solve(BOARD, workers=0), ValueError, "workers"),
        (lambda: ps.format(BOARD, 42), TypeError, "answer"),
        (lambda: ps.format(BOARD, ps.Result(ps.Status.SOLVED, solution=42)), TypeError, "answer.solution"),
        (lambda: ps.check(BOARD, 123), TypeError, "answer"),
        (lambda: ps.check(BOARD, "0 0\n", source=5), TypeError, "source"),
        (lambda: ps.export(BOARD, None, "/tmp/p.cnf"), TypeError, "strategy"),
        (lambda: ps.export(BOARD, "cnf-heule", None), TypeError, "path"),
        (lambda: ps.export(BOARD, "cnf-heule", "/nonexistent-folder/p.cnf"), ValueError, "no folder"),
        (lambda: ps.export(BOARD, "cnf-heule", "/tmp/p.cnf", "xml"), ValueError, "format"),
        (lambda: ps.decode("/tmp/p.cnf.json", 42), TypeError, "answer"),
        (lambda: ps.decode(42, "s UNKNOWN\n"), TypeError, "sidecar"),
        (lambda: ps.compare("eternity", [BOARD], timeout=5, jobs=0), ValueError, "jobs"),
        (lambda: ps.race(BOARD, timeout=0), ValueError, "timeout"),
        (lambda: ps.catalog("pegsol", jobs=0), ValueError, "jobs"),
        (lambda: ps.generate("eternity", seed=-1), ValueError, "seed"),
        (lambda: ps.generate("eternity", size=1), ValueError, "size"),
        (lambda: ps.strategies(None), TypeError, "puzzle"),
        (lambda: ps.solve(BOARD, on_progress=5), TypeError, "on_progress"),
        (lambda: ps.solve(BOARD, certify=5), TypeError, "certify"),
        (lambda: ps.draw(BOARD, 42), TypeError, "answer"),
        (lambda: ps.draw(None), TypeError, "instance"),
        # issue 51
        (lambda: ps.solve(BOARD, timeout=10**400), ValueError, "timeout"),
        (lambda: ps.race(BOARD, timeout=5, memory_limit=99999999999999), ValueError, "memory_limit"),
        (lambda: ps.solve(BOARD, certify="/proc/self"), ValueError, "certify /proc/self"),
        (lambda: ps.solve(BOARD, certify=E4), ValueError, "not a folder"),
        (lambda: ps.load("eternity", Path("/dev/zero")), ValueError, "/dev/zero: cannot read: is a character device"),
        (lambda: ps.export(BOARD, "cnf-heule", "/dev/full"), ValueError, "/dev/full: cannot write: is a character"),
        (lambda: ps.Comparison("eternity", []).plot("/dev/full"), ValueError, "/dev/full"),
        (lambda: ps.solve(BOARD, "native-rowscan", score=True, checkpoint="/dev/full"), ValueError, "/dev/full"),
        (lambda: ps.compare("eternity", [BOARD], timeout=5, results="/dev/zero"), ValueError, "/dev/zero"),
        (lambda: ps.decode("/tmp/p.cnf.json", "s UNSATISFIABLE\n", proof="/dev/zero"), ValueError, "proof /dev/zero"),
    ],
)
def test_the_issue_cases(call: Any, error: type, names: str) -> None:
    _refused_naming(call, error, names)


@pytest.mark.parametrize(
    ("call", "error", "names"),
    [
        (lambda: ps.solve(BOARD, backend="slurm"), ValueError, "backend"),
        (lambda: ps.solve(BOARD, backend=None), TypeError, "backend"),
        (lambda: ps.solve(BOARD, backend="ray", address=""), ValueError, "address"),
        (lambda: ps.race(BOARD, timeout=5, address=5), TypeError, "address"),
        (lambda: ps.compare("eternity", [BOARD], timeout=5, backend=["local"]), TypeError, "backend"),
        (lambda: ps.Comparison("eternity", []).table(5), TypeError, "format"),
        (lambda: ps.Catalog("pegsol", "rect", []).table(""), ValueError, "format"),
        (lambda: ps.catalog("pegsol", "hex"), ValueError, "board"),
        (lambda: ps.catalog("pegsol", None), TypeError, "board"),
        (lambda: ps.export(BOARD, "cnf-heule", "/tmp/p.cnf", 5), TypeError, "format"),
        (lambda: ps.api.build_tables("rubik", metric="ftm"), ValueError, "metric"),
        (lambda: ps.api.build_tables("rubik", 5), TypeError, "name"),
        (lambda: ps.Instance(5, BOARD.data), TypeError, "puzzle"),
    ],
)
def test_the_flags_declarations_check_the_api_too(call: Any, error: type, names: str) -> None:
    """compare's, catalog's, export's and the backends' choices: the declarations the CLI reads its flags by."""
    _refused_naming(call, error, names)


def _refused_naming(call: Any, error: type, names: str) -> None:
    with pytest.raises(ps.PuzzlesatError) as caught:
        call()
    assert isinstance(caught.value, error), repr(caught.value)
    assert names in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_solvers_own_ctrl_c_error_is_keyboardinterrupt() -> None:
    """pysat's solvers catch SIGINT and raise their own error: the library raises KeyboardInterrupt."""
    from puzzlesat.core import interrupts

    pysat_error = type("error", (Exception,), {"__module__": "pysolvers"})
    with pytest.raises(KeyboardInterrupt), interrupts.solver_interrupts():
        raise pysat_error("Caught keyboard interrupt")
    with pytest.raises(pysat_error), interrupts.solver_interrupts():  # any other failure stays itself
        raise pysat_error("out of memory")
