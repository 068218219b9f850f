"""What the session store holds on disk, as bytes: the database's rows."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from reverie.storage.folder import layout


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
