"""The index's SQLite file (``.reverie/search.sqlite``): opening it, its schema, and replacing it.

Storage model. ``docs`` holds one row per indexed item (kind, source and time); ``fts`` is an
FTS5 table whose rowid is the ``docs`` id and whose one column is the item's text, segmented
(see ``text``). ``ctx`` is a second FTS5 table, same rowids, holding a message's context: the
end of the message before it in its session (so "yes, last Saturday" can be found by the
question it answers; history entries have none). Only the previous message is used, never
the next, so indexing stays append-only; a separate table (not a second column) keeps BM25
over ``fts`` exactly what it was, since FTS5 normalises by the length of the whole row.
``grams`` is a third, same rowids: the overlapping two-character words of an item's Chinese
and Japanese runs, one token each (``text.cjk_pairs``), so recall looks up "咖啡" as one token
instead of a phrase over the postings of 咖 and of 啡 (items without CJK text have no row).
``meta`` keeps the history high-water marks, the sessions watermark and the schema version;
``marks`` keeps, per session, how many messages are indexed, the journal size seen, and a
fingerprint or the store's generation of the session (module ``marks`` reads and writes
both; the generation column is added to older files in place, empty).
The file is a cache: everything in it can be rebuilt from the history log and the journals.

Invariants.
- Every use happens while the caller holds the workspace's ``search`` lock, and ``open``
  first checks that the path still names the file this connection has open; if another
  process replaced or removed it, the connection is dropped and the path opened afresh. So
  no connection ever reads or writes a file that was moved aside.
- The rollback journal (not WAL) is used: all access is serialised by the lock anyway, and a
  stale connection closed after its file was moved aside deletes nothing by name (a WAL
  connection would unlink the new file's ``-wal``). ``synchronous=OFF`` because a file damaged
  by a power cut is detected and rebuilt like any other corrupt index.
- A file that is not a database, or is damaged, is renamed aside (never deleted) and a new
  one is created; a file with another schema version is stale and is removed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.errors import StorageError

if TYPE_CHECKING:
    from reverie.core.clock import Clock

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 3
"""Bump when the tables, the tokenizer or the segmentation change: older files are rebuilt."""

_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_SIDE_FILES = ("-journal", "-wal", "-shm")

_TOKENIZER = "tokenize = 'porter unicode61 remove_diacritics 2'"
_SCHEMA = (
    "CREATE TABLE meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    (
        "CREATE TABLE docs(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, cursor INTEGER,"
        " session_key TEXT, position INTEGER, role TEXT, ts REAL)"
    ),
    "CREATE UNIQUE INDEX docs_history ON docs(cursor) WHERE kind = 'history'",
    "CREATE UNIQUE INDEX docs_message ON docs(session_key, position) WHERE kind = 'message'",
    "CREATE INDEX docs_time ON docs(ts)",
    (
        "CREATE TABLE marks(session_key TEXT PRIMARY KEY, messages INTEGER NOT NULL,"
        " size INTEGER NOT NULL, fingerprint TEXT NOT NULL, generation TEXT)"
    ),
    f"CREATE VIRTUAL TABLE fts USING fts5(body, {_TOKENIZER})",
    f"CREATE VIRTUAL TABLE ctx USING fts5(context, {_TOKENIZER})",
    "CREATE VIRTUAL TABLE grams USING fts5(pairs, tokenize = 'unicode61')",
    f"INSERT INTO meta(name, value) VALUES ('schema', {SCHEMA_VERSION})",  # noqa: S608
)


def is_corruption(exc: sqlite3.Error) -> bool:
    """Return whether ``exc`` says the file is damaged or not a database at all."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


class IndexFile:
    """The SQLite file of the search index and this process's connection to it."""

    def __init__(self, path: Path, *, clock: Clock) -> None:
        self.path = path
        self._clock = clock
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self._pid = os.getpid()

    def open(self) -> tuple[sqlite3.Connection, bool]:
        """Return a connection to the file at ``path`` and whether the index starts empty.

        The caller holds the ``search`` lock. A missing, stale or unreadable file is replaced
        by a new, empty index (reported as starting empty).

        Raises:
            StorageError: the file cannot be created or opened for another reason.
        """
        if self._pid != os.getpid():  # a forked child must not use its parent's connection
            self._conn, self._identity, self._pid = None, None, os.getpid()
        if self._conn is not None and self._identity == _identity(self.path):
            return self._conn, False
        self.close()
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise StorageError(f"cannot open search index ({exc})", path=self.path) from exc
            self.move_aside(reason=str(exc))
        try:
            return self._connect()
        except sqlite3.Error as exc:
            raise StorageError(f"cannot create search index ({exc})", path=self.path) from exc

    def move_aside(self, *, reason: str) -> Path:
        """Rename a damaged file (and its journal) aside, keeping it for a person to inspect."""
        self.close()
        stamp = self._clock().strftime("%Y%m%dT%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        number = 1
        while target.exists():
            number += 1
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{number}")
        try:
            for suffix in ("", *_SIDE_FILES):
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{self.path}{suffix}").replace(f"{target}{suffix}")
        except OSError as exc:
            raise StorageError(f"cannot move damaged index aside ({exc})", path=self.path) from exc
        logger.warning("search index %s is damaged (%s); moved to %s", self.path, reason, target)
        return target

    def remove(self) -> None:
        """Delete the file and its journal (to rebuild from nothing)."""
        self.close()
        try:
            for suffix in ("", *_SIDE_FILES):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot remove search index ({exc})", path=self.path) from exc

    def close(self) -> None:
        """Close this process's connection (the file stays)."""
        if self._conn is not None:
            self._conn.close()
        self._conn, self._identity = None, None

    def _connect(self) -> tuple[sqlite3.Connection, bool]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA synchronous = OFF")
            empty = _prepare(conn)
            if empty is None:  # another schema version: stale
                conn.close()
                self.remove()
                conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA synchronous = OFF")
                empty = bool(_prepare(conn))
        except BaseException:
            conn.close()
            raise
        self._conn, self._identity = conn, _identity(self.path)
        return conn, empty


def _prepare(conn: sqlite3.Connection) -> bool | None:
    """Create the schema in an empty file.

    Returns:
        True when the schema was created, False when it is current, None when it is stale.
    """
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    if not names:
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute("COMMIT")
        return True
    if "meta" not in names:
        return None
    row = conn.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        return None
    columns = {column[1] for column in conn.execute("PRAGMA table_info(marks)")}
    if "generation" not in columns:  # a file of an older reverie: its marks know none yet
        conn.execute("ALTER TABLE marks ADD COLUMN generation TEXT")
    return False


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino
