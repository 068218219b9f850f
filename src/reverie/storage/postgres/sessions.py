"""Sessions of one workspace in PostgreSQL: one row per message, one row of state per session.

Storage model. ``sessions`` holds each session's key, times, message count, compaction mark,
compaction summary and metadata; ``messages`` holds one row per message (its JSON form, which
keeps NUL and every other character exactly, and its plain text for search).

Invariants (DESIGN.md 3 and 4, across servers).
- Appending takes the session's row lock (``UPDATE ... SET message_count = message_count + n
  RETURNING``) and inserts the rows in the same transaction: two servers appending to one
  session interleave whole messages and never share an index; persisting a message costs
  O(1) whatever the session's length. A committed append survives any client crash.
- ``load`` reads the state row and the messages in one transaction (one snapshot), so the
  mark never exceeds the messages it is read with; a mark is checked when set.
- ``redact`` (``forget``) replaces messages by tombstones in place; indices never move.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, cast

from reverie.core.clock import Clock, system_clock
from reverie.core.inbound import clean_text, json_text
from reverie.core.messages import JSONValue, Message
from reverie.core.session import CompactionSummary, Session, SessionInfo
from reverie.core.tombstones import FORGOTTEN, tombstone
from reverie.errors import DatabaseError, InputError
from reverie.storage.postgres import bulk
from reverie.storage.postgres.records import PgQuarantine
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.core.messages import JSONValue
    from reverie.storage.postgres.database import Conn, Tenant

TOMBSTONE = FORGOTTEN
"""The content of a forgotten message (the file backend's, ``reverie.core.tombstones``)."""

_STATE = "key, created_at, updated_at, message_count, compacted_upto, summary, summary_active"


def plain_text(message: Message) -> str:
    """The searchable words of a message (text parts and tool arguments), without NUL."""
    content = message.content
    if isinstance(content, str):
        text = content
    elif isinstance(content, list | tuple):
        text = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    else:
        text = ""
    text += "".join(" " + call.arguments for call in message.tool_calls)
    return text.replace("\x00", " ")


class PgSessionStore:
    """The sessions of one workspace (see the module docstring for its invariants)."""

    def __init__(self, tenant: Tenant, *, clock: Clock = system_clock) -> None:
        self._tenant = tenant
        self._clock = clock
        self._quarantine = PgQuarantine(tenant)

    @property
    def quarantine(self) -> PgQuarantine:
        """Where unreadable records would go (a transaction never leaves one)."""
        return self._quarantine

    def put(self, session: Session) -> SessionInfo:
        """Replace session ``session.key`` whole (imports), in one transaction."""
        with self._tenant.transaction() as conn:
            key = to_db(session.key)
            conn.execute(
                "DELETE FROM sessions WHERE workspace_id = %s AND key = %s", (self._tenant.id, key)
            )
            conn.execute(
                "INSERT INTO sessions (workspace_id, key, created_at, updated_at, message_count,"
                " compacted_upto, summary, summary_active, metadata)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    *(self._tenant.id, key, session.created_at, session.updated_at),
                    *(len(session.messages), session.compacted_upto),
                    *_summary_columns(session),
                    _json(dict(session.metadata)),
                ),
            )
            _insert(conn, self._tenant.id, session.key, 0, list(session.messages))
        info = self.info(session.key)
        assert info is not None, "the session was just written"
        return info

    def repair(self, key: str) -> None:
        """Nothing to repair: a transaction is whole or absent (``key`` is accepted)."""

    def close(self) -> None:
        """Nothing to release (connections belong to the database's pool)."""

    def append(self, key: str, message: Message) -> int:
        """Append one message; return its index in the session."""
        return self.append_many(key, [message]).start

    def append_many(self, key: str, messages: Iterable[Message]) -> range:
        """Append messages in one transaction; return their indices."""
        batch = list(messages)
        now = self._clock()
        with self._tenant.transaction() as conn:
            self._ensure(conn, key, now)
            row = conn.execute(
                "UPDATE sessions SET message_count = message_count + %s, updated_at = %s"
                " WHERE workspace_id = %s AND key = %s RETURNING message_count",
                (len(batch), now, self._tenant.id, to_db(key)),
            ).fetchone()
            assert row is not None, "the session row was just ensured"
            first = int(str(row[0])) - len(batch)
            _insert(conn, self._tenant.id, key, first, batch)
        return range(first, first + len(batch))

    def messages_at(self, places: Collection[tuple[str, int]]) -> dict[tuple[str, int], Message]:
        """Return the messages at these (key, index) places that exist (one query)."""
        wanted = sorted(set(places))
        if not wanted:
            return {}
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT m.session_key, m.idx, m.body FROM messages AS m"
                " JOIN unnest(%s::text[], %s::integer[]) AS w (key, idx)"
                " ON m.session_key = w.key AND m.idx = w.idx WHERE m.workspace_id = %s",
                ([to_db(key) for key, _ in wanted], [idx for _, idx in wanted], self._tenant.id),
            ).fetchall()
        return {
            (from_db(str(key)), int(str(idx))): Message.from_json(json.loads(str(body)))
            for key, idx, body in rows
        }

    def load(self, key: str) -> Session:
        """Return the whole session (an empty one when it does not exist)."""
        # One statement (so one snapshot, and one round trip): the state and every body.
        bodies = (
            "ARRAY(SELECT m.body FROM messages AS m WHERE m.workspace_id = s.workspace_id"
            " AND m.session_key = s.key ORDER BY m.idx)"
        )
        with self._tenant.transaction() as conn:
            state = self._state(conn, key, also=bodies)
        if state is None:
            now = self._clock()
            return Session(key=key, created_at=now, updated_at=now)
        created, updated, mark, summary, active, metadata, rows = state
        messages = tuple(Message.from_json(json.loads(str(body))) for body in rows)
        return Session(
            key=key,
            created_at=created,
            updated_at=updated,
            messages=messages,
            metadata=metadata,
            compacted_upto=mark,
            summary=None
            if summary is None or active is None
            else CompactionSummary(text=summary, last_active=active),
        )

    def exists(self, key: str) -> bool:
        """True when the session has been written."""
        return self.info(key) is not None

    def list(self) -> list[SessionInfo]:
        """Return every session's info, sorted by key."""
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_STATE} FROM sessions WHERE workspace_id = %s ORDER BY key",
                (self._tenant.id,),
            ).fetchall()
        return [_info(row) for row in rows]

    def info(self, key: str) -> SessionInfo | None:
        """Return one session's info, or None when it does not exist."""
        with self._tenant.transaction() as conn:
            row = conn.execute(
                f"SELECT {_STATE} FROM sessions WHERE workspace_id = %s AND key = %s",
                (self._tenant.id, to_db(key)),
            ).fetchone()
        return None if row is None else _info(row)

    def delete(self, key: str) -> bool:
        """Delete a session and its messages; True when it existed."""
        with self._tenant.transaction() as conn:
            gone = conn.execute(
                "DELETE FROM sessions WHERE workspace_id = %s AND key = %s RETURNING 1",
                (self._tenant.id, to_db(key)),
            ).fetchone()
            return gone is not None

    def set_compacted_upto(self, key: str, upto: int) -> SessionInfo:
        """Move the compaction mark (0 ≤ upto ≤ message count, checked under the row lock).

        Raises:
            InputError: ``upto`` is outside the session's messages.
        """
        with self._tenant.transaction() as conn:
            self._ensure(conn, key, self._clock())
            row = conn.execute(
                "SELECT message_count FROM sessions WHERE workspace_id = %s AND key = %s"
                " FOR UPDATE",
                (self._tenant.id, to_db(key)),
            ).fetchone()
            count = int(str(row[0])) if row else 0
            if isinstance(upto, bool) or not 0 <= upto <= count:
                raise InputError(f"compacted_upto {upto} is outside 0..{count} for {key!r}")
            return self._update(key, "compacted_upto = %s", (upto,), conn=conn)

    def set_summary(self, key: str, text: str, last_active: datetime) -> SessionInfo:
        """Store the session's compaction summary and when it was last active."""
        return self._update(
            key, "summary = %s, summary_active = %s", (to_db(clean_text(text)), last_active)
        )

    def clear_summary(self, key: str) -> SessionInfo:
        """Remove the compaction summary."""
        return self._update(key, "summary = NULL, summary_active = NULL", ())

    def update_metadata(self, key: str, values: Mapping[str, JSONValue]) -> SessionInfo:
        """Merge ``values`` into the session's metadata (read and written under its row lock)."""
        with self._tenant.transaction() as conn:
            self._ensure(conn, key, self._clock())
            row = conn.execute(
                "SELECT metadata FROM sessions WHERE workspace_id = %s AND key = %s FOR UPDATE",
                (self._tenant.id, to_db(key)),
            ).fetchone()
            merged = {**json.loads(str(row[0])), **values} if row else dict(values)
            return self._update(key, "metadata = %s", (_json(merged),), conn=conn)

    def redact(
        self,
        key: str,
        indices: Collection[int],
        *,
        summary: bool = False,
        change: Callable[[Message], Message] | None = None,
    ) -> None:
        """Replace the messages at ``indices`` by ``change`` of them.

        None: tombstones (same place, same role); ``redact_sessions`` passes their redacted
        form, kept searchable.
        """
        session = self.load(key)
        with self._tenant.transaction() as conn:
            for index in sorted(indices):
                if 0 <= index < len(session.messages):
                    old = session.messages[index]  # ids and names kept, as on files
                    new = tombstone(old) if change is None else change(old)
                    conn.execute(
                        "UPDATE messages SET body = %s, plain = %s WHERE workspace_id = %s"
                        " AND session_key = %s AND idx = %s",
                        (
                            _json(new.to_json()),
                            "" if change is None else clean_text(plain_text(new)),
                            self._tenant.id,
                            to_db(key),
                            index,
                        ),
                    )
            if summary:
                conn.execute(
                    "UPDATE sessions SET summary = NULL, summary_active = NULL"
                    " WHERE workspace_id = %s AND key = %s",
                    (self._tenant.id, to_db(key)),
                )

    def _ensure(self, conn: Conn, key: str, now: datetime) -> None:
        conn.execute(
            "INSERT INTO sessions (workspace_id, key, created_at, updated_at)"
            " VALUES (%s, %s, %s, %s) ON CONFLICT (workspace_id, key) DO NOTHING",
            (self._tenant.id, to_db(key), now, now),
        )

    def _update(
        self, key: str, assignments: str, values: Sequence[object], *, conn: Conn | None = None
    ) -> SessionInfo:
        now = self._clock()
        with contextlib.ExitStack() as stack:
            if conn is None:
                conn = stack.enter_context(self._tenant.transaction())
            self._ensure(conn, key, now)
            row = conn.execute(
                f"UPDATE sessions SET {assignments}, updated_at = %s"
                f" WHERE workspace_id = %s AND key = %s RETURNING {_STATE}",
                (*values, now, self._tenant.id, to_db(key)),
            ).fetchone()
        if row is None:
            raise DatabaseError(f"session {key!r} vanished", where=self._tenant.where)
        return _info(row)

    def _state(self, conn: Conn, key: str, *, also: str = "NULL") -> _State | None:
        """The session's state row, and the SQL ``also`` selects beside it (a literal)."""
        row = conn.execute(
            "SELECT created_at, updated_at, compacted_upto, summary, summary_active, metadata,"
            f" {also} FROM sessions AS s WHERE workspace_id = %s AND key = %s",
            (self._tenant.id, to_db(key)),
        ).fetchone()
        if row is None:
            return None
        created, updated, mark, summary, active, metadata, extra = row
        return (
            cast("datetime", created),
            cast("datetime", updated),
            int(str(mark)),
            None if summary is None else from_db(str(summary)),
            cast("datetime | None", active),
            cast("dict[str, JSONValue]", json.loads(str(metadata))),
            cast("list[object]", extra or []),
        )


