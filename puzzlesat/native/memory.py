"""Memory helpers for table-bound kernels: software prefetch, huge-page copies, and a
compare-and-swap for tables that several threads fill at once.

A search that reads a 1 GB table at random waits on memory, not on arithmetic.  Two
remedies, both measured on the Rubik phase-1 search (docs/rubik.md):

- :func:`prefetch` asks the CPU to start loading a table entry that a later loop reads.
  Unlike a load, it retires at once, so many misses are in flight together.
- :func:`huge_page_copy` moves a table into memory backed by 2 MB pages (Linux transparent
  huge pages).  With 4 KB pages almost every random read also misses the TLB and walks the
  page tables, which costs about as much again on a virtual machine.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable
from pathlib import Path
from typing import cast

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

HUGE_PAGE = 2 << 20
READ_BLOCK = 64 << 20  # bytes per read when filling a huge-page copy from its file
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")


@intrinsic
def _prefetch(typingctx, array, index):  # noqa: ANN001, ANN201, ARG001
    """Start loading ``array[index]`` (a 1-D array, no bounds check) into the cache."""

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202
        arraytype = signature.args[0]
        ary = context.make_array(arraytype)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arraytype, ary, [args[1]], wraparound=False)
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", [byte_ptr], ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        )
        # read, keep in every cache level, data cache
        builder.call(
            fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)]
        )
        return context.get_dummy_value()

    return types.void(array, index), codegen


prefetch = cast("Callable[[np.ndarray, int], None]", _prefetch)  # what callers see: no typing context


@intrinsic
def _compare_and_swap(typingctx, array, index, expected, desired):  # noqa: ANN001, ANN201, ARG001
    """Atomically set ``array[index]`` (a 1-D array of bytes) to ``desired`` if it still holds
    ``expected``; whether it did."""

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202
        arraytype = signature.args[0]
        ary = context.make_array(arraytype)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arraytype, ary, [args[1]], wraparound=False)
        byte = ir.IntType(8)
        old = builder.trunc(args[2], byte)
        new = builder.trunc(args[3], byte)
        pair = builder.cmpxchg(ptr, old, new, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return types.boolean(array, index, types.int64, types.int64), codegen


# what callers see: no typing context
compare_and_swap = cast("Callable[[np.ndarray, int, int, int], bool]", _compare_and_swap)


@njit(cache=True, inline="always")
def claim_nibble(table: np.ndarray, i: int, empty: int, value: int) -> bool:
    """Set 4-bit entry ``i`` of a byte array to ``value`` if it holds ``empty``, atomically
    (other threads may write the other half of its byte); whether it did."""
    at = i >> 1
    shift = (i & 1) << 2
    while True:
        old = table[at]
        if (old >> shift) & 15 != empty:
            return False
        if compare_and_swap(table, at, old, (old & ~(15 << shift)) | (value << shift)):
            return True


def huge_pages_available() -> bool:
    """Whether this kernel grants transparent huge pages to memory that asks for them."""
    try:
        setting = THP_SETTING.read_text()
    except OSError:
        return False
    return hasattr(mmap, "MADV_HUGEPAGE") and ("[always]" in setting or "[madvise]" in setting)


def huge_page_copy(array: np.ndarray) -> np.ndarray:
    """A private copy of ``array`` in memory advised for huge pages, or ``array`` itself
    when the system has none or the memory cannot be had (e.g. under ``RLIMIT_DATA``).
    An array mapped from a whole file is read from the file (no page faults on the mapping).
    The copy is shared with processes forked after it (copy-on-write), not with others; it is
    read-only when ``array`` is."""
    if not huge_pages_available() or array.nbytes < HUGE_PAGE:
        return array
    size = array.nbytes + 2 * HUGE_PAGE
    try:
        block = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError:
        return array
    block.madvise(mmap.MADV_HUGEPAGE)
    raw = np.frombuffer(block, np.uint8)  # keeps the mapping alive
    start = -raw.ctypes.data % HUGE_PAGE
    out = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    source = _whole_file(array)
    if not (source and _read_into(out, *source)):
        out[...] = array
    # read-only like its source: numba types a read-only array apart, and a kernel compiled for
    # the mapped tables would compile again for a writable copy (minutes on a cold cache)
    out.flags.writeable = array.flags.writeable
    return out


def _whole_file(array: np.ndarray) -> tuple[str, int] | None:
    """The file and offset that ``array`` maps, if it maps the whole rest of the file (not a
    slice of it); else None."""
    if not isinstance(array, np.memmap) or not array.filename or not array.flags.c_contiguous:
        return None
    try:
        whole = os.path.getsize(array.filename) - array.offset == array.nbytes
    except OSError:
        return None
    return (str(array.filename), int(array.offset)) if whole else None


def _read_into(out: np.ndarray, filename: str, offset: int) -> bool:
    """Fill ``out`` with the bytes of a file from ``offset`` on: the kernel copies from its page
    cache, without the page faults of reading through a mapping.  False if the read fails."""
    view = memoryview(out.reshape(-1).view(np.uint8).data)
    try:
        with open(filename, "rb", buffering=0) as fh:
            fh.seek(offset)
            done = 0
            while done < len(view):
                got = fh.readinto(view[done : done + READ_BLOCK])
                if not got:
                    return False
                done += got
    except OSError:
        return False
    return True
