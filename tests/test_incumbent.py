"""The race's shared best answer: only better offers replace it, readers see each new one, and
a member whose race is over searches on without it."""

from __future__ import annotations

import multiprocessing
import pickle

from puzzlesat.core.incumbent import Entry, Incumbent


def test_only_a_better_offer_replaces_the_best(tmp_path):
    race = Incumbent(tmp_path / "best", "a")
    assert race.best() is None and race.bound() is None
    assert race.offer(10, "ten")
    assert not race.offer(10, "another ten") and not race.offer(12, "twelve")
    other = race.as_member("b")
    assert other.best() == Entry(10, "ten", "a")
    assert other.offer(7, "seven")
    assert race.best() == Entry(7, "seven", "b") and race.bound() == 7


def test_it_travels_as_its_path(tmp_path):
    race = Incumbent(tmp_path / "best", "a")
    race.offer(3, (1, 2))
    copy = pickle.loads(pickle.dumps(race))
    assert copy.path == race.path and copy.source == "a" and copy.best() == Entry(3, (1, 2), "a")


def _offer_many(path: str, start: int) -> None:
    race = Incumbent(path, f"p{start}")
    for objective in range(start + 200, start, -1):
        race.offer(objective, objective)


def test_concurrent_offers_keep_the_best(tmp_path):
    path = str(tmp_path / "best")
    procs = [multiprocessing.get_context("spawn").Process(target=_offer_many, args=(path, k)) for k in (0, 5)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    best = Incumbent(path).best()
    assert best is not None and best.objective == 1 and best.source == "p0"


def test_a_removed_folder_loses_only_the_sharing(tmp_path):
    race = Incumbent(tmp_path / "gone" / "best")
    assert not race.offer(1, "x") and race.best() is None
