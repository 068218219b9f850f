"""A bounded pool of ``ProcessLock`` objects, one per name, for stores with many lock files.

Each ``ProcessLock`` keeps its lock file open, so a store with a lock per session would hold
one descriptor per session ever touched. The pool keeps at most ``capacity`` locks open and
closes the least recently used ones that no thread is holding or waiting for. Closing a lock
object only closes this process's descriptor; the lock file stays (unlinking lock files races
with other processes that have them open, so they are never removed).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reverie.store.locks import ProcessLock


class LockPool:
    """Named cross-process locks in one folder, at most ``capacity`` of them open at once."""

    def __init__(self, directory: Path, *, capacity: int = 128, timeout: float = 60.0) -> None:
        self.directory = directory
        self.capacity = capacity
        self.timeout = timeout
        self._mutex = threading.Lock()
        self._locks: OrderedDict[str, ProcessLock] = OrderedDict()
        self._users: dict[str, int] = {}

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        """Hold the lock ``<directory>/<name>.lock`` for the body of a ``with`` block.

        Raises:
            LockTimeoutError: another holder kept it longer than ``timeout`` seconds.
        """
        with self._mutex:
            lock = self._locks.get(name)
            if lock is None:
                lock = ProcessLock(self.directory / f"{name}.lock", timeout=self.timeout)
                self._locks[name] = lock
            self._locks.move_to_end(name)
            self._users[name] = self._users.get(name, 0) + 1
        try:
            with lock.hold():
                yield
        finally:
            with self._mutex:
                self._users[name] -= 1
                if not self._users[name]:
                    del self._users[name]
                self._evict()

    def _evict(self) -> None:
        excess = len(self._locks) - self.capacity
        for name in list(self._locks):
            if excess <= 0:
                return
            if name not in self._users:
                self._locks.pop(name).close()
                excess -= 1

    def close(self) -> None:
        """Close every lock no thread is using."""
        with self._mutex:
            for name in list(self._locks):
                if name not in self._users:
                    self._locks.pop(name).close()
