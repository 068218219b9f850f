"""The session store: sessions in one SQLite database in WAL mode, ``.reverie/sessions.sqlite3``.

Storage model. Table ``sessions`` holds one row per conversation: key, times, message count,
compaction mark, summary, metadata, a byte counter (``size``) and a generation id. Table
``messages`` holds one row per message, keyed by (session, index); its body is one JSON line
(``session_records.encode``).

Invariants.
- Every write is one transaction opened with ``BEGIN IMMEDIATE`` (``sessions_db``): SQLite's
  write lock is the lock across threads and processes, so concurrent appenders interleave
  whole transactions and each keeps its order. A message's index is the row's count read
  inside the transaction, never a cached one, so a stale process cannot overwrite anything.
- WAL with ``synchronous=NORMAL``: when a write returns, its transaction is in the WAL, so a
  SIGKILL afterwards loses nothing, and a kill during a transaction leaves the state before
  it (no torn lines, temp files or snapshots exist). A power cut may lose the last
  transactions but never corrupts the file: the promise of an unsynced journal append.
- ``size`` grows with every write of a session (``put`` and ``redact`` included), so a
  reader that remembers (count, size) sees every change.
- Every change of a session row (and every deletion) takes the next number of the
  database's change sequence inside its transaction (``session_changes``: triggers, so any
  writer does), so a reader asks "what changed after number N" in time proportional to the
  answer.
- ``generation`` changes whenever rows are replaced (``put``, ``redact``, a re-created
  session): ``load`` keeps the last replays (``replays``: up to 32 million characters of
  decoded messages over the sessions used last) and, while the generation holds, reads only
  the rows past them, so a turn's loads cost O(new messages).
- ``redact`` runs with ``secure_delete`` and truncates the WAL afterwards, so no byte of a
  forgotten message is left in the database or its WAL.
- Opening a workspace creates nothing: the database appears with the first write; reads of
  a workspace without one see no sessions.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.core.clock import Clock, require_aware
from reverie.core.inbound import check_session_key, json_text
from reverie.core.session import CompactionSummary, Session, SessionInfo, safe_mark
from reverie.core.tombstones import tombstone
from reverie.errors import InputError, StorageError
from reverie.storage.folder import layout, raw_transcripts
from reverie.storage.folder.quarantine import Quarantine
from reverie.storage.folder.replays import Replay, Replays
from reverie.storage.folder.session_records import MessageRecord, encode
from reverie.storage.folder.sessions_db import SessionsDatabase
from reverie.storage.folder.sessions_sql import (
    ROW,
    Row,
    message_of,
    select,
    summary_json,
    summary_of,
    tombstone_rows,
    update,
)

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject, JSONValue, Message

DATABASE = Path(layout.SESSIONS_DB).name
"""The database's file name inside ``.reverie/``."""


