"""A bounded pool of open engines, one per principal, opened on demand.

A server that serves many principals cannot keep every principal's engine open (each holds
SQLite connections, a search index, maybe vectors) nor open one per request (an open reads
settings, checks the layout and the git repository). ``EnginePool`` keeps at most
``capacity`` engines open, lends them by principal (``lease``), and closes the one used
longest ago when it needs room, never one that is lent.

Invariants:
- at most one engine per principal is open in the pool at any time, so two threads of one
  server never hold two engines over one workspace;
- at most ``capacity`` engines are open; a lease that needs room while every open engine is
  lent waits for one to come back (a request holds one lease at a time, so this cannot
  deadlock);
- ``evict`` (a deleted principal) waits until the principal's engine is back, closes it and
  keeps it closed until ``evict`` returns.

Thread-safe: the pool is used from the server's worker threads and from background jobs.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reverie.engine.owners.names import check_principal

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine
    from reverie.engine.owners.home import Home

DEFAULT_CAPACITY = 64


@dataclass(slots=True)
class _Slot:
    engine: MemoryEngine | None = None
    users: int = 0
    opening: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True, slots=True, kw_only=True)
class PoolStats:
    """How the pool is used: engines open now, opened and closed since it started."""

    open: int
    lent: int
    opened: int
    closed: int


class EnginePool:
    """At most ``capacity`` open engines of one home, lent by principal."""

    def __init__(self, home: Home, *, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("an engine pool needs room for at least one engine")
        self.home = home
        self.capacity = capacity
        self._slots: OrderedDict[str, _Slot] = OrderedDict()
        self._changed = threading.Condition()
        self._blocked: set[str] = set()
        self._opened = 0
        self._closed = 0
        self._shut = False

    @contextmanager
    def lease(self, principal: str, *, create: bool = False) -> Iterator[MemoryEngine]:
        """Lend ``principal``'s engine until the block ends (opened first if needed).

        Raises:
            WorkspaceMissingError, DatabaseError: the principal has no workspace and
                ``create`` is false.
        """
        check_principal(principal)
        slot = self._take(principal)
        try:
            yield self._ready(principal, slot, create=create)
        finally:
            self._give_back(principal, slot)

    def _take(self, principal: str) -> _Slot:
        with self._changed:
            while True:
                if self._shut:
                    raise RuntimeError("the engine pool is closed")
                slot = self._slots.get(principal)
                if slot is not None and principal not in self._blocked:
                    slot.users += 1
                    self._slots.move_to_end(principal)
                    return slot
                if slot is None and principal not in self._blocked and self._room():
                    slot = _Slot(users=1)
                    self._slots[principal] = slot
                    return slot
                self._changed.wait()

    def _room(self) -> bool:
        """Make room for one more engine if possible (caller holds the lock)."""
        if len(self._slots) < self.capacity:
            return True
        for name, slot in self._slots.items():  # oldest first
            if slot.users == 0:
                del self._slots[name]
                self._close(slot)
                return True
        return False

    def _ready(self, principal: str, slot: _Slot, *, create: bool) -> MemoryEngine:
        # The slot's own lock: the first holder opens the engine while the others wait for
        # it, and a failed open leaves the slot empty for the next holder to try again.
        with slot.opening:
            if slot.engine is None:
                engine = self.home.open_engine(principal, create=create)
                with self._changed:
                    slot.engine = engine
                    self._opened += 1
            return slot.engine

    def _give_back(self, principal: str, slot: _Slot) -> None:
        with self._changed:
            slot.users -= 1
            if slot.users == 0 and slot.engine is None and self._slots.get(principal) is slot:
                del self._slots[principal]  # never opened (it failed): leave no empty slot
            self._changed.notify_all()

    def _close(self, slot: _Slot) -> None:
        engine, slot.engine = slot.engine, None
        if engine is None:
            return
        self._closed += 1
        try:
            engine.close()
        except Exception:
            # The slot is already gone from the pool: an engine that fails to close is
            # logged, never left half in the pool, and the caller's lease goes on.
            logger.exception("closing an engine of the pool failed")

    def evict(self, principal: str) -> None:
        """Close ``principal``'s engine once nobody holds it (before deleting the principal)."""
        with self._changed:
            self._blocked.add(principal)
            try:
                while (slot := self._slots.get(principal)) is not None and slot.users > 0:
                    self._changed.wait()
                if slot is not None:
                    del self._slots[principal]
                    self._close(slot)
            finally:
                self._blocked.discard(principal)
                self._changed.notify_all()

    def open_principals(self) -> list[str]:
        """The principals whose engine is open, used longest ago first."""
        with self._changed:
            return [name for name, slot in self._slots.items() if slot.engine is not None]

    def stats(self) -> PoolStats:
        """How many engines are open and lent, and how many were opened and closed."""
        with self._changed:
            lent = sum(1 for slot in self._slots.values() if slot.users > 0)
            return PoolStats(
                open=len(self._slots), lent=lent, opened=self._opened, closed=self._closed
            )

    def close(self) -> None:
        """Close every engine (waiting for lent ones to come back)."""
        with self._changed:
            self._shut = True
            while any(slot.users > 0 for slot in self._slots.values()):
                self._changed.wait()
            for slot in self._slots.values():
                self._close(slot)
            self._slots.clear()
            self._changed.notify_all()
