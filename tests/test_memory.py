"""The memory helpers the table-bound kernels use: prefetch, huge-page copies, compare-and-swap."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from numba import njit, prange

from puzzlesat.native.memory import HUGE_PAGE, compare_and_swap, huge_page_copy, huge_pages_available, prefetch


@njit(cache=True)
def _gather(table: np.ndarray, index: np.ndarray) -> int:
    total = 0
    for i in range(index.shape[0]):
        if i + 4 < index.shape[0]:
            prefetch(table, index[i + 4])
        total += table[index[i]]
    return total


def test_prefetch_changes_no_result() -> None:
    table = np.arange(1 << 20, dtype=np.uint32)
    index = np.random.default_rng(1).integers(0, table.size, 10_000)
    assert _gather(table, index) == int(table[index].astype(np.int64).sum())


@njit(cache=True, parallel=True)
def _count_into(counters: np.ndarray, hits: np.ndarray) -> None:
    """Add one to ``counters[hits[i]]`` for every i, from several threads at once."""
    for i in prange(hits.shape[0]):
        j = hits[i]
        while True:
            old = counters[j]
            if compare_and_swap(counters, j, old, (old + 1) & 255):
                break


def test_compare_and_swap_loses_no_update_between_threads() -> None:
    hits = np.random.default_rng(2).integers(0, 8, 200_000)  # 8 bytes: the threads collide often
    counters = np.zeros(8, np.uint8)
    _count_into(counters, hits)
    assert counters.tolist() == (np.bincount(hits, minlength=8) % 256).tolist()


@njit(cache=True)
def _swap_twice(cell: np.ndarray) -> tuple[bool, bool]:
    return compare_and_swap(cell, 0, 0, 7), compare_and_swap(cell, 0, 0, 9)


def test_compare_and_swap_writes_only_over_the_expected_value() -> None:
    cell = np.zeros(1, np.uint8)
    assert _swap_twice(cell) == (True, False)
    assert cell[0] == 7


def test_huge_page_copy_is_an_equal_private_aligned_copy() -> None:
    array = np.random.default_rng(2).integers(0, 255, (3, HUGE_PAGE // 2 + 7), dtype=np.uint8)
    copy = huge_page_copy(array)
    assert copy.shape == array.shape and copy.dtype == array.dtype
    assert np.array_equal(copy, array)
    if not huge_pages_available():
        pytest.skip("no transparent huge pages here: the array is returned as it is")
    assert not np.shares_memory(copy, array)
    assert copy.ctypes.data % HUGE_PAGE == 0


def test_a_mapped_file_is_read_into_the_copy(tmp_path) -> None:  # noqa: ANN001
    array = np.random.default_rng(4).integers(0, 1 << 30, (5, HUGE_PAGE // 8 + 3), dtype=np.int32)
    np.save(tmp_path / "a.npy", array)
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    assert np.array_equal(huge_page_copy(mapped), array)
    # a slice of the mapping is not the whole file: copied from memory, still equal
    part = mapped[1:]
    assert np.array_equal(huge_page_copy(part), array[1:])


@njit(cache=False)
def _first(table: np.ndarray) -> int:
    return int(table[0, 0])


def test_a_copy_of_a_read_only_table_runs_the_kernel_compiled_for_it(tmp_path) -> None:  # noqa: ANN001
    """The copy is read-only when its source is: a kernel compiled for the mapped table runs
    on the copy with no second compilation (numba types a read-only array apart)."""
    if not huge_pages_available():
        pytest.skip("no transparent huge pages here: the array is returned as it is")
    array = np.arange(2 * HUGE_PAGE, dtype=np.uint8).reshape(2, -1)
    np.save(tmp_path / "a.npy", array)
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    copy = huge_page_copy(mapped)
    assert not np.shares_memory(copy, mapped) and not copy.flags.writeable
    assert huge_page_copy(array).flags.writeable
    assert _first(mapped) == _first(copy) == 0
    assert len(_first.signatures) == 1, _first.signatures


def test_small_arrays_are_not_copied() -> None:
    array = np.zeros(1000, np.int64)
    assert huge_page_copy(array) is array


def test_huge_page_copy_falls_back_when_memory_is_capped() -> None:
    if not huge_pages_available():
        pytest.skip("no transparent huge pages here: nothing is copied anyway")
    # cap the data segment 100 MB above what the process holds: the 256 MB copy cannot fit
    script = (
        "import resource, numpy as np\n"
        "from puzzlesat.native.memory import huge_page_copy\n"
        "a = np.ones(256 << 20, np.uint8)\n"
        "held = next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmData'))\n"
        "cap = (held << 10) + (100 << 20)\n"
        "resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))\n"
        "print(huge_page_copy(a) is a)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
