"""``VectorStore``: one vector per indexed item, in ``.reverie/vectors.sqlite`` beside the index.

Storage model. ``vec`` holds one row per item, keyed by its source reference (``#h12``,
``#m45@cli:default``, which survives a rebuild of the search index), with its session, a
hash of the text it was computed from, and the vector (float16 bytes: half the size, and
cosine ranks are unchanged at the precision that matters). ``meta`` keeps the model name and
dimension (another model empties the store), and the follower's mark in the search index
(the last row id seen and that row's reference; see ``search.items``), and where the first
item a query left for the bulk catch-up was (``defer``, ``resume``). The file is a cache:
it can be deleted at any time and is filled again from the search index.

In memory, every vector sits in one float32 matrix (100k items x 384 = 154 MB), loaded on
first use and grown as items are added; a query is one matrix product over its session's
rows (or all rows, for a workspace that is one conversation). Why not sqlite-vec: a brute
force product over a session's few thousand rows takes well under a millisecond, the whole
matrix at 100k items a few milliseconds (bench/recall.py --dense), and it would be one more
native dependency for no measured gain.

Invariants.
- An item's vector is recomputed only when its text changed (its hash differs); a rebuilt
  search index costs a scan, not a re-encoding.
- Writes are ``INSERT OR REPLACE`` by reference in one transaction: two processes adding the
  same items at once both write the same rows, nothing is duplicated.
- A damaged file is deleted and started again (it is only a cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.storage.folder import layout

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Mark:
    """How far the store has followed the search index (row id and that row's reference)."""

    after: int = 0
    seen: str | None = None


def text_hash(text: str) -> bytes:
    """The hash that says whether an item's text changed."""
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).digest()


