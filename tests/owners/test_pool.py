"""The engine pool: one engine per principal, bounded, and never a lent engine closed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import EnginePool, FolderHome, Openers
from reverie.errors import WorkspaceMissingError


def home(tmp_path: Path) -> FolderHome:
    return FolderHome(tmp_path / "home", openers=Openers(config=Config(), environ={}, dense="off"))


def test_each_principal_gets_its_own_workspace_folder(tmp_path: Path) -> None:
    pool = EnginePool(home(tmp_path), capacity=2)
    with pool.lease("alice", create=True) as alice:
        alice.record("s", [{"role": "user", "content": "I live at 12 Rose Street"}])
    with pool.lease("lc:user1", create=True) as bob:
        assert bob.search("Rose") == []
    assert pool.home.principals() == ["alice", "lc:user1"]
    assert (tmp_path / "home" / "lc~3auser1" / "memory").is_dir()
    pool.close()


def test_an_unknown_principal_is_refused_without_create(tmp_path: Path) -> None:
    pool = EnginePool(home(tmp_path))
    with pytest.raises(WorkspaceMissingError), pool.lease("nobody"):
        pass
    assert pool.stats().open == 0
    pool.close()


def test_the_pool_closes_the_least_recently_used_idle_engine(tmp_path: Path) -> None:
    pool = EnginePool(home(tmp_path), capacity=2)
    for name in ("a", "b", "a", "c"):
        with pool.lease(name, create=True):
            pass
    assert pool.open_principals() == ["a", "c"]
    stats = pool.stats()
    assert (stats.open, stats.opened, stats.closed) == (2, 3, 1)
    pool.close()


def test_a_lease_waits_when_every_open_engine_is_lent(tmp_path: Path) -> None:
    pool = EnginePool(home(tmp_path), capacity=1)
    took = threading.Event()
    release = threading.Event()
    second: list[str] = []

    def hold() -> None:
        with pool.lease("a", create=True):
            took.set()
            release.wait(10)

    def other() -> None:
        with pool.lease("b", create=True):
            second.append("b")

    holder = threading.Thread(target=hold)
    holder.start()
    took.wait(10)
    waiter = threading.Thread(target=other)
    waiter.start()
    waiter.join(0.3)
    assert second == []  # no room while "a" is lent
    release.set()
    holder.join(10)
    waiter.join(10)
    assert second == ["b"]
    assert pool.open_principals() == ["b"]
    pool.close()


def test_threads_leasing_one_principal_share_one_engine(tmp_path: Path) -> None:
    pool = EnginePool(home(tmp_path), capacity=4)
    seen: list[int] = []
    lock = threading.Lock()

    def use() -> None:
        with pool.lease("alice", create=True) as engine, lock:
            seen.append(id(engine))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(set(seen)) == 1
    assert pool.stats().opened == 1
    pool.close()


def test_evict_closes_the_engine_and_remove_deletes_the_folder(tmp_path: Path) -> None:
    pool = EnginePool(home(tmp_path))
    with pool.lease("alice", create=True):
        pass
    pool.evict("alice")
    pool.home.remove("alice")
    assert pool.home.principals() == []
    assert pool.stats().open == 0
    pool.close()


class CloseFails(MemoryEngine):
    """A real engine whose close fails after closing its files (a broken shutdown)."""

    def close(self) -> None:
        super().close()
        raise RuntimeError("close failed")


class CloseFailsHome(FolderHome):
    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        return CloseFails.open(self.folder(principal), Config(), create=create, environ={})


def test_an_engine_that_fails_to_close_still_makes_room(tmp_path: Path) -> None:
    pool = EnginePool(CloseFailsHome(tmp_path / "home"), capacity=1)
    with pool.lease("a", create=True):
        pass
    with pool.lease("b", create=True) as engine:  # room is made by closing "a"
        assert engine.search("anything") == []
    assert pool.open_principals() == ["b"]
    assert pool.stats().closed == 1
