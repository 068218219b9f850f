"""``DatabaseTokenBook``: a database home's tokens, in the ``tokens`` table of its schema.

The same book as ``tokens.SqliteTokenBook`` (see there: SHA-256 digests only, a 12-hex public
id, ``check`` reads the table every time so a revocation binds every server at once), kept in
the database every server of the home shares. The table is the home's own, outside every
workspace (``reverie.storage.postgres.schema`` version 5). It runs over the home's shared connection
pool and never closes it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from reverie.engine.owners.tokens import (
    ID_DIGITS,
    Grant,
    GrantKind,
    checked_grant,
    digest,
    new_token,
)
from reverie.errors import InputError

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Database

_COLUMNS = "id, kind, principal, label, created, revoked"


class DatabaseTokenBook:
    """A database home's tokens (``TokenBook``)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def issue(self, kind: GrantKind, *, principal: str | None = None, label: str = "") -> str:
        """Make a token of ``kind`` (for ``principal``); return its text."""
        kind, principal = checked_grant(kind, principal)
        token = new_token(kind)
        hashed = digest(token)
        with self.database.connection() as conn:
            conn.execute(
                "INSERT INTO tokens (id, digest, kind, principal, label, created)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (hashed[:ID_DIGITS], hashed, kind, principal, label, datetime.now(UTC)),
            )
        return token

    def check(self, token: str) -> Grant | None:
        """The live grant of ``token``, or None."""
        if not token:
            return None
        with self.database.connection() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM tokens WHERE digest = %s AND revoked IS NULL",  # noqa: S608
                (digest(token),),
            ).fetchone()
        return None if row is None else _grant(row)

    def revoke(self, token_id: str) -> Grant:
        """Revoke the token ``token_id`` names (its public id)."""
        with self.database.connection() as conn:
            conn.execute(
                "UPDATE tokens SET revoked = %s WHERE id = %s AND revoked IS NULL",
                (datetime.now(UTC), token_id),
            )
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM tokens WHERE id = %s",  # noqa: S608
                (token_id,),
            ).fetchone()
        if row is None:
            raise InputError(f"no token with id {token_id!r} (`reverie token list` names them)")
        return _grant(row)

    def revoke_principal(self, principal: str) -> int:
        """Revoke every live token of ``principal``."""
        with self.database.connection() as conn:
            cursor = conn.execute(
                "UPDATE tokens SET revoked = %s WHERE principal = %s AND revoked IS NULL",
                (datetime.now(UTC), principal),
            )
            return cursor.rowcount

    def forget_principal(self, principal: str) -> int:
        """Delete every token row of ``principal``."""
        with self.database.connection() as conn:
            cursor = conn.execute("DELETE FROM tokens WHERE principal = %s", (principal,))
            return cursor.rowcount

    def grants(self) -> list[Grant]:
        """Every grant, oldest first."""
        with self.database.connection() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM tokens ORDER BY created, id"  # noqa: S608
            ).fetchall()
        return [_grant(row) for row in rows]


def _grant(row: tuple[object, ...]) -> Grant:
    ident, kind, principal, label, created, revoked = row
    named = principal if isinstance(principal, str) else None
    checked, _ = checked_grant(str(kind), named if kind == "principal" else None)
    if not isinstance(created, datetime) or not isinstance(revoked, datetime | None):
        raise TypeError("the tokens table's times are timestamptz")
    return Grant(
        id=str(ident),
        kind=checked,
        principal=named,
        label=str(label),
        created=created,
        revoked=revoked,
    )
