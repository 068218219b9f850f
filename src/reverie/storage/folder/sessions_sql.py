"""The SQL of the SQLite session store: schema, row values and the statements it runs.

Every function here runs inside a transaction its caller opened (``SqliteSessionStore``) and
commits nothing (``prepare`` sets up a new connection). Message bodies are journal lines
(``session_records``), so a body read here parses exactly as a journal line does. This module
does no I/O beyond the connection.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reverie.core.inbound import json_text
from reverie.core.messages import Message
from reverie.core.session import CompactionSummary, Session, SessionInfo, safe_mark
from reverie.core.tombstones import tombstone
from reverie.storage.folder import session_changes
from reverie.storage.folder.session_records import MessageRecord, encode, parse, parse_time

SCHEMA = (
    (
        "CREATE TABLE IF NOT EXISTS sessions("
        " id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL, messages INTEGER NOT NULL DEFAULT 0,"
        " mark INTEGER NOT NULL DEFAULT 0, summary TEXT, metadata TEXT NOT NULL DEFAULT '{}',"
        " size INTEGER NOT NULL DEFAULT 0, generation TEXT NOT NULL,"
        " changed INTEGER NOT NULL DEFAULT 0)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS messages("
        " session INTEGER NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL,"
        " PRIMARY KEY(session, idx))"
    ),
)
"""The tables; ``session_changes`` adds what numbers their changes (``changed`` included)."""
ROW = "id, key, created_at, updated_at, messages, mark, summary, metadata, size, generation"


def prepare(conn: sqlite3.Connection, *, patience: float = 60.0) -> None:
    """Put a new connection in WAL mode and make sure the schema exists, upgraded.

    Switching a database to WAL takes a lock SQLite does not wait for (the busy timeout does
    not cover it), so two processes opening a new workspace at the same instant could see
    "database is locked": such a failure is retried, with a growing pause, for ``patience``
    seconds. Every statement here is safe to run again.
    """
    deadline = time.monotonic() + patience
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            for statement in SCHEMA:
                conn.execute(statement)
            session_changes.prepare(conn)  # an older database gains its change sequence
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One row of ``sessions``, its times parsed."""

    id: int
    key: str
    created_at: datetime
    updated_at: datetime
    messages: int
    mark: int
    summary: str | None
    metadata: str
    size: int
    generation: str

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> Row:
        """The row from the columns of ``ROW``, in order."""
        ident, key, created, updated, count, mark, summary, metadata, size, generation = row
        return cls(
            id=ident,
            key=key,
            created_at=parse_time(created),
            updated_at=parse_time(updated),
            messages=count,
            mark=mark,
            summary=summary,
            metadata=metadata,
            size=size,
            generation=generation,
        )

    def info(self) -> SessionInfo:
        """What ``list()`` reports (a corrupt mark reads as 0)."""
        return SessionInfo(
            key=self.key,
            created_at=self.created_at,
            updated_at=self.updated_at,
            message_count=self.messages,
            compacted_upto=safe_mark(self.mark, self.messages) or 0,
            size=self.size,
        )


def select(conn: sqlite3.Connection, key: str) -> Row | None:
    """The row of session ``key`` (None: no such session)."""
    found = conn.execute(f"SELECT {ROW} FROM sessions WHERE key = ?", (key,)).fetchone()  # noqa: S608
    return None if found is None else Row.of(found)


def update(conn: sqlite3.Connection, row: Row, at: datetime, **values: object) -> SessionInfo:
    """Set ``values`` (columns) and ``updated_at`` on ``row``; return the new info."""
    grown = values.pop("grown", 0)
    values["updated_at"] = at.isoformat()
    columns = ", ".join(f"{name} = ?" for name in values)
    conn.execute(
        f"UPDATE sessions SET {columns}, size = size + ? + 1 WHERE id = ?",  # noqa: S608
        (*values.values(), grown, row.id),
    )
    found = select(conn, row.key)
    assert found is not None
    return found.info()


def tombstone_rows(
    conn: sqlite3.Connection,
    row: Row,
    indices: Collection[int],
    change: Callable[[Message], Message] = tombstone,
) -> int:
    """Replace the messages at ``indices`` by ``change`` of them; return the bytes written."""
    grown = 0
    for index in sorted(set(indices)):
        found = conn.execute(
            "SELECT body FROM messages WHERE session = ? AND idx = ?", (row.id, index)
        ).fetchone()
        if found is None:
            continue
        record = parse(found[0].encode("utf-8"))
        assert isinstance(record, MessageRecord)
        body = encode(MessageRecord(at=record.at, message=change(record.message)))
        conn.execute(
            "UPDATE messages SET body = ? WHERE session = ? AND idx = ?",
            (body.decode("utf-8"), row.id, index),
        )
        grown += len(body)
    return grown


def message_of(body: str) -> Message:
    r"""The message a body (a journal ``msg`` line) holds.

    A body without a ``\\u`` escape (every body this store writes: it stores UTF-8 text, and
    a lone surrogate was replaced before) is read directly; any other goes through
    ``session_records.parse``, which repairs escaped surrogates and names what is wrong.
    """
    if "\\u" not in body:
        try:
            return Message.from_json(json.loads(body)["m"])
        except (ValueError, KeyError, TypeError):
            pass  # parse() below says what is wrong
    record = parse(body.encode("utf-8"))
    assert isinstance(record, MessageRecord)
    return record.message


def summary_json(summary: CompactionSummary) -> str:
    """The ``summary`` column's text for ``summary``."""
    return json_text({"text": summary.text, "last_active": summary.last_active.isoformat()})


def summary_of(text: str | None) -> CompactionSummary | None:
    """The summary a ``summary`` column holds (None: none)."""
    if text is None:
        return None
    value = json.loads(text)
    return CompactionSummary(text=value["text"], last_active=parse_time(value["last_active"]))


def insert_session(
    conn: sqlite3.Connection, session: Session, bodies: Sequence[str], generation: str
) -> None:
    """Insert a new row for ``session`` with ``bodies``, its messages' journal lines verbatim."""
    summary = session.summary
    conn.execute(
        "INSERT INTO sessions(key, created_at, updated_at, messages, mark, summary, metadata,"
        " size, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session.key,
            session.created_at.isoformat(),
            session.updated_at.isoformat(),
            len(bodies),
            session.compacted_upto,
            None if summary is None else summary_json(summary),
            json_text(dict(session.metadata)),
            sum(len(body) for body in bodies),
            generation,
        ),
    )
    found = select(conn, session.key)
    assert found is not None
    conn.executemany(
        "INSERT INTO messages(session, idx, body) VALUES (?, ?, ?)",
        [(found.id, index, body) for index, body in enumerate(bodies)],
    )
