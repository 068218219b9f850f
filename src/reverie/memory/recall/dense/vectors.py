"""``VectorStore``: one vector per indexed item, kept by a backend and held in memory quantised.

Storage model. The rows live where the backend keeps them (``reverie.storage.ports.vectors``:
a folder's ``.reverie/vectors.sqlite``, a PostgreSQL table): per item its source reference
(``#h12``, ``#m45@cli:default``, which survives a rebuild of the search index), its session, a
hash of the text it was computed from, and the vector as int8 codes and a scale (388 bytes
for 384 dimensions, a quarter of float32; ``dense.matrix``). The meta values keep the model name
and dimension (another model empties the rows), the follower's mark in the search index (the
last row id seen and that row's reference; see ``storage.folder.index.items``), and where the
first item a query left for the bulk catch-up was (``defer``, ``resume``). The rows are a
cache: they can be dropped at any time and are made again from the search index.

In memory every vector sits in one quantised matrix (``VectorMatrix``: 1M items hold about 0.4
GB of arrays plus their reference strings), loaded on first use and grown as items are added;
before a query the store reads the rows written since it last looked (``rows_since``), so
what another process or server encoded is used too. A query is exact over its session's rows
(or all rows) up to a few thousand, and goes through a sign-bit shortlist above that.

Invariants.
- An item's vector is recomputed only when its text changed (its hash differs); a rebuilt
  search index costs a scan, not a re-encoding.
- A stored row that cannot be read (a damaged blob) is skipped with a warning and the mark
  goes back to the start: the next catch-up scans the index and encodes what has no vector
  (that item); the other rows are used.
- Writes go in one transaction of the backend; two processes adding the same items at once
  both write the same rows, nothing is duplicated.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.storage.ports.vectors import VectorRow, VectorRowsPort

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from reverie.memory.recall.dense.matrix import VectorMatrix

__all__ = ["Mark", "VectorStore", "text_hash"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Mark:
    """How far the store has followed the search index (row id and that row's reference)."""

    after: int = 0
    seen: str | None = None


def text_hash(text: str) -> bytes:
    """The hash that says whether an item's text changed."""
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).digest()


class VectorStore:
    """The vectors of one workspace's indexed items, in their backend and in memory."""

    def __init__(self, rows: VectorRowsPort, *, model: str, dim: int) -> None:
        """Keep vectors of ``model`` (``dim`` wide) in ``rows`` (``Backend.open_vectors``)."""
        self.rows = rows
        self.model = model
        self.dim = dim
        self._matrix: VectorMatrix | None = None
        self._seq = 0
        self._ready = False

    def __len__(self) -> int:
        """How many items have a vector."""
        return len(self._vectors())

    def nbytes(self) -> int:
        """Bytes the in-memory arrays hold."""
        return self._vectors().nbytes()

    def mark(self) -> Mark:
        """The last search-index row this store has followed (needs no numpy: ``status``)."""
        meta = self._meta()
        seen = meta.get("seen")
        return Mark(after=int(meta.get("after", "0")), seen=seen or None)

    def load(self) -> None:
        """Read the stored rows into memory now (reading may move the mark back: above)."""
        self._vectors()

    def unchanged(self, ref: str, text: str) -> bool:
        """Whether ``ref`` already has a vector computed from ``text``."""
        return self._vectors().has(ref, text_hash(text))

    def add(
        self,
        items: Sequence[tuple[str, str | None, str]],
        vectors: npt.NDArray[np.float32],
        mark: Mark,
    ) -> None:
        """Store ``vectors`` for ``items`` (reference, session, text) and move the mark."""
        from reverie.memory.recall.dense.matrix import quantise, to_blob  # noqa: PLC0415

        matrix = self._vectors()
        codes, scales = quantise(vectors)
        rows: list[VectorRow] = [
            (ref, key, text_hash(text), to_blob(codes[n], float(scales[n])))
            for n, (ref, key, text) in enumerate(items)
        ]
        self.rows.write(rows, {"after": str(mark.after), "seen": mark.seen or ""})
        for n, (ref, key, digest, _blob) in enumerate(rows):
            matrix.put(ref, key, digest, codes[n], float(scales[n]))

    def move_mark(self, mark: Mark) -> None:
        """Record that the index was followed up to ``mark`` (nothing new to encode)."""
        self._ensure()
        self.rows.put_meta({"after": str(mark.after), "seen": mark.seen or ""})

    def defer(self, mark: Mark) -> None:
        """Note an item after ``mark`` left for the bulk catch-up (the first mark noted stays)."""
        self._ensure()
        values = {"deferred_after": str(mark.after), "deferred_seen": mark.seen or ""}
        self.rows.put_meta(values, keep=True)
        self.rows.bump("deferred")

    def deferred(self) -> int:
        """How many items queries left for the bulk catch-up."""
        return int(self._meta().get("deferred", "0"))

    def resume(self) -> None:
        """Move the mark back to before the first deferred item, and forget the notes."""
        meta = self._meta()
        if "deferred_after" not in meta:
            return
        self.rows.put_meta({"after": meta["deferred_after"], "seen": meta.get("deferred_seen", "")})
        self.rows.drop_meta(["deferred", "deferred_after", "deferred_seen"])

    def nearest(
        self, query: npt.NDArray[np.float32], *, limit: int, session_key: str | None
    ) -> list[tuple[str, float]]:
        """The ``limit`` references closest to ``query`` (cosine), best first.

        ``session_key``: only that session's items; None: every item. Rows another process
        wrote since the last call are read first.
        """
        matrix = self._vectors()
        self._read_new(matrix)
        return matrix.nearest(query, limit=limit, session_key=session_key)

    def close(self) -> None:
        """Close the backend's connection and forget the matrix (read again on next use)."""
        self.rows.close()
        self._matrix = None
        self._seq = 0
        self._ready = False

    def _ensure(self) -> None:
        if not self._ready:
            self.rows.reset(self.model, self.dim)
            self._ready = True

    def drop(self) -> None:
        """Delete every stored vector (derived: the next catch-up encodes them again)."""
        self.rows.clear()
        self.close()

    def _meta(self) -> dict[str, str]:
        self._ensure()
        return self.rows.meta()

    def _vectors(self) -> VectorMatrix:
        """Every stored vector in memory (read once, on first need)."""
        if self._matrix is None:
            from reverie.memory.recall.dense.matrix import VectorMatrix  # noqa: PLC0415

            self._ensure()
            matrix = VectorMatrix(self.dim)
            self._read_new(matrix)
            self._matrix = matrix
        return self._matrix

    def _read_new(self, matrix: VectorMatrix) -> None:
        from reverie.memory.recall.dense.matrix import from_blob  # noqa: PLC0415

        skipped = 0
        for seq, (ref, key, digest, blob) in self.rows.rows_since(self._seq):
            self._seq = seq
            try:
                codes, scale = from_blob(bytes(blob), self.dim)
            except ValueError as exc:  # a damaged row: that item is encoded again
                skipped += 1
                if skipped == 1:
                    logger.warning(
                        "dense recall: a stored vector of %s is unreadable: %s", ref, exc
                    )
                continue
            matrix.put(ref, key, bytes(digest), codes, scale)
        if skipped:  # follow the index from the start again: only what has no vector is encoded
            self.rows.put_meta({"after": "0", "seen": ""})
