"""Raw transcripts: what was said before its secrets were redacted, kept only on opt-in.

By default a session keeps what was said with every secret redacted (``core.inbound.admit``),
and nothing else keeps more. An owner who opts in (``[sessions] raw_transcripts = true``)
also keeps the raw text of each message a secret was redacted from, in the ``raw_messages``
table of the same session database, keyed by the session's row and the message's index.

Invariants.
- The ``messages`` table stays redacted: every reader of the session store (search index,
  vectors, recall, MCP, the viewer, exports, compaction and so history and the ledger, other
  sessions' prompts) reads it and never this table. Only ``raw_of`` reads it, for the
  session's own prompt and the owner's ``reverie session KEY --raw``.
- A raw row never outlives its message: ``SessionsPort.redact`` (forget, scrub), ``delete``
  and ``put`` drop the rows of the messages they replace, in the same transaction (with
  ``secure_delete``, as forget runs).
- Only messages that differ from their redacted form get a row: the table holds secrets and
  nothing else worth keeping twice.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping

from reverie.core.messages import Message

SCHEMA = """
CREATE TABLE IF NOT EXISTS raw_messages(
  session INTEGER NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY(session, idx));
"""


def keep(conn: sqlite3.Connection, session: int, raws: Mapping[int, Message]) -> None:
    """Store the raw form of the messages at these indices of session row ``session``."""
    conn.execute(SCHEMA)
    conn.executemany(
        "INSERT OR REPLACE INTO raw_messages(session, idx, body) VALUES (?, ?, ?)",
        [(session, index, json.dumps(m.to_json())) for index, m in raws.items()],
    )


def raw_of(conn: sqlite3.Connection, session: int) -> dict[int, Message]:
    """The raw messages of session row ``session`` by index (empty: none kept)."""
    if not _exists(conn):
        return {}
    rows = conn.execute(
        "SELECT idx, body FROM raw_messages WHERE session = ?", (session,)
    ).fetchall()
    return {int(index): Message.from_json(json.loads(body)) for index, body in rows}


def drop(conn: sqlite3.Connection, session: int, indices: Collection[int] | None = None) -> None:
    """Delete the raw rows of these indices of session row ``session`` (None: all of them)."""
    if not _exists(conn):
        return
    if indices is None:
        conn.execute("DELETE FROM raw_messages WHERE session = ?", (session,))
        return
    conn.executemany(
        "DELETE FROM raw_messages WHERE session = ? AND idx = ?",
        [(session, index) for index in indices],
    )


def _exists(conn: sqlite3.Connection) -> bool:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'raw_messages'"
    ).fetchone()
    return found is not None
