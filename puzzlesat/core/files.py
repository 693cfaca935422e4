"""Files a user names: only a regular file (or a new name) is read, written or replaced.

A device, a FIFO, a socket or a folder given where a file is meant is refused, as coreutils
refuses to clobber what is not a regular file: an atomic write renames over its target, and
``/dev/full`` would become a regular file; reading ``/dev/zero`` never ends and a FIFO with
no writer never answers.  :func:`special` says what such a path is; the checks of arguments
(:func:`puzzlesat.core.arguments.writable`), the readers (:func:`puzzlesat.core.text.read_text`)
and :func:`write_atomic` all ask it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def special(path: str | os.PathLike[str]) -> str | None:
    """What the path names when that is not a regular file (``"a FIFO"``), else None
    (a regular file, a link to one, or no file yet).  Never opens it, so never blocks.

    >>> special("/dev/null"), special("/"), special("/no/such/file")
    ('a character device', 'a folder', None)
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # no such file yet, or a name no file can have
        return None
    return next((what for test, what in _KINDS if test(mode)), None if stat.S_ISREG(mode) else "not a file")


def write_atomic(path: str | os.PathLike[str], text: str, durable: bool = True) -> None:
    """Replace a regular file (or create one) by ``text`` in one step: a temporary file beside
    it, ``fsync``, rename; after a crash the file holds the old text or the new, whole.
    Not ``durable``: no ``fsync`` (a kill still never leaves half a file; a power cut may lose
    the last ones written), for the many small files of a hunt (2 ms a file here, not 12).

    Raises:
        OSError: ``path`` names no regular file (a device, FIFO, folder), which is left
            alone (``strerror`` says what it is), or the folder cannot be written.
    """
    target = Path(path)
    what = special(target)
    if what is not None:
        raise OSError(errno.EINVAL, f"is {what}, not a regular file", str(target))
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w") as fp:
            fp.write(text)
            fp.flush()
            if durable:
                os.fsync(fp.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    if not durable:
        return
    with contextlib.suppress(OSError):  # the rename itself reaches the disk with the folder
        folder = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
