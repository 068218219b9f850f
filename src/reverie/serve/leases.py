"""One exchange at a time per session, any number of sessions at once.

A proxy exchange (reconcile, prompt, ask the endpoint, record) must not interleave with
another exchange of the same session, or both would reconcile against the same messages and
record twice. ``SessionLeases`` hands out one lease per session key; a lease is held from the
start of the exchange until its answer is recorded or abandoned, which for a streamed answer
is after the handler has returned, so a lease is released explicitly (``Lease.release``,
idempotent) rather than by a ``with`` block. Other sessions never wait: each key has its own
lock, created on first use and dropped when nobody holds or waits for it.
"""

from __future__ import annotations

import anyio


class Lease:
    """The right to run one session's exchange; release it exactly when the exchange ends."""

    def __init__(self, owner: SessionLeases, key: str, lock: anyio.Lock) -> None:
        self._owner = owner
        self._key = key
        self._lock = lock
        self._held = True

    def release(self) -> None:
        """Let the session's next exchange run (a second call does nothing)."""
        if self._held:
            self._held = False
            self._lock.release()
            self._owner.forget(self._key)


class SessionLeases:
    """Per-session exclusive leases (one event loop; not for threads)."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[anyio.Lock, int]] = {}

    async def acquire(self, key: str) -> Lease:
        """Wait until no other exchange of ``key`` runs, then return its lease."""
        lock, users = self._locks.get(key, (anyio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            await lock.acquire()
        except BaseException:
            self.forget(key)
            raise
        return Lease(self, key, lock)

    def active(self) -> int:
        """How many sessions have an exchange running or waiting."""
        return len(self._locks)

    def busy(self) -> list[str]:
        """The sessions with an exchange running or waiting (safe to call from any thread)."""
        return list(self._locks)

    def forget(self, key: str) -> None:
        """Drop one user of ``key``'s lock (the lock goes with its last user)."""
        lock, users = self._locks[key]
        if users <= 1:
            del self._locks[key]
        else:
            self._locks[key] = (lock, users - 1)
