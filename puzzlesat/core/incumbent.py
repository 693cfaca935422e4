"""The best answer a race knows so far, shared by its members while they search.

A race under ``--score`` or an optimisation hands each member an :class:`Incumbent` in
:attr:`~puzzlesat.core.types.Limits.shared`: a small file in a folder the race made and
removes.  A member :meth:`~Incumbent.offer` s each answer better than the last one it
offered, and reads :meth:`~Incumbent.best` to take the others' best as its bound (a native
search) or as a solution hint and objective bound (a CP-SAT model).  The race reads it at the
end too, so a board a member found is not lost when that member is stopped.

The objective is minimised (eternity's unmatched edges, blacken's moves).  A file, not a
``multiprocessing`` value: it reaches members however they were started, holds a whole
solution, and a reader that looks every slice pays one ``stat`` while nothing changes.
Writers take an exclusive ``flock``, so a worse answer never replaces a better one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Entry:
    """One shared answer: its objective (lower is better), the solution and who found it."""

    objective: int
    solution: Any
    source: str = ""


class Incumbent:
    """The race's best answer, in the file ``path`` (picklable: it travels as its path).

    Args:
        path: the file; absent until the first offer.
        source: the name this handle's offers carry (the member's label).
    """

    def __init__(self, path: str | os.PathLike[str], source: str = "") -> None:
        self.path = os.fspath(path)
        self.source = source
        self._seen: tuple[int, int, int] | None = None
        self._entry: Entry | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "source": self.source}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["source"])  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"Incumbent({self.path!r}, source={self.source!r})"

    def as_member(self, source: str) -> Incumbent:
        """The same file, offers signed ``source``."""
        return Incumbent(self.path, source)

    def best(self) -> Entry | None:
        """The best answer offered so far, None before any (read again only when the file changed)."""
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        stamp = (info.st_ino, info.st_mtime_ns, info.st_size)  # each offer is a new file
        if stamp != self._seen:
            try:
                with open(self.path, "rb") as handle:
                    entry = pickle.load(handle)
            except (OSError, EOFError, pickle.UnpicklingError):
                return self._entry  # caught mid-replace: the last one read stands
            self._seen, self._entry = stamp, entry if isinstance(entry, Entry) else None
        return self._entry

    def bound(self) -> int | None:
        """The best objective offered so far, None before any."""
        entry = self.best()
        return None if entry is None else entry.objective

    def offer(self, objective: int, solution: Any) -> bool:
        """Share an answer when it beats the best; True when it does.  Never raises for a full
        disk or a removed folder (the race is over, or sharing is lost: the member searches on)."""
        try:
            with open(self.path + ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                current = self.best()
                if current is not None and current.objective <= objective:
                    return False
                scratch = f"{self.path}.{os.getpid()}"
                with open(scratch, "wb") as handle:
                    pickle.dump(Entry(int(objective), solution, self.source), handle)
                os.replace(scratch, self.path)
                return True
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}.{os.getpid()}")
            return False