class SqliteSessionStore:
    """The session store's interface over one SQLite database (see the module docstring)."""

    def __init__(
        self, directory: Path, *, state_dir: Path, clock: Clock, replays: Replays | None = None
    ) -> None:
        self.directory = directory
        """``sessions/``, where an older reverie kept journals (``doctor`` still looks)."""
        self.database = state_dir / DATABASE
        self.quarantine = Quarantine(state_dir / "sessions.quarantine.jsonl")
        self._clock = clock
        self._db = SessionsDatabase(self.database)
        self._write = self._db.write
        self._read = self._db.read
        self._replays = replays if replays is not None else Replays()

    def append(self, key: str, message: Message) -> int:
        """Persist one message at the end of session ``key`` (created if new); its index."""
        return self.append_many(key, (message,)).start

    def append_many(self, key: str, messages: Iterable[Message]) -> range:
        """Persist several messages, in order, in one transaction; return their indices."""
        at = self._now()
        bodies = [encode(MessageRecord(at=at, message=m)).decode("utf-8") for m in messages]
        with self._write() as conn:
            found = conn.execute("SELECT id, messages FROM sessions WHERE key = ?", (key,))
            ident, first = found.fetchone() or self._new_row(conn, key, at)
            conn.executemany(
                "INSERT INTO messages(session, idx, body) VALUES (?, ?, ?)",
                [(ident, first + n, body) for n, body in enumerate(bodies)],
            )
            grown = sum(len(body) for body in bodies)
            conn.execute(
                "UPDATE sessions SET messages = ?, updated_at = ?, size = size + ? WHERE id = ?",
                (first + len(bodies), at.isoformat(), grown, ident),
            )
        return range(first, first + len(bodies))

    def messages_at(self, places: Collection[tuple[str, int]]) -> dict[tuple[str, int], Message]:
        """Return the messages at these (key, index) places that exist (each session read once)."""
        found: dict[tuple[str, int], Message] = {}
        for key in sorted({key for key, _ in places}):
            messages = self.load(key).messages
            found.update(
                {(k, i): messages[i] for k, i in places if k == key and 0 <= i < len(messages)}
            )
        return found

    def load(self, key: str) -> Session:
        """Return session ``key`` as stored now (an empty, unsaved session if there is none)."""
        check_session_key(key)
        with self._read() as conn:
            row = select(conn, key) if conn is not None else None
            if conn is None or row is None:
                self._replays.drop(key)
                now = self._now()
                return Session(key=key, created_at=now, updated_at=now)
            messages = self._messages(conn, row)
        return Session(
            key=key,
            created_at=row.created_at,
            updated_at=row.updated_at,
            messages=messages,
            metadata=json.loads(row.metadata),
            compacted_upto=safe_mark(row.mark, row.messages) or 0,
            summary=summary_of(row.summary),
        )

    def exists(self, key: str) -> bool:
        """Return whether session ``key`` has been written."""
        check_session_key(key)
        with self._read() as conn:
            return conn is not None and select(conn, key) is not None

    def list(self) -> list[SessionInfo]:
        """Return every session's key, times, message count, mark and size, sorted by key."""
        with self._read() as conn:
            if conn is None:
                return []
            rows = conn.execute(f"SELECT {ROW} FROM sessions ORDER BY key").fetchall()  # noqa: S608
        return [Row.of(row).info() for row in rows]

    def info(self, key: str) -> SessionInfo | None:
        """What ``list()`` reports about one session (None: no such session)."""
        check_session_key(key)
        with self._read() as conn:
            row = select(conn, key) if conn is not None else None
        return None if row is None else row.info()

    def delete(self, key: str) -> bool:
        """Delete session ``key``; return whether it existed."""
        check_session_key(key)
        with self._write() as conn:
            row = select(conn, key)
            if row is not None:
                raw_transcripts.drop(conn, row.id)
                conn.execute("DELETE FROM messages WHERE session = ?", (row.id,))
                conn.execute("DELETE FROM sessions WHERE id = ?", (row.id,))
        self._replays.drop(key)
        return row is not None

    def set_compacted_upto(self, key: str, upto: int) -> SessionInfo:
        """Set the compaction mark of session ``key`` (ValueError outside 0..count)."""
        at = self._now()
        with self._write() as conn:
            row = self._row_for_write(conn, key, at)
            if safe_mark(upto, row.messages) is None:
                raise InputError(f"mark {upto!r} is outside 0..{row.messages}")
            return update(conn, row, at, mark=upto)

    def set_summary(self, key: str, text: str, last_active: datetime) -> SessionInfo:
        """Record the latest compaction summary of session ``key``."""
        summary = CompactionSummary(text=text, last_active=require_aware(last_active))
        return self._set(key, summary=summary_json(summary))

    def clear_summary(self, key: str) -> SessionInfo:
        """Forget the compaction summary of session ``key`` (once it has been shown)."""
        return self._set(key, summary=None)

    def update_metadata(self, key: str, values: Mapping[str, JSONValue]) -> SessionInfo:
        """Merge ``values`` into the metadata of session ``key`` (other keys are kept)."""
        at = self._now()
        with self._write() as conn:
            row = self._row_for_write(conn, key, at)
            merged: JSONObject = {**json.loads(row.metadata), **values}
            return update(conn, row, at, metadata=json_text(merged))

    def put(self, session: Session) -> SessionInfo:
        """Replace session ``session.key`` with ``session`` in one transaction (imports)."""
        at = session.updated_at
        bodies = [encode(MessageRecord(at=at, message=m)).decode("utf-8") for m in session.messages]
        summary = session.summary
        with self._write() as conn:
            row = self._row_for_write(conn, session.key, session.created_at)
            raw_transcripts.drop(conn, row.id)
            conn.execute("DELETE FROM messages WHERE session = ?", (row.id,))
            conn.executemany(
                "INSERT INTO messages(session, idx, body) VALUES (?, ?, ?)",
                [(row.id, n, body) for n, body in enumerate(bodies)],
            )
            return update(
                conn,
                row,
                at,
                created_at=session.created_at.isoformat(),
                messages=len(bodies),
                mark=session.compacted_upto,
                summary=None if summary is None else summary_json(summary),
                metadata=json_text(dict(session.metadata)),
                grown=sum(len(body) for body in bodies),
                generation=secrets.token_hex(8),
            )

    def repair(self, key: str) -> None:
        """Nothing to repair: a transaction is whole or absent (``SessionsPort`` asks for it)."""
        check_session_key(key)

    def redact(
        self,
        key: str,
        indices: Collection[int],
        *,
        summary: bool = False,
        change: Callable[[Message], Message] | None = None,
    ) -> None:
        """Replace the messages at ``indices`` by ``change`` of them.

        None: tombstones (``forget``, see ``redaction``); ``redact_sessions`` passes their
        redacted form.
        """
        at = self._now()
        with self._write() as conn:
            row = select(conn, key)
            if row is None:
                return
            conn.execute("PRAGMA secure_delete = ON")
            raw_transcripts.drop(conn, row.id, indices)
            grown = tombstone_rows(conn, row, indices, change or tombstone)
            update(
                conn,
                row,
                at,
                grown=grown,
                generation=secrets.token_hex(8),
                **({"summary": None} if summary else {}),
            )
        self._replays.drop(key)
        with self._db.lock:
            try:  # the old bytes leave the WAL too; written already, so failing here loses none
                self._db.connect().execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StorageError(
                    f"cannot checkpoint sessions ({exc})", path=self.database
                ) from exc

    def keep_raw(self, key: str, raws: Mapping[int, Message]) -> None:
        """Keep the raw form of these messages of session ``key`` (see ``raw_transcripts``)."""
        if not raws:
            return
        with self._write() as conn:
            row = select(conn, key)
            if row is not None:
                raw_transcripts.keep(conn, row.id, raws)

    def raw_messages(self, key: str) -> dict[int, Message]:
        """The raw messages kept for session ``key``, by index (empty: none)."""
        with self._read() as conn:
            row = None if conn is None else select(conn, key)
            return {} if conn is None or row is None else raw_transcripts.raw_of(conn, row.id)

    def close(self) -> None:
        """Close the database connection (the store may be used again: it reopens)."""
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the database (committed on exit; used by the migration)."""
        with self._write() as conn:
            yield conn

    @staticmethod
    def has_row(conn: sqlite3.Connection, key: str) -> bool:
        """Whether session ``key`` has a row (inside ``transaction``)."""
        return select(conn, key) is not None

    def _now(self) -> datetime:
        return require_aware(self._clock())

    def _set(self, key: str, **values: object) -> SessionInfo:
        at = self._now()
        with self._write() as conn:
            return update(conn, self._row_for_write(conn, key, at), at, **values)

    def _row_for_write(self, conn: sqlite3.Connection, key: str, at: datetime) -> Row:
        check_session_key(key)
        row = select(conn, key)
        if row is not None:
            return row
        stamp = at.isoformat()
        conn.execute(
            "INSERT INTO sessions(key, created_at, updated_at, generation) VALUES (?, ?, ?, ?)",
            (key, stamp, stamp, secrets.token_hex(8)),
        )
        found = select(conn, key)
        assert found is not None
        return found

    def _new_row(self, conn: sqlite3.Connection, key: str, at: datetime) -> tuple[int, int]:
        row = self._row_for_write(conn, key, at)
        return row.id, row.messages

    def _messages(self, conn: sqlite3.Connection, row: Row) -> tuple[Message, ...]:
        kept = self._replays.get(row.key)
        if kept is None or kept.generation != row.generation or len(kept.messages) > row.messages:
            kept = Replay(row.generation, (), 0)
        bodies = conn.execute(
            "SELECT body FROM messages WHERE session = ? AND idx >= ? ORDER BY idx",
            (row.id, len(kept.messages)),
        ).fetchall()
        messages = kept.messages + tuple(message_of(body) for (body,) in bodies)
        grown = sum(len(body) for (body,) in bodies)
        self._replays.put(row.key, Replay(row.generation, messages, kept.size + grown))
        return messages


SessionStore = SqliteSessionStore
"""The folder's session store by its short name (the folder modules type against it)."""
