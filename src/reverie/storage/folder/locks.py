"""Exclusive locks that hold across threads and processes (POSIX ``flock``).

A ``ProcessLock`` guards one concern of a workspace (the history log, the audit repo, a
session). It serialises threads of this process with a ``threading.Lock`` and other processes
with ``flock`` on a lock file kept open for the life of the object, so acquiring costs two
syscalls, not an open and a close. After ``fork`` the child forgets the parent's lock file
(a child must not share the parent's open file description, which would share the lock) and
gets a new thread lock (``os.register_at_fork``): a fork while another thread held the lock
would otherwise leave the child a thread lock no thread of it will ever release. ``hold``
returns a plain context manager object (no generator: the append path takes this lock on
every call).

The kernel drops an ``flock`` when its holder dies, so a SIGKILLed holder never wedges others.
Locks are not re-entrant: acquiring one you already hold raises instead of deadlocking.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
import weakref
from pathlib import Path
from types import TracebackType

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
        _LOCKS.add(self)

    def _file(self) -> int:
        if self._fd is None:  # a forked child starts without one (``_forget_after_fork``)
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise StorageError(
                    f"cannot open lock file ({exc.strerror})", path=self.path
                ) from exc
            self._fd_pid = os.getpid()
        return self._fd

    def hold(self, *, timeout: float | None = None) -> Held:
        """Hold the lock for the body of a ``with`` block.

        Args:
            timeout: seconds to wait for it, overriding the lock's ``timeout``; 0 tries once
                without waiting (a caller that would rather report "busy" than queue).

        Raises (on entering the block):
            LockTimeoutError: another holder kept it longer than the timeout.
            RuntimeError: this thread already holds it.
        """
        return Held(self, self.timeout if timeout is None else max(0.0, timeout))

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

    def _forget_after_fork(self) -> None:
        """In a forked child: a new thread lock, and the parent's lock file closed (our copy)."""
        self._thread_lock = threading.Lock()
        self._owner = None
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # the parent's descriptor (and its flock) stays open


class Held:
    """One hold of a ``ProcessLock``: its ``with`` block (see ``ProcessLock.hold``)."""

    __slots__ = ("_lock", "_thread_lock", "_wait")

    def __init__(self, lock: ProcessLock, wait: float) -> None:
        self._lock = lock
        self._wait = wait
        self._thread_lock: threading.Lock | None = None

    def __enter__(self) -> None:
        lock = self._lock
        if lock._owner == threading.get_ident():  # noqa: SLF001 -- the lock's own hold
            raise RuntimeError(f"lock {lock.path} is already held by this thread")
        thread_lock = lock._thread_lock  # noqa: SLF001
        if not thread_lock.acquire(timeout=self._wait):
            raise LockTimeoutError(lock.path, self._wait)
        try:
            lock._owner = threading.get_ident()  # noqa: SLF001
            lock._acquire_file(self._wait)  # noqa: SLF001
        except BaseException:
            lock._owner = None  # noqa: SLF001
            thread_lock.release()
            raise
        self._thread_lock = thread_lock

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        lock, thread_lock = self._lock, self._thread_lock
        self._thread_lock = None
        try:
            fcntl.flock(lock._file(), fcntl.LOCK_UN)  # noqa: SLF001
            if not lock.keep_open:
                lock.close()
        finally:
            lock._owner = None  # noqa: SLF001
            if thread_lock is not None:
                thread_lock.release()


_LOCKS: weakref.WeakSet[ProcessLock] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for lock in list(_LOCKS):
        lock._forget_after_fork()  # noqa: SLF001 -- the module's own fork hook


os.register_at_fork(after_in_child=_after_fork_in_child)
