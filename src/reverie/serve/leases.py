"""One exchange at a time per conversation, any number of conversations at once.

A proxy exchange (reconcile, prompt, ask the endpoint, record) must not interleave with
another exchange of the same session, or both would reconcile against the same messages and
record twice. ``SessionLeases`` hands out one lease per conversation, keyed by
(principal, session): two principals' sessions of the same name are different conversations
in different workspaces and never wait for each other. A lease is held from the start of the
exchange until its answer is recorded or abandoned, which for a streamed answer is after the
handler has returned, so a lease is released explicitly (``Lease.release``, idempotent)
rather than by a ``with`` block. Other conversations never wait: each key has its own lock,
created on first use and dropped when nobody holds or waits for it.
"""

from __future__ import annotations

import anyio

Key = tuple[str, str]
"""(principal, session)."""


class Lease:
    """The right to run one conversation's exchange; release it exactly when it ends."""

    def __init__(self, owner: SessionLeases, key: Key, lock: anyio.Lock) -> None:
        self._owner = owner
        self._key = key
        self._lock = lock
        self._held = True

    def release(self) -> None:
        """Let the conversation's next exchange run (a second call does nothing)."""
        if self._held:
            self._held = False
            self._lock.release()
            self._owner.forget(self._key)


class SessionLeases:
    """Per-conversation exclusive leases (one event loop; not for threads)."""

    def __init__(self) -> None:
        self._locks: dict[Key, tuple[anyio.Lock, int]] = {}

    async def acquire(self, principal: str, session: str) -> Lease:
        """Wait until no other exchange of ``session`` of ``principal`` runs; return its lease."""
        key = (principal, session)
        lock, users = self._locks.get(key, (anyio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            await lock.acquire()
        except BaseException:
            self.forget(key)
            raise
        return Lease(self, key, lock)

    def active(self) -> int:
        """How many conversations have an exchange running or waiting."""
        return len(self._locks)

    def busy(self, principal: str) -> list[str]:
        """The sessions of ``principal`` with an exchange running or waiting (any thread)."""
        return [session for owner, session in list(self._locks) if owner == principal]

    def forget(self, key: Key) -> None:
        """Drop one user of ``key``'s lock (the lock goes with its last user)."""
        lock, users = self._locks[key]
        if users <= 1:
            del self._locks[key]
        else:
            self._locks[key] = (lock, users - 1)