class VectorStore:
    """The vectors of one workspace's indexed items, on disk and in memory."""

    def __init__(self, path: Path, *, model: str, dim: int) -> None:
        """Open (or create) the store at ``path`` for vectors of ``model`` (``dim`` wide)."""
        self.path = path
        self.model = model
        self.dim = dim
        self._conn: sqlite3.Connection | None = None
        self._refs: list[str] = []
        self._rows: dict[str, int] = {}
        self._by_session: dict[str | None, list[int]] = {}
        self._row_arrays: dict[str, npt.NDArray[np.int64]] = {}
        self._hashes: list[bytes] = []
        self._matrix: npt.NDArray[np.float32]  # made by ``_vectors``, with numpy
        self._loaded = False
        self._used = 0

    def __len__(self) -> int:
        """How many items have a vector."""
        self._vectors()
        return self._used

    def mark(self) -> Mark:
        """The last search-index row this store has followed."""
        meta = self._meta()
        seen = meta.get("seen")
        return Mark(after=int(meta.get("after", "0")), seen=seen or None)

    def unchanged(self, ref: str, text: str) -> bool:
        """Whether ``ref`` already has a vector computed from ``text``."""
        self._vectors()
        row = self._rows.get(ref)
        return row is not None and self._hashes[row] == text_hash(text)

    def add(
        self,
        items: Sequence[tuple[str, str | None, str]],
        vectors: npt.NDArray[np.float32],
        mark: Mark,
    ) -> None:
        """Store ``vectors`` for ``items`` (reference, session, text) and move the mark."""
        import numpy as np  # noqa: PLC0415 (a count or a mark needs no numpy: status)

        conn = self._vectors()
        half = vectors.astype(np.float16)
        rows = [
            (ref, key, text_hash(text), half[n].tobytes())
            for n, (ref, key, text) in enumerate(items)
        ]
        with conn:
            conn.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?, ?, ?)", rows)
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [("after", str(mark.after)), ("seen", mark.seen or "")],
            )
        for (ref, key, digest, _blob), vector in zip(rows, half, strict=True):
            self._put(ref, key, digest, vector)

    def move_mark(self, mark: Mark) -> None:
        """Record that the index was followed up to ``mark`` (nothing new to encode)."""
        conn = self._open()
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [("after", str(mark.after)), ("seen", mark.seen or "")],
            )

    def defer(self, mark: Mark) -> None:
        """Note an item after ``mark`` left for the bulk catch-up (the first mark noted stays)."""
        conn = self._open()
        with conn:
            conn.executemany(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                [("deferred_after", str(mark.after)), ("deferred_seen", mark.seen or "")],
            )
            conn.execute(
                "INSERT INTO meta VALUES ('deferred', '1') ON CONFLICT(name)"
                " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
            )

    def deferred(self) -> int:
        """How many items queries left for the bulk catch-up."""
        return int(self._meta().get("deferred", "0"))

    def resume(self) -> None:
        """Move the mark back to before the first deferred item, and forget the notes."""
        meta = self._meta()
        if "deferred_after" not in meta:
            return
        conn = self._open()
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [("after", meta["deferred_after"]), ("seen", meta.get("deferred_seen", ""))],
            )
            conn.execute(
                "DELETE FROM meta WHERE name IN ('deferred', 'deferred_after', 'deferred_seen')"
            )

    def nearest(
        self, query: npt.NDArray[np.float32], *, limit: int, session_key: str | None
    ) -> list[tuple[str, float]]:
        """The ``limit`` references closest to ``query`` (cosine), best first.

        ``session_key``: only that session's items; None: every item.
        """
        import numpy as np  # noqa: PLC0415

        self._vectors()
        if session_key is None:
            rows = np.arange(self._used)
            scores = self._matrix[: self._used] @ query.astype(np.float32)  # a view, no copy
        else:
            rows = self._session_rows(session_key)
            scores = self._matrix[rows] @ query.astype(np.float32)
        if not len(rows):
            return []
        count = min(limit, len(rows))
        best = np.argpartition(-scores, count - 1)[:count]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self._refs[int(rows[n])], float(scores[n])) for n in best]

    def _session_rows(self, session_key: str) -> npt.NDArray[np.int64]:
        """The rows of one session, as an array kept until the session gets a new row."""
        import numpy as np  # noqa: PLC0415

        cached = self._row_arrays.get(session_key)
        rows = self._by_session.get(session_key, [])
        if cached is None or len(cached) != len(rows):
            cached = np.asarray(rows, dtype=np.int64)
            self._row_arrays[session_key] = cached
        return cached

    def close(self) -> None:
        """Close the file (the store opens it again on next use)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
            self._refs, self._rows, self._by_session, self._hashes = [], {}, {}, []
            self._row_arrays = {}
            self._used = 0
            self._loaded = False

    def drop(self) -> None:
        """Delete the file whole (it is a cache: the next use starts it again, empty)."""
        self.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                self.path.with_name(self.path.name + suffix).unlink()

    def _meta(self) -> dict[str, str]:
        conn = self._open()
        return dict(conn.execute("SELECT name, value FROM meta").fetchall())

    def _open(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        try:
            return self._load()
        except sqlite3.DatabaseError as exc:
            logger.warning("vector store %s unreadable (%s); starting it again", self.path, exc)
            self.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            return self._load()

    def _load(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Any thread: the MCP and HTTP servers run engine calls in worker threads and close
        # the engine from the main one (a same-thread connection made that a traceback).
        conn = sqlite3.connect(
            self.path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA busy_timeout = 30000")
        # A cache: a file damaged by a power cut is deleted and filled again (see above).
        conn.execute("PRAGMA synchronous = OFF")
        for statement in _SCHEMA:
            conn.execute(statement)
        meta = dict(conn.execute("SELECT name, value FROM meta").fetchall())
        if meta.get("model") != self.model or meta.get("dim") != str(self.dim):
            with conn:
                conn.execute("DELETE FROM vec")
                conn.execute("DELETE FROM meta")
                conn.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("model", self.model), ("dim", str(self.dim))],
                )
        self._conn = conn
        return conn

    def _vectors(self) -> sqlite3.Connection:
        """The connection, with every stored vector in memory (read once, on first need)."""
        conn = self._open()
        if self._loaded:
            return conn
        import numpy as np  # noqa: PLC0415

        self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._loaded = True
        for ref, key, digest, blob in conn.execute("SELECT ref, session_key, hash, v FROM vec"):
            self._put(ref, key, digest, np.frombuffer(blob, dtype=np.float16))
        return conn

    def _put(
        self, ref: str, key: str | None, digest: bytes, vector: npt.NDArray[np.float16]
    ) -> None:
        import numpy as np  # noqa: PLC0415

        row = self._rows.get(ref)
        if row is None:
            row = self._used
            if row == len(self._matrix):
                grown = np.zeros((max(1024, 2 * row), self.dim), dtype=np.float32)
                grown[:row] = self._matrix[:row]
                self._matrix = grown
            self._refs.append(ref)
            self._by_session.setdefault(key, []).append(row)
            self._hashes.append(digest)
            self._rows[ref] = row
            self._used += 1
        else:  # a reference names one session for good: only the text can change
            self._hashes[row] = digest
        self._matrix[row] = vector
