"""``DatabaseTokenBook``: a database home's tokens, in the ``tokens`` table of its schema.

The same book as ``tokens.SqliteTokenBook`` (see there: SHA-256 digests only, a 12-hex public
id, ``check`` reads the table every time so a revocation binds every server at once), kept in
the database every server of the home shares. The table is the home's own, outside every
workspace; storage keeps its rows (``reverie.storage.ports.homes.TokenRowsPort``, over the
home's shared connection pool, which it never closes) and this book makes and checks the
values in them.
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
    from reverie.storage.ports.homes import TokenRow, TokenRowsPort


class DatabaseTokenBook:
    """A database home's tokens (``TokenBook``)."""

    def __init__(self, rows: TokenRowsPort) -> None:
        self.rows = rows

    def issue(self, kind: GrantKind, *, principal: str | None = None, label: str = "") -> str:
        """Make a token of ``kind`` (for ``principal``); return its text."""
        kind, principal = checked_grant(kind, principal)
        token = new_token(kind)
        hashed = digest(token)
        self.rows.insert(
            ident=hashed[:ID_DIGITS],
            digest=hashed,
            kind=kind,
            principal=principal,
            label=label,
            created=datetime.now(UTC),
        )
        return token

    def check(self, token: str) -> Grant | None:
        """The live grant of ``token``, or None."""
        if not token:
            return None
        row = self.rows.live(digest(token))
        return None if row is None else _grant(row)

    def revoke(self, token_id: str) -> Grant:
        """Revoke the token ``token_id`` names (its public id)."""
        row = self.rows.revoke(token_id, datetime.now(UTC))
        if row is None:
            raise InputError(f"no token with id {token_id!r} (`reverie token list` names them)")
        return _grant(row)

    def revoke_principal(self, principal: str) -> int:
        """Revoke every live token of ``principal``."""
        return self.rows.revoke_principal(principal, datetime.now(UTC))

    def forget_principal(self, principal: str) -> int:
        """Delete every token row of ``principal``."""
        return self.rows.forget_principal(principal)

    def grants(self) -> list[Grant]:
        """Every grant, oldest first."""
        return [_grant(row) for row in self.rows.rows()]


def _grant(row: TokenRow) -> Grant:
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
