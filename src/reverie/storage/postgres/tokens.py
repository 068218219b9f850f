"""``PgTokenRows``: a database home's ``tokens`` table (``reverie.storage.ports.homes``).

The table is the home's own, outside every workspace (``schema`` version 5): one row per
token, its SHA-256 digest and public id, never the token. The engine's ``DatabaseTokenBook``
makes and checks the values (``reverie.engine.owners.database_tokens``); this module only
writes and reads the rows, each call on a connection of the home's shared pool, never closing
it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Database

TokenRow = tuple[object, ...]
"""One row as stored (``reverie.storage.ports.homes.TokenRow``)."""

_COLUMNS = "id, kind, principal, label, created, revoked"


class PgTokenRows:
    """The ``tokens`` table of ``database`` (``TokenRowsPort``)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def insert(
        self,
        *,
        ident: str,
        digest: str,
        kind: str,
        principal: str | None,
        label: str,
        created: datetime,
    ) -> None:
        """Add one token's row."""
        with self.database.connection() as conn:
            conn.execute(
                "INSERT INTO tokens (id, digest, kind, principal, label, created)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (ident, digest, kind, principal, label, created),
            )

    def live(self, digest: str) -> TokenRow | None:
        """The row of the unrevoked token with ``digest``, or None."""
        with self.database.connection() as conn:
            return conn.execute(
                f"SELECT {_COLUMNS} FROM tokens WHERE digest = %s AND revoked IS NULL",
                (digest,),
            ).fetchone()

    def revoke(self, ident: str, when: datetime) -> TokenRow | None:
        """Mark the token ``ident`` revoked at ``when`` (if live); its row after, or None."""
        with self.database.connection() as conn:
            conn.execute(
                "UPDATE tokens SET revoked = %s WHERE id = %s AND revoked IS NULL",
                (when, ident),
            )
            return conn.execute(
                f"SELECT {_COLUMNS} FROM tokens WHERE id = %s",
                (ident,),
            ).fetchone()

    def revoke_principal(self, principal: str, when: datetime) -> int:
        """Mark every live token of ``principal`` revoked at ``when``; return how many."""
        with self.database.connection() as conn:
            cursor = conn.execute(
                "UPDATE tokens SET revoked = %s WHERE principal = %s AND revoked IS NULL",
                (when, principal),
            )
            return cursor.rowcount

    def forget_principal(self, principal: str) -> int:
        """Delete every row of ``principal``; return how many."""
        with self.database.connection() as conn:
            cursor = conn.execute("DELETE FROM tokens WHERE principal = %s", (principal,))
            return cursor.rowcount

    def rows(self) -> list[TokenRow]:
        """Every row, oldest first (then by id)."""
        with self.database.connection() as conn:
            return conn.execute(f"SELECT {_COLUMNS} FROM tokens ORDER BY created, id").fetchall()
