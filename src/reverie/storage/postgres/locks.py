"""Named locks across servers (dream, ingest, compaction of one session), built on leases.

``PgLock.hold`` takes the lease ``lock:<name>`` of the workspace, waiting up to ``timeout``
(0 tries once), keeps it alive with a heartbeat while the block runs, and releases it at the
end; ``fence`` lets the holder's last write check, in its own transaction, that the lease is
still its own. A server that dies while holding one (SIGKILL, power loss, lost network) stops its
heartbeat, and the lock frees itself ``ttl`` later (``reverie.storage.postgres.leases``). Within one
process, a thread lock first orders the threads, so the database sees one holder per process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.errors import LockTimeoutError
from reverie.storage.postgres.leases import Lease, LeaseLostError, PgLeases

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn, Tenant

DEFAULT_TTL = timedelta(seconds=30)
_POLL = 0.05


class PgLock:
    """One named lock of one workspace, exclusive across threads, processes and machines."""

    def __init__(
        self,
        tenant: Tenant,
        name: str,
        *,
        holder: str,
        timeout: float = 60.0,
        ttl: timedelta = DEFAULT_TTL,
    ) -> None:
        self._leases = PgLeases(tenant, holder=holder)
        self._name = f"lock:{name}"
        self._where = Path(f"{tenant.where} {self._name}")
        self._timeout = timeout
        self._ttl = ttl
        self._local = threading.Lock()
        self._held: Lease | None = None

    @contextmanager
    def hold(self, *, timeout: float | None = None) -> Iterator[None]:
        """Hold the lock for the block.

        Raises:
            LockTimeoutError: not acquired within ``timeout`` (0: on the first try).
        """
        wait = self._timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        taken = (
            self._local.acquire(timeout=wait) if wait > 0 else self._local.acquire(blocking=False)
        )
        if not taken:
            raise LockTimeoutError(self._where, wait)
        try:
            while True:
                with self._leases.hold(self._name, self._ttl) as lease:
                    if lease is not None:
                        self._held = lease
                        try:
                            yield
                        finally:
                            self._held = None
                        return
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(self._where, wait)
                time.sleep(_POLL)
        finally:
            self._local.release()

    def fence(self, conn: Conn) -> None:
        """Inside the caller's transaction: raise ``LeaseLostError`` unless this lock is held.

        For a job's final write (a dream's publish): its lease must still be the one granted
        when the block began, unexpired, and stays so until that transaction ends.
        """
        held = self._held
        if held is None:
            raise LeaseLostError(f"{self._name} is not held", where=str(self._where))
        self._leases.fence(conn, held)

    def close(self) -> None:
        """Nothing stays open between holds."""
