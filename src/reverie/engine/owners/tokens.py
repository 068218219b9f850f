"""Credentials: the tokens that decide whose memory a request reaches.

Three kinds of grant:

- ``principal``: the token of one principal; it reaches that principal's memory and no
  other, whatever the request says;
- ``app``: the token of a trusted backend that serves many end users; each request names the
  principal (the OpenAI ``user`` field, or the ``X-Reverie-Principal`` header);
- ``admin``: an app token that may also list the principals (the viewer's principal list).

A token is shown once, when it is made (``issue``), and stored only as its SHA-256 digest:
the book on disk cannot be replayed as credentials. (A fast digest is right here: a token is
32 random bytes, so there is nothing to guess; a password would need a slow hash.) Each
token has a short public id (the first 12 hex digits of its digest) to list and revoke it by.

``SqliteTokenBook`` keeps a folder home's book in ``.home/tokens.sqlite3`` (WAL, so several
server processes share it), ``database_tokens.DatabaseTokenBook`` a database home's in its
``tokens`` table; ``check`` reads the book every time, so a revoked token stops working at
once in every process. ``forget_principal`` deletes a deleted principal's rows.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol

from reverie.engine.owners.names import check_principal
from reverie.errors import InputError, StorageError

GrantKind = Literal["principal", "app", "admin"]
KINDS: tuple[GrantKind, ...] = ("principal", "app", "admin")
_PREFIX: dict[GrantKind, str] = {"principal": "rvp_", "app": "rva_", "admin": "rvx_"}
ID_DIGITS = 12


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    """What one token allows: its kind and, for a principal token, whose memory."""

    id: str
    kind: GrantKind
    principal: str | None
    label: str
    created: datetime
    revoked: datetime | None = None


def digest(token: str) -> str:
    """The stored form of ``token``: its SHA-256 in hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token(kind: GrantKind) -> str:
    """A fresh random token of ``kind`` (its prefix says the kind, for people reading it)."""
    return _PREFIX[kind] + secrets.token_urlsafe(32)


class TokenBook(Protocol):
    """The grants of one home."""

    def issue(self, kind: GrantKind, *, principal: str | None = None, label: str = "") -> str:
        """Make a token; return its text (the only time it is shown)."""
        ...

    def check(self, token: str) -> Grant | None:
        """The live grant of ``token``, or None (unknown or revoked)."""
        ...

    def revoke(self, token_id: str) -> Grant:
        """Revoke the token whose public id is ``token_id``; raise InputError if none."""
        ...

    def grants(self) -> list[Grant]:
        """Every grant, revoked ones included, oldest first."""
        ...

    def revoke_principal(self, principal: str) -> int:
        """Revoke every token of ``principal``; return how many."""
        ...

    def forget_principal(self, principal: str) -> int:
        """Delete every token of ``principal`` (revoked ones too); return how many.

        For a deleted principal: no row of the book names it afterwards.
        """
        ...


def checked_grant(kind: str, principal: str | None) -> tuple[GrantKind, str | None]:
    """Validate a grant's kind and principal (a principal token names one, no other does)."""
    if kind not in KINDS:
        raise InputError(f"token kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind == "principal":
        if principal is None:
            raise InputError("a principal token names its principal")
        return "principal", check_principal(principal)
    if principal is not None:
        raise InputError(f"an {kind} token names no principal (each request names one)")
    return kind, None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    principal TEXT,
    label TEXT NOT NULL,
    created TEXT NOT NULL,
    revoked TEXT
)
"""


class SqliteTokenBook:
    """A folder home's tokens, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open the token book ({exc})", path=self.path) from exc
        return conn

    def issue(self, kind: GrantKind, *, principal: str | None = None, label: str = "") -> str:
        """Make a token of ``kind`` (for ``principal``); return its text."""
        kind, principal = checked_grant(kind, principal)
        token = new_token(kind)
        hashed = digest(token)
        now = datetime.now(UTC).isoformat()
        with closing(self._connect()) as conn:
            conn.execute(
                "INSERT INTO tokens (id, digest, kind, principal, label, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (hashed[:ID_DIGITS], hashed, kind, principal, label, now),
            )
        return token

    def check(self, token: str) -> Grant | None:
        """The live grant of ``token``, or None."""
        if not token:
            return None
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT id, kind, principal, label, created, revoked FROM tokens"
                " WHERE digest = ? AND revoked IS NULL",
                (digest(token),),
            ).fetchone()
        return None if row is None else _grant(row)

    def revoke(self, token_id: str) -> Grant:
        """Revoke the token ``token_id`` names (its public id)."""
        now = datetime.now(UTC).isoformat()
        with closing(self._connect()) as conn:
            conn.execute(
                "UPDATE tokens SET revoked = ? WHERE id = ? AND revoked IS NULL", (now, token_id)
            )
            row = conn.execute(
                "SELECT id, kind, principal, label, created, revoked FROM tokens WHERE id = ?",
                (token_id,),
            ).fetchone()
        if row is None:
            raise InputError(f"no token with id {token_id!r} (`reverie token list` names them)")
        return _grant(row)

    def revoke_principal(self, principal: str) -> int:
        """Revoke every live token of ``principal``."""
        now = datetime.now(UTC).isoformat()
        with closing(self._connect()) as conn:
            cursor = conn.execute(
                "UPDATE tokens SET revoked = ? WHERE principal = ? AND revoked IS NULL",
                (now, principal),
            )
            return cursor.rowcount

    def forget_principal(self, principal: str) -> int:
        """Delete every token of ``principal``, leaving none of its bytes in the file.

        ``secure_delete`` overwrites the freed pages with zeros and the checkpoint empties the
        write-ahead log, which would otherwise keep the deleted rows' old pages.
        """
        with closing(self._connect()) as conn:
            conn.execute("PRAGMA secure_delete=ON")
            cursor = conn.execute("DELETE FROM tokens WHERE principal = ?", (principal,))
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return cursor.rowcount

    def grants(self) -> list[Grant]:
        """Every grant, oldest first."""
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT id, kind, principal, label, created, revoked FROM tokens"
                " ORDER BY created, id"
            ).fetchall()
        return [_grant(row) for row in rows]


def _grant(row: tuple[str, str, str | None, str, str, str | None]) -> Grant:
    ident, kind, principal, label, created, revoked = row
    checked, _ = checked_grant(kind, principal if kind == "principal" else None)
    return Grant(
        id=ident,
        kind=checked,
        principal=principal,
        label=label,
        created=datetime.fromisoformat(created),
        revoked=datetime.fromisoformat(revoked) if revoked else None,
    )
