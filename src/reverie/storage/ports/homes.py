"""What an owners' home on a database uses of it: its workspaces by name and its token rows.

A database home (``reverie.engine.owners.database_home``) keeps one workspace per principal in
ONE database over ONE connection pool (``reverie.storage.open.shared_database`` opens it; the
principals' backends borrow it through ``open_shared``), and its token book in the database's
``tokens`` table. The home takes the database through ``HomeDatabase`` and the table through
``TokenRowsPort`` (``reverie.storage.homes.token_rows``), so it never names the backend's
classes or speaks its SQL.

Contract.
- Every call lends a pooled connection and gives it back; ``close`` closes the pool (after
  every engine opened over it).
- ``TokenRowsPort`` stores what the engine hands it (digests, never tokens) and reads each
  row back as it is, for the engine to check (``TokenRow``); every read goes to the table, so a
  revocation binds every server of the home at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

__all__ = ["HomeDatabase", "TokenRow", "TokenRowsPort"]

TokenRow = tuple[object, ...]
"""One row of the tokens table as stored: id, kind, principal, label, created, revoked."""


class TokenRowsPort(Protocol):
    """The ``tokens`` table of a home's database."""

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
        ...

    def live(self, digest: str) -> TokenRow | None:
        """The row of the unrevoked token with ``digest``, or None."""
        ...

    def revoke(self, ident: str, when: datetime) -> TokenRow | None:
        """Mark the token ``ident`` revoked at ``when`` (if live); its row after, or None."""
        ...

    def revoke_principal(self, principal: str, when: datetime) -> int:
        """Mark every live token of ``principal`` revoked at ``when``; return how many."""
        ...

    def forget_principal(self, principal: str) -> int:
        """Delete every row of ``principal``; return how many."""
        ...

    def rows(self) -> list[TokenRow]:
        """Every row, oldest first (then by id)."""
        ...


class HomeDatabase(Protocol):
    """One database of workspaces by name, over one connection pool."""

    @property
    def where(self) -> str:
        """The database, for messages (no user or password)."""
        ...

    def init(self) -> tuple[int, int]:
        """Create or migrate the schema; return (version before, version after)."""
        ...

    def check(self) -> None:
        """Raise ``SchemaVersionError`` unless the schema is the one this reverie speaks."""
        ...

    def workspaces(self) -> list[str]:
        """The names of every workspace, sorted."""
        ...

    def exists(self, name: str) -> bool:
        """Whether there is a workspace named ``name``."""
        ...

    def drop(self, name: str) -> bool:
        """Delete workspace ``name`` with every row of it; return whether there was one."""
        ...

    def scrub(self) -> None:
        """Rewrite the tables so deleted rows' bytes leave the database's files."""
        ...

    def close(self) -> None:
        """Close every pooled connection."""
        ...
