"""Leases: a job (dream, compaction of a session) runs once per workspace across servers.

Storage model. One ``leases`` row per (workspace, name) with its holder, a *token* that grows
by one at every new grant, and an expiry on the database's clock (``now()``, so the servers'
clocks never matter). A lease is granted when the row is absent or expired; the holder renews
it while it works (``hold`` runs a heartbeat thread) and releases it at the end.

Why rows and not advisory locks: a session-level advisory lock lives on one connection,
which a pool (or a transaction-mode pgbouncer) does not keep, and it is freed only when the
server notices the dead connection (TCP keepalive, minutes to hours on a lost network). A
lease expires ``ttl`` after its holder's last heartbeat, whatever happened to the holder.

Invariants.
- At most one unexpired lease per (workspace, name); the token of each grant is larger than
  every earlier one (a fencing token).
- ``fence`` checks, inside the caller's transaction, that a lease is still held and locks its
  row (``FOR SHARE``) until that transaction ends, so a job whose lease expired (a paused or
  partitioned server) cannot commit its result after another holder took over, and a new
  grant waits for a commit that passed the fence.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, cast

from reverie.errors import DatabaseError, ReverieError

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn, Tenant

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Lease:
    """One grant of a named lease: who holds it, its fencing token, and when it expires."""

    name: str
    holder: str
    token: int
    expires_at: datetime


class LeaseLostError(DatabaseError):
    """A lease expired or was taken over before its holder finished (nothing was committed)."""


class PgLeases:
    """Grant, renew, release and check the leases of one workspace for one holder."""

    def __init__(self, tenant: Tenant, *, holder: str) -> None:
        self._tenant = tenant
        self.holder = holder

    def acquire(self, name: str, ttl: timedelta) -> Lease | None:
        """Grant ``name`` to this holder for ``ttl``; None when another holds it unexpired."""
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "INSERT INTO leases (workspace_id, name, holder, token, expires_at)"
                " VALUES (%(ws)s, %(name)s, %(holder)s, 1, clock_timestamp() + %(ttl)s)"
                " ON CONFLICT (workspace_id, name) DO UPDATE SET holder = excluded.holder,"
                " token = leases.token + 1, expires_at = excluded.expires_at"
                " WHERE leases.expires_at <= clock_timestamp()"
                " RETURNING token, expires_at",
                {"ws": self._tenant.id, "name": name, "holder": self.holder, "ttl": ttl},
            ).fetchone()
        if row is None:
            return None
        token, expires = int(str(row[0])), cast("datetime", row[1])
        return Lease(name=name, holder=self.holder, token=token, expires_at=expires)

    def renew(self, lease: Lease, ttl: timedelta) -> Lease | None:
        """Extend a lease still held; None when it expired or was taken over."""
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "UPDATE leases SET expires_at = clock_timestamp() + %s WHERE workspace_id = %s"
                " AND name = %s AND holder = %s AND token = %s AND expires_at > clock_timestamp()"
                " RETURNING expires_at",
                (ttl, self._tenant.id, lease.name, lease.holder, lease.token),
            ).fetchone()
        if row is None:
            return None
        return Lease(
            name=lease.name,
            holder=lease.holder,
            token=lease.token,
            expires_at=cast("datetime", row[0]),
        )

    def release(self, lease: Lease) -> None:
        """Give a lease up now (nothing happens when it was already lost)."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "UPDATE leases SET expires_at = clock_timestamp() WHERE workspace_id = %s"
                " AND name = %s AND holder = %s AND token = %s",
                (self._tenant.id, lease.name, lease.holder, lease.token),
            )

    def fence(self, conn: Conn, lease: Lease) -> None:
        """Inside the caller's transaction: raise ``LeaseLostError`` unless ``lease`` is held."""
        row = conn.execute(
            "SELECT 1 FROM leases WHERE workspace_id = %s AND name = %s AND holder = %s"
            " AND token = %s AND expires_at > clock_timestamp() FOR SHARE",
            (self._tenant.id, lease.name, lease.holder, lease.token),
        ).fetchone()
        if row is None:
            raise LeaseLostError(
                f"lease {lease.name!r} (grant {lease.token}) expired or was taken over",
                where=self._tenant.where,
            )

    @contextmanager
    def hold(self, name: str, ttl: timedelta) -> Iterator[Lease | None]:
        """Hold ``name`` for the block, renewed every ``ttl / 3``; yields None when busy."""
        lease = self.acquire(name, ttl)
        if lease is None:
            yield None
            return
        stop = threading.Event()
        beat = threading.Thread(
            target=self._heartbeat, args=(lease, ttl, stop), name=f"lease:{name}", daemon=True
        )
        beat.start()
        try:
            yield lease
        finally:
            stop.set()
            beat.join()
            self.release(lease)

    def _heartbeat(self, lease: Lease, ttl: timedelta, stop: threading.Event) -> None:
        while not stop.wait(ttl.total_seconds() / 3):
            try:
                renewed = self.renew(lease, ttl)
            except ReverieError as exc:  # the fence refuses the commit if this lasts too long
                logger.warning("could not renew lease %s: %s", lease.name, exc)
                continue
            if renewed is None:
                logger.warning("lease %s (token %d) was lost", lease.name, lease.token)
                return
