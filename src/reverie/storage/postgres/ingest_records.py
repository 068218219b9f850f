"""The ingest records of one workspace in PostgreSQL: the ``ingest_marks`` and ``ingest_runs`` rows.

Storage model (the ingest migration of ``schema``). ``ingest_marks``: one row per content key
a nanobot workspace brought in (``reverie.storage.ports.ingest``): ``add_marks`` inserts the new
keys in one transaction (``ON CONFLICT DO NOTHING``, so adding a key twice is a no-op).
``ingest_runs`` holds at most one row per workspace, the sessions of the ingest running now:
``begin`` upserts it, ``finish`` deletes it. Both tables are scoped by row-level security like every
other table of the workspace.

Invariants: only the ingest holding the workspace's ``ingest`` lock writes here; each call is
one transaction, so a client killed at any instant leaves the rows as they were before the
call or after it (the folder backend's atomic replacement, in rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Tenant


class PgIngestRecords:
    """The imported-sources marks and the running ingest of one workspace."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def marks(self) -> set[str]:
        """Every content key imported so far."""
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT mark FROM ingest_marks WHERE workspace_id = %s", (self._tenant.id,)
            ).fetchall()
        return {str(row[0]) for row in rows}

    def add_marks(self, keys: Iterable[str]) -> None:
        """Insert the keys not stored yet, in one transaction."""
        rows = [(self._tenant.id, key) for key in sorted(set(keys))]
        if not rows:
            return
        with self._tenant.transaction() as conn, conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO ingest_marks (workspace_id, mark) VALUES (%s, %s)"
                " ON CONFLICT (workspace_id, mark) DO NOTHING",
                rows,
            )

    def running(self) -> list[str] | None:
        """The sessions of the recorded run (None: no run is recorded)."""
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "SELECT sessions FROM ingest_runs WHERE workspace_id = %s", (self._tenant.id,)
            ).fetchone()
        if row is None:
            return None
        sessions = row[0]
        return [str(key) for key in sessions] if isinstance(sessions, list) else []

    def begin(self, sessions: Sequence[str]) -> None:
        """Record a run replaying ``sessions`` (replacing any recorded run)."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "INSERT INTO ingest_runs (workspace_id, sessions) VALUES (%s, %s)"
                " ON CONFLICT (workspace_id) DO UPDATE"
                " SET sessions = excluded.sessions, started_at = now()",
                (self._tenant.id, sorted(set(sessions))),
            )

    def finish(self) -> None:
        """Delete the recorded run."""
        with self._tenant.transaction() as conn:
            conn.execute("DELETE FROM ingest_runs WHERE workspace_id = %s", (self._tenant.id,))