_State = tuple[
    datetime, datetime, int, str | None, datetime | None, "dict[str, JSONValue]", list[object]
]
"""created, updated, compaction mark, summary, its time, metadata, and what ``also`` chose."""


def _insert(conn: Conn, workspace_id: int, key: str, first: int, batch: list[Message]) -> None:
    bulk.insert(
        conn,
        "INSERT INTO messages (workspace_id, session_key, idx, role, at, body, plain)",
        [
            (
                *(workspace_id, to_db(key), first + i, m.role, m.timestamp),
                *(_json(m.to_json()), clean_text(plain_text(m))),
            )
            for i, m in enumerate(batch)
        ],
    )


def _summary_columns(session: Session) -> tuple[str | None, datetime | None]:
    if session.summary is None:
        return (None, None)
    return (to_db(clean_text(session.summary.text)), session.summary.last_active)


def _json(value: JSONValue) -> str:
    # Stored as text, not jsonb: jsonb refuses the \\u0000 escape that json.dumps writes for NUL.
    # A lone surrogate (a reply cut inside an emoji) becomes U+FFFD, as in the folder's store:
    # it cannot be UTF-8, so the database would refuse the whole batch.
    return json_text(value)


def _info(row: Sequence[object]) -> SessionInfo:
    key, created, updated, count, mark = row[:5]
    return SessionInfo(
        key=from_db(str(key)),
        created_at=cast("datetime", created),
        updated_at=cast("datetime", updated),
        message_count=int(str(count)),
        compacted_upto=int(str(mark)),
        size=0,
    )
