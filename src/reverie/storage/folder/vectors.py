"""``SqliteVectorRows``: a folder workspace's dense-recall vectors, in ``.reverie/vectors.sqlite``.

The folder's ``VectorRowsPort`` (``reverie.storage.ports.vectors``). ``vec`` holds one row per
item keyed by its source reference (``#h12``, ``#m45@cli:default``, which survives a rebuild of
the search index), with its session, a hash of its text and the vector's blob (int8 codes and a
scale, ``reverie.memory.recall.dense.matrix``); its ``rowid`` is the sequence number
``rows_since`` follows (``INSERT OR REPLACE`` gives a replaced row a new one, so another
process sees it too). ``meta`` keeps the model name and width and the follower's notes.

Invariants.
- Writes are ``INSERT OR REPLACE`` by reference in one transaction: two processes adding the
  same items at once both write the same rows, nothing is duplicated.
- The file is a cache: a damaged one is deleted and started again; a purge deletes it
  (``reverie.storage.folder.layout``: it is one of the workspace's databases).
- Any thread may use the connection (the MCP and HTTP servers run engine calls in worker
  threads and close the engine from the main one).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from reverie.core.indexed import VectorRow
from reverie.storage.folder import layout

logger = logging.getLogger(__name__)


VECTORS_PATH = Path(layout.VECTORS)
"""Where the store lives, relative to the workspace root."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    (
        "CREATE TABLE IF NOT EXISTS vec(ref TEXT PRIMARY KEY, session_key TEXT,"
        " hash BLOB NOT NULL, v BLOB NOT NULL)"
    ),
)


class SqliteVectorRows:
    """Vector rows in one SQLite file (opened on first use; see the module docstring)."""

    def __init__(self, path: Path) -> None:
        """Keep the rows in ``path`` (created with its folder when first written)."""
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def reset(self, model: str, dim: int) -> None:
        """Empty the file if another model or width wrote it; note these."""
        conn = self._open()
        meta = dict(conn.execute("SELECT name, value FROM meta").fetchall())
        if meta.get("model") != model or meta.get("dim") != str(dim):
            with conn:
                conn.execute("DELETE FROM vec")
                conn.execute("DELETE FROM meta")
                conn.executemany(
                    "INSERT INTO meta VALUES (?, ?)", [("model", model), ("dim", str(dim))]
                )

    def meta(self) -> dict[str, str]:
        """Every meta value."""
        return dict(self._open().execute("SELECT name, value FROM meta").fetchall())

    def put_meta(self, values: Mapping[str, str], *, keep: bool = False) -> None:
        """Set meta values (``keep``: leave those already there)."""
        verb = "INSERT OR IGNORE" if keep else "INSERT OR REPLACE"
        conn = self._open()
        with conn:
            conn.executemany(f"{verb} INTO meta VALUES (?, ?)", list(values.items()))

    def bump(self, name: str) -> None:
        """Add one to meta value ``name``."""
        conn = self._open()
        with conn:
            conn.execute(
                "INSERT INTO meta VALUES (?, '1') ON CONFLICT(name)"
                " DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                (name,),
            )

    def drop_meta(self, names: Sequence[str]) -> None:
        """Delete meta values."""
        conn = self._open()
        with conn:
            conn.executemany("DELETE FROM meta WHERE name = ?", [(n,) for n in names])

    def write(self, rows: Sequence[VectorRow], meta: Mapping[str, str]) -> None:
        """Store ``rows`` and ``meta`` in one transaction."""
        conn = self._open()
        with conn:
            conn.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?, ?, ?)", rows)
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(meta.items()))

    def rows_since(self, seq: int) -> Iterator[tuple[int, VectorRow]]:
        """Rows whose rowid is past ``seq``, in rowid order."""
        cursor = self._open().execute(
            "SELECT rowid, ref, session_key, hash, v FROM vec WHERE rowid > ? ORDER BY rowid",
            (seq,),
        )
        for rowid, ref, key, digest, blob in cursor:
            yield rowid, (ref, key, digest, blob)

    def clear(self) -> None:
        """Delete every row and meta value; ``secure_delete`` and ``VACUUM`` leave no old page."""
        conn = self._open()
        conn.execute("PRAGMA secure_delete = ON")
        with conn:
            conn.execute("DELETE FROM vec")
            conn.execute("DELETE FROM meta")
        conn.execute("VACUUM")

    def close(self) -> None:
        """Close the file (opened again on next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _open(self) -> sqlite3.Connection:
        with self._lock:
            if self._conn is not None:
                return self._conn
            try:
                self._conn = self._load()
            except sqlite3.DatabaseError as exc:
                logger.warning("vector store %s unreadable (%s); starting it again", self.path, exc)
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                self._conn = self._load()
            return self._conn

    def _load(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            # A cache: a file damaged by a power cut is deleted and filled again (see above).
            conn.execute("PRAGMA synchronous = OFF")
            for statement in _SCHEMA:
                conn.execute(statement)
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn
