"""What the session store holds, read cheaply enough to ask before every query.

The index is level with the sessions when it has seen every change the sessions database
numbered (``session_changes``): ``watermark`` reads that number (one row, with the database's
epoch and its file's inode), and ``changes`` reads, in one snapshot, the number now, the
sessions changed after a given watermark and the keys deleted after it, so a catch-up reads
what changed and not every session. Where the database has no change sequence (an older one
read-only), the full comparison remains: the index's marks (session key, message count,
size) against the store's. ``SessionStore.list`` answers that, but builds a ``SessionInfo``
per session (two timestamps parsed each: about 45 µs a session); ``counts`` reads the same
three columns as plain tuples (microseconds per session), and ``is_level`` answers "nothing
was committed since I last looked" in constant time from SQLite's ``PRAGMA data_version``,
which changes whenever any other connection (this process's store included) commits.

Invariants.
- Reads only: the connection is opened ``mode=ro`` and never writes, so it holds no lock a
  writer waits for beyond a read snapshot, and a query runs in its own implicit transaction
  (``changes`` and ``tail`` in one explicit read transaction each).
- A watermark names the database file's inode and its epoch: a replaced file (a new inode)
  or another database on a reused inode (another epoch) never passes for the one an index
  caught up to; a number smaller than the one asked about (a database put back from an
  older copy) makes ``changes`` report every session (``whole``). A copy written over the
  same inode that has since passed the number asked about cannot be told from the database
  it replaced: ``rebuild`` is the remedy for such a restore.
- ``version`` changes with every commit by anyone and with a replaced database file (its
  inode is part of it); ``None`` means "cannot tell" (no database yet, unreadable), and the
  caller then compares in full.
- ``tail`` decodes rows with the store's own codec (``sessions_sql.message_of``), so a
  message reads the same through it as through ``SessionStore.load``.
- ``counts`` is exactly what ``SessionStore.list`` reports as (key, message_count, size), and
  so are ``changes``' counts for the sessions they hold; ``None`` when the database cannot be
  read this way (the caller falls back to ``list``).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.storage.folder import session_changes
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Watermark:
    """How far a sessions database's changes go: its file's inode, its epoch, its last number."""

    inode: int
    epoch: int
    value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Changes:
    """What changed in the sessions after a watermark, read in one snapshot.

    ``whole``: the watermark asked about could not be followed (none, another database, a
    number that went backwards), so ``counts`` holds every session and ``deleted`` nothing:
    the caller compares in full.
    """

    watermark: Watermark
    counts: Counts
    deleted: frozenset[str]
    whole: bool


class StoreState:
    """A read-only view of ``sessions``: what changed after a watermark, counts, tails."""

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

    def watermark(self) -> Watermark | None:
        """How far the database's changes go now (one row read); None if it cannot tell."""
        conn = self._connection()
        if conn is None or self._inode is None:
            return None
        try:
            epoch, value, _ = session_changes.last(conn)
        except sqlite3.Error as exc:
            self._failed(exc)
            return None
        return Watermark(inode=self._inode, epoch=epoch, value=value)

    def changes(self, since: Watermark | None) -> Changes | None:
        """The sessions changed after ``since`` and the keys deleted after it, in one snapshot.

        Every session (``whole``) when ``since`` is None, names another file or epoch, is
        ahead of the database (put back from an older copy), or is behind the tombstones it
        keeps. None if it cannot be read so.
        """
        conn = self._connection()
        if conn is None or self._inode is None:
            return None
        try:
            conn.execute("BEGIN")
            try:
                epoch, value, forgotten = session_changes.last(conn)
                now = Watermark(inode=self._inode, epoch=epoch, value=value)
                follows = since is not None and _follows(since, now, forgotten)
                after = since.value if since is not None and follows else None
                counts, deleted = session_changes.since(conn, after)
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._failed(exc)
            return None
        return Changes(watermark=now, counts=counts, deleted=deleted, whole=after is None)

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

    def _failed(self, exc: sqlite3.Error) -> None:
        """Drop the connection after a failure, unless the database merely has no sequence."""
        if not _unsequenced(exc):  # an older database read-only: the caller compares in full
            self.close()

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


def _follows(since: Watermark, now: Watermark, forgotten: int) -> bool:
    """Whether the changes after ``since`` are the changes between it and ``now``.

    The same file and database, a number not ahead of the database's, and not behind the
    tombstones it dropped.
    """
    same = (since.inode, since.epoch) == (now.inode, now.epoch)
    return same and forgotten <= since.value <= now.value


def _unsequenced(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "no such" in str(exc)
