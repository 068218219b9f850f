"""Exclusive locks that hold across threads and processes (POSIX ``flock``).

A ``ProcessLock`` guards one concern of a workspace (the history log, the audit repo, a
session). It serialises threads of this process with a ``threading.Lock`` and other processes
with ``flock`` on a lock file kept open for the life of the object, so acquiring costs two
syscalls, not an open and a close. The lock file is reopened after ``fork`` (a child must not
share the parent's open file description, which would share the lock).

The kernel drops an ``flock`` when its holder dies, so a SIGKILLed holder never wedges others.
Locks are not re-entrant: acquiring one you already hold raises instead of deadlocking.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reverie.errors import LockTimeoutError, StorageError

_FIRST_POLL_SECONDS = 0.0001
_MAX_POLL_SECONDS = 0.005


class ProcessLock:
    """An exclusive lock on ``path`` across threads and processes."""

    def __init__(self, path: Path, *, timeout: float = 60.0, keep_open: bool = True) -> None:
        self.path = path
        self.timeout = timeout
        self.keep_open = keep_open
        """Keep the lock file open between holds (else it is closed on every release)."""
        self._thread_lock = threading.Lock()
        self._owner: int | None = None
        self._fd: int | None = None
        self._fd_pid = 0

    def _file(self) -> int:
        if self._fd is None or self._fd_pid != os.getpid():
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise StorageError(
                    f"cannot open lock file ({exc.strerror})", path=self.path
                ) from exc
            self._fd_pid = os.getpid()
        return self._fd

    @contextmanager
    def hold(self, *, timeout: float | None = None) -> Iterator[None]:
        """Hold the lock for the body of a ``with`` block.

        Args:
            timeout: seconds to wait for it, overriding the lock's ``timeout``; 0 tries once
                without waiting (a caller that would rather report "busy" than queue).

        Raises:
            LockTimeoutError: another holder kept it longer than the timeout.
            RuntimeError: this thread already holds it.
        """
        wait = self.timeout if timeout is None else max(0.0, timeout)
        if self._owner == threading.get_ident():
            raise RuntimeError(f"lock {self.path} is already held by this thread")
        if not self._thread_lock.acquire(timeout=wait):
            raise LockTimeoutError(self.path, wait)
        try:
            self._owner = threading.get_ident()
            self._acquire_file(wait)
            try:
                yield
            finally:
                fcntl.flock(self._file(), fcntl.LOCK_UN)
                if not self.keep_open:
                    self.close()
        finally:
            self._owner = None
            self._thread_lock.release()

    def _acquire_file(self, timeout: float) -> None:
        fd = self._file()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if timeout <= 0:
                raise LockTimeoutError(self.path, timeout) from None
        # Poll rather than block: a blocking flock cannot time out without signals, and
        # signals are not for libraries. Back off from 0.1 ms so short holds stay cheap.
        deadline = time.monotonic() + timeout
        pause = _FIRST_POLL_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(self.path, timeout) from None
                time.sleep(pause)
                pause = min(pause * 2, _MAX_POLL_SECONDS)

    def close(self) -> None:
        """Close the lock file (the lock must not be held)."""
        if self._fd is not None and self._fd_pid == os.getpid():
            os.close(self._fd)
        self._fd = None
