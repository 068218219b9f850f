"""The index's items as rows: what a history entry or a message becomes, written in batches.

An item is one row of ``docs`` and, under the same rowid, its segmented text in ``fts``, its
context in ``ctx`` (messages) and its CJK pairs in ``grams`` (see ``index_file``). Writes and
deletes here touch all four tables together, inside the caller's transaction; nothing here
commits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from reverie.core.clock import parse_wall_clock
from reverie.core.text import CONTEXT_CHARS, cjk_pairs, segment

if TYPE_CHECKING:
    from reverie.core.entries import HistoryEntry
    from reverie.core.messages import Message

Row = tuple[str, int | None, str | None, int | None, str | None, float | None, str, str]
"""kind, cursor, session_key, position, role, ts, body, context."""


def insert_rows(conn: sqlite3.Connection, rows: Iterable[Row]) -> tuple[int, int | None]:
    """Insert items; return how many and the last history cursor among them (None if none)."""
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
    count, last_cursor = 0, None
    batch: list[Row] = []
    for row in rows:
        batch.append(row)
        if row[1] is not None:
            last_cursor = row[1]
        if len(batch) >= 1000:
            _write_batch(conn, next_id + count, batch)
            count += len(batch)
            batch = []
    _write_batch(conn, next_id + count, batch)
    return count + len(batch), last_cursor


def _write_batch(conn: sqlite3.Connection, first_id: int, batch: list[Row]) -> None:
    conn.executemany(
        "INSERT INTO docs(id, kind, cursor, session_key, position, role, ts)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(first_id + offset, *row[:6]) for offset, row in enumerate(batch)],
    )
    conn.executemany(
        "INSERT INTO fts(rowid, body) VALUES (?, ?)",
        [(first_id + offset, segment(row[6])) for offset, row in enumerate(batch)],
    )
    pairs = ((first_id + offset, cjk_pairs(row[6])) for offset, row in enumerate(batch))
    conn.executemany("INSERT INTO grams(rowid, pairs) VALUES (?, ?)", [p for p in pairs if p[1]])
    conn.executemany(
        "INSERT INTO ctx(rowid, context) VALUES (?, ?)",
        [(first_id + offset, segment(row[7])) for offset, row in enumerate(batch) if row[7]],
    )


def delete_items(conn: sqlite3.Connection, where: str, args: tuple[str, ...]) -> int:
    """Delete the items ``where`` selects from every table; return how many."""
    ids = f"SELECT id FROM docs WHERE {where}"  # noqa: S608 -- ``where`` is one of two literals
    conn.execute(f"DELETE FROM fts WHERE rowid IN ({ids})", args)  # noqa: S608
    conn.execute(f"DELETE FROM ctx WHERE rowid IN ({ids})", args)  # noqa: S608
    conn.execute(f"DELETE FROM grams WHERE rowid IN ({ids})", args)  # noqa: S608
    return conn.execute(f"DELETE FROM docs WHERE {where}", args).rowcount  # noqa: S608


def history_rows(entries: Iterator[HistoryEntry]) -> Iterator[Row]:
    """The rows of history entries."""
    for entry in entries:
        moment = entry.time or _nanobot_time(entry.timestamp)
        ts = moment.timestamp() if moment is not None else None
        yield ("history", entry.cursor, entry.session_key, None, None, ts, entry.content, "")


def message_row(key: str, index: int, message: Message, body: str, before: str) -> Row:
    """The row of message ``index`` of session ``key`` (``before``: the previous body)."""
    moment = message.timestamp
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    ts = moment.timestamp() if moment is not None else None
    return ("message", None, key, index, message.role, ts, body, before[-CONTEXT_CHARS:])


def _nanobot_time(text: str) -> datetime | None:
    """Parse nanobot's local ``YYYY-MM-DD HH:MM`` (entries written before reverie's ``time``)."""
    return parse_wall_clock(text)
