"""The session store's SQLite database: one connection, write and read transactions, clear errors.

``SessionsDatabase`` owns the one connection of a workspace's ``.reverie/sessions.sqlite3``
(opened on first use, shared by the threads of a process under one lock). ``write()`` is one
transaction opened with ``BEGIN IMMEDIATE``: SQLite's write lock orders writers across
threads and processes, and any SQLite failure inside becomes one ``StorageError`` naming the
file (rolled back first; on a full disk SQLite may say "readonly database", so the reason says
the disk is full). ``read()`` yields None when there is no database yet (opening a workspace
creates nothing), and falls back to a read-only connection (``mode=ro``, else ``immutable``)
where nothing can be written. A symlink in place of the database or its WAL is refused.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from reverie.errors import StorageError
from reverie.storage.folder.sessions_sql import prepare

_FULL = 1 << 20
"""Less free space than this (bytes) is a full disk, for an error message."""


class SessionsDatabase:
    """One SQLite database of sessions and its connection (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self.lock = threading.RLock()
        """Held by every transaction; a caller holds it to run a statement outside one."""

    def close(self) -> None:
        """Close the connection (the database may be used again: it reopens)."""
        with self.lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def connect(self, *, write: bool = True) -> sqlite3.Connection:
        """The connection, opened on first use (``write=False``: read-only where it must be)."""
        if self._conn is None:
            try:
                self._conn = _open(self.path)
            except (OSError, sqlite3.Error) as exc:
                if write:
                    raise StorageError(f"cannot open sessions ({exc})", path=self.path) from exc
                self._conn = _open_read_only(self.path)  # a read-only mount or a full disk
        return self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed on exit.

        Raises:
            StorageError: SQLite refused or failed (rolled back; the reason names the file).
        """
        with self.lock:
            conn = self.connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._failed(exc) from exc
            try:
                yield conn
            except sqlite3.Error as exc:  # a full disk, a read-only file: one clear error
                _roll_back(conn)
                raise self._failed(exc) from exc
            except BaseException:
                _roll_back(conn)
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _roll_back(conn)
                raise self._failed(exc) from exc

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection | None]:
        """One read transaction, or None when the database does not exist yet."""
        with self.lock:
            if self._conn is None and not self.path.exists():
                yield None
                return
            conn = self.connect(write=False)
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    def _failed(self, exc: sqlite3.Error) -> StorageError:
        return StorageError(f"cannot write sessions ({_why(exc, self.path)})", path=self.path)


def _why(exc: sqlite3.Error, database: Path) -> str:
    """SQLite's reason, plus what it hides: on a full disk it may say "readonly database"."""
    try:
        full = shutil.disk_usage(database.parent).free < _FULL
    except OSError:
        full = False
    return f"{exc}; no space is left on the disk" if full else str(exc)


def _roll_back(conn: sqlite3.Connection) -> None:
    """Roll back, when SQLite has not already (it does on some I/O errors)."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):  # the error that led here is the one to report
            conn.execute("ROLLBACK")


def _open(database: Path) -> sqlite3.Connection:
    for path in (database, *(database.with_name(database.name + end) for end in ("-wal", "-shm"))):
        if path.is_symlink():  # writes would land wherever it leads
            raise StorageError("refusing a symlink in place of the sessions database", path=path)
    database.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(database, isolation_level=None, check_same_thread=False, timeout=60)
    try:
        prepare(conn)
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _open_read_only(database: Path) -> sqlite3.Connection:
    """Open to read where nothing can be written: ``mode=ro``, else ``immutable`` (no WAL)."""
    failure: sqlite3.Error | None = None
    for flags in ("mode=ro", "immutable=1"):
        uri = f"{database.as_uri()}?{flags}"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sessions").fetchone()
        except sqlite3.Error as exc:
            conn.close()
            failure = exc
            continue
        return conn
    raise StorageError(f"cannot read sessions ({failure})", path=database)
