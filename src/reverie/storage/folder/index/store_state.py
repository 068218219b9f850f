"""What the session store holds, read cheaply enough to ask before every query.

The index is level with the sessions when its marks (session key, message count, size) equal
the store's. ``SessionStore.list`` answers that, but builds a ``SessionInfo`` per session (two
timestamps parsed each): about 45 µs a session, so a workspace of 2,000 sessions paid some
90 ms on every query. ``StoreState`` reads the same three columns as plain tuples over its own
read-only connection to the sessions database (``SELECT key, messages, size``: microseconds
per session), and answers "nothing was committed since I last looked" in constant time from
SQLite's ``PRAGMA data_version``, which changes whenever any other connection (this
process's store included) commits to the database.

Invariants.
- Reads only: the connection is opened ``mode=ro`` and never writes, so it holds no lock a
  writer waits for beyond a read snapshot, and a query runs in its own implicit transaction.
- ``version`` changes with every commit by anyone and with a replaced database file (its
  inode is part of it); ``None`` means "cannot tell" (no database yet, unreadable), and the
  caller then compares in full.
- ``tail`` decodes rows with the store's own codec (``sessions_sql.message_of``), so a
  message reads the same through it as through ``SessionStore.load``.
- ``counts`` is exactly what ``SessionStore.list`` reports as (key, message_count, size);
  ``None`` when the database cannot be read this way (the caller falls back to ``list``).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.storage.folder.sessions_sql import message_of

if TYPE_CHECKING:
    from reverie.core.messages import Message

Counts = dict[str, tuple[int, int]]
"""Session key to (message count, size)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Tail:
    """A session's messages from ``first`` on, read in one snapshot with its row's state."""

    generation: str
    count: int
    size: int
    first: int
    messages: tuple[Message, ...]


class StoreState:
    """A read-only view of ``sessions``' counts and sizes, and a cheap change stamp."""

    def __init__(self, database: Path) -> None:
        """Prepare to read ``database`` (nothing is opened until first asked)."""
        self._path = database
        self._conn: sqlite3.Connection | None = None
        self._inode: int | None = None
        self._level: tuple[object, tuple[int, int]] | None = None

    def is_level(
        self, index: object, compare: Callable[[Counts], bool], listed: Callable[[], Counts]
    ) -> bool:
        """Whether ``compare`` finds the index level with the store's counts now.

        ``index`` names the index connection. While the database's ``version`` is the one at
        which that index was last found level, the answer is yes without reading anything
        (an index only moves towards level: every write to it is a catch-up). ``listed``
        gives the counts when this view cannot read them.
        """
        version = self.version()  # before the counts: a commit in between only costs a recheck
        if version is not None and self._level == (index, version):
            return True
        counts = self.counts()
        level = compare(listed() if counts is None else counts)
        self._level = (index, version) if level and version is not None else None
        return level

    def version(self) -> tuple[int, int] | None:
        """(inode, data_version) of the database now; None if it cannot be read."""
        conn = self._connection()
        if conn is None or self._inode is None:
            return None
        try:
            return self._inode, int(conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            self.close()
            return None

    def counts(self) -> Counts | None:
        """Every session's (message count, size) by key; None if it cannot be read."""
        conn = self._connection()
        if conn is None:
            return None
        try:
            rows = conn.execute("SELECT key, messages, size FROM sessions").fetchall()
        except sqlite3.Error:
            self.close()
            return None
        return {key: (count, size) for key, count, size in rows}

    def tail(self, key: str, first: int) -> Tail | None:
        """Session ``key``'s messages from index ``first`` on (None: no such row, unreadable).

        While the session's ``generation`` holds, its earlier rows are the ones an earlier
        read saw (the store changes it whenever rows are replaced), so a caller that knows
        the generation needs only this tail. The generation reported includes the database
        file's inode: a database put back from a copy may repeat a generation, never an inode
        of the file it replaced.
        """
        conn = self._connection()
        if conn is None:
            return None
        try:
            conn.execute("BEGIN")
            try:
                row = conn.execute(
                    "SELECT id, generation, messages, size FROM sessions WHERE key = ?", (key,)
                ).fetchone()
                bodies = conn.execute(
                    "SELECT body FROM messages WHERE session = ? AND idx >= ? ORDER BY idx",
                    (row[0] if row is not None else -1, first),
                ).fetchall()
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error:
            self.close()
            return None
        if row is None or row[2] != first + len(bodies):
            return None
        messages = tuple(message_of(body) for (body,) in bodies)
        generation = f"{self._inode}:{row[1]}"  # a database restored from a copy is another
        return Tail(
            generation=generation, count=row[2], size=row[3], first=first, messages=messages
        )

    def close(self) -> None:
        """Close the connection (it reopens when asked again)."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn, self._inode, self._level = None, None, None

    def _connection(self) -> sqlite3.Connection | None:
        try:
            inode = self._path.stat().st_ino
        except OSError:
            self.close()
            return None
        if self._conn is not None and inode == self._inode:
            return self._conn
        self.close()  # a replaced database: never read the old file by its old connection
        try:
            conn = sqlite3.connect(
                f"{self._path.as_uri()}?mode=ro",
                uri=True,
                check_same_thread=False,
                isolation_level=None,
            )
        except sqlite3.Error:
            return None
        self._conn, self._inode = conn, inode
        return conn
