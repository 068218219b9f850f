"""What the index remembers of its sources, in its own file, and how it reads that back.

``meta`` holds the history log's device, inode and size and the last cursor indexed, and the
sessions watermark the index caught up to (``StoreState.Watermark``: the sessions database's
inode, epoch and last change number; absent when the sessions were not caught up that way).
``marks`` holds, per session, how many messages are indexed, the size seen, and a
fingerprint or the store's generation. Every function runs inside its caller's transaction
(or its implicit one) and commits nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.storage.folder.index.store_state import Counts, Watermark

if TYPE_CHECKING:
    from reverie.storage.folder.history import HistoryLog


@dataclass(frozen=True, slots=True, kw_only=True)
class Mark:
    """What the index remembers of one session."""

    messages: int
    size: int
    fingerprint: str
    generation: str | None = None


def log_mark(log: HistoryLog) -> tuple[int, int, int]:
    """The log's device, inode and size now ((0, 0, 0) when there is no log)."""
    try:
        status = log.path.stat()
    except FileNotFoundError:
        return 0, 0, 0
    return status.st_dev, status.st_ino, status.st_size


def every_mark(conn: sqlite3.Connection) -> Counts:
    """Every mark's (message count, size) by session key, as plain tuples."""
    rows = conn.execute("SELECT session_key, messages, size FROM marks").fetchall()
    return {key: (n, size) for key, n, size in rows}


def read_mark(conn: sqlite3.Connection, key: str) -> Mark | None:
    """Session ``key``'s mark (None: none)."""
    sql = "SELECT messages, size, fingerprint, generation FROM marks WHERE session_key = ?"
    row = conn.execute(sql, (key,)).fetchone()
    if row is None:
        return None
    return Mark(messages=row[0], size=row[1], fingerprint=row[2], generation=row[3])


def counts_of(conn: sqlite3.Connection, keys: Iterable[str]) -> Counts:
    """The marks' (message count, size) of these keys that have one."""
    sql = "SELECT messages, size FROM marks WHERE session_key = ?"
    found = ((key, conn.execute(sql, (key,)).fetchone()) for key in keys)
    return {key: (row[0], row[1]) for key, row in found if row is not None}


WATERMARK = ("sessions_inode", "sessions_epoch", "sessions_changes")
"""The ``meta`` names of the sessions watermark the index caught up to."""


def meta_marks(conn: sqlite3.Connection) -> tuple[tuple[int, int, int], Watermark | None]:
    """What the index last saw of its sources, in one query.

    The log's device, inode and size (-1 each when unknown), and the sessions watermark it
    caught up to (None: none).
    """
    names = ("history_dev", "history_inode", "history_size", *WATERMARK)
    rows = conn.execute(
        f"SELECT name, value FROM meta WHERE name IN ({', '.join('?' for _ in names)})",  # noqa: S608
        names,
    )
    seen = {name: int(value) for name, value in rows}
    dev, inode, size = (seen.get(name, -1) for name in names[:3])
    if any(name not in seen for name in WATERMARK):
        return (dev, inode, size), None
    file, epoch, value = (seen[name] for name in WATERMARK)
    return (dev, inode, size), Watermark(inode=file, epoch=epoch, value=value)


def set_watermark(conn: sqlite3.Connection, watermark: Watermark | None) -> None:
    """Remember how far the sessions were caught up (None: forget it, compare in full next)."""
    if watermark is None:
        conn.executemany("DELETE FROM meta WHERE name = ?", [(name,) for name in WATERMARK])
        return
    values = (watermark.inode, watermark.epoch, watermark.value)
    conn.executemany(
        "INSERT OR REPLACE INTO meta(name, value) VALUES (?, ?)",
        zip(WATERMARK, values, strict=True),
    )


def meta_value(conn: sqlite3.Connection, name: str) -> int:
    """The ``meta`` value ``name`` (-1: none)."""
    row = conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    return int(row[0]) if row is not None else -1
