"""What the session store holds on disk, as bytes: the database's rows; an older database."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from reverie import Message
from reverie.storage.folder import layout
from reverie.storage.folder.session_records import MessageRecord, encode

OLD_SCHEMA = """
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL, messages INTEGER NOT NULL DEFAULT 0, mark INTEGER NOT NULL DEFAULT 0,
  summary TEXT, metadata TEXT NOT NULL DEFAULT '{}', size INTEGER NOT NULL DEFAULT 0,
  generation TEXT NOT NULL);
CREATE TABLE messages(
  session INTEGER NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY(session, idx));
"""
"""The sessions database as reverie wrote it before the change sequence."""

_AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def stored_session_bytes(root: Path) -> bytes:
    """Every message body and state column of the sessions database."""
    parts: list[bytes] = []
    database = root / layout.SESSIONS_DB
    if database.exists():
        with closing(sqlite3.connect(database)) as conn:
            rows = conn.execute("SELECT body FROM messages ORDER BY session, idx").fetchall()
            rows += conn.execute(
                "SELECT metadata || coalesce(summary, '') FROM sessions"
            ).fetchall()
        parts += [str(value).encode("utf-8") + b"\n" for (value,) in rows]
    return b"".join(parts)


def write_old_database(database: Path, sessions: dict[str, list[str]]) -> None:
    """Write ``database`` as an older reverie did (``OLD_SCHEMA``): user messages by key."""
    database.parent.mkdir(parents=True, exist_ok=True)
    stamp = _AT.isoformat()
    with closing(sqlite3.connect(database)) as conn, conn:
        conn.executescript(OLD_SCHEMA)
        for number, (key, texts) in enumerate(sessions.items(), start=1):
            bodies = [
                encode(MessageRecord(at=_AT, message=Message(role="user", content=text)))
                for text in texts
            ]
            conn.execute(
                "INSERT INTO sessions(id, key, created_at, updated_at, messages, size,"
                " generation) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (number, key, stamp, stamp, len(bodies), sum(map(len, bodies)), f"g{number}"),
            )
            conn.executemany(
                "INSERT INTO messages(session, idx, body) VALUES (?, ?, ?)",
                [(number, idx, body.decode("utf-8")) for idx, body in enumerate(bodies)],
            )
