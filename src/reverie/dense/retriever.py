"""``DenseRetriever``: the items nearest in meaning to a query, following the search index.

Before each query it catches up: it asks the search index for the items added since its mark
(scoped like the query: that session and history), encodes those whose text it has no vector
for, and stores them (``VectorStore``); then it encodes the query and returns the nearest
items of the query's scope as search candidates, with their current text from the index and
their cosine as score. Recall fuses them with its lexical ranking (``recall.fusion``).

Invariants.
- Isolation is the index's: the nearest references are fetched back through the search index
  with the query's session filter, so an item outside the scope (or deleted since) is never
  returned, whatever the store holds.
- Bounded work per query: at most ``per_call`` new items are encoded by one query (a large
  workspace is filled over several queries, or at once by ``catch_up(per_call=None)``).
- Dense recall only adds: any failure (a store that cannot be written, a model error) is
  logged as a warning and the query gets no dense candidates, never an error.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from reverie.dense.encoder import Encoder
from reverie.dense.vectors import Mark, VectorStore
from reverie.errors import ReverieError
from reverie.search import Candidate, SourceRef, history_ref, message_ref, parse_ref
from reverie.search.items import ItemsAfter

logger = logging.getLogger(__name__)

PASSAGE_CHARS = 2_000
"""Only the start of a long item is encoded (the model reads 512 tokens at most)."""
BATCH = 32
DEPTH = 80
"""Nearest items fused per query by default: recall's pool (bench/recall.py --dense)."""


class Followed(Protocol):
    """What the retriever needs of the search index."""

    def items_after(
        self, after: int, *, seen: str | None, limit: int, only: str | None = None
    ) -> ItemsAfter:
        """Items indexed after a mark."""
        ...

    def items_named(
        self, refs: Sequence[SourceRef], *, session_key: str | None = None
    ) -> list[Candidate]:
        """Items by reference, in the order given."""
        ...


class DenseRetriever:
    """Nearest items by meaning, from vectors kept beside the search index."""

    name = "dense"
    """What the items it found say in ``why`` (recall's ``RankedSource``)."""

    def __init__(
        self,
        index: Callable[[], Followed],
        store: VectorStore,
        encoder: Encoder,
        *,
        per_call: int = 2_048,
        depth: int = DEPTH,
        weight: float = 1.0,
    ) -> None:
        """Follow ``index()`` into ``store``, encoding with ``encoder``.

        ``depth``: at most this many nearest items per query, whatever the caller asks;
        ``weight``: of this list in the fusion, against 1 for the lexical ranking.
        """
        self.weight = weight
        self._index = index
        self.store = store
        self.encoder = encoder
        self.per_call = per_call
        self.depth = depth

    def ranked(self, query: str, *, limit: int, scope: str | None) -> list[Candidate]:
        """``nearest`` as recall's ``RankedSource`` (``reverie.recall.fusion``)."""
        return self.nearest(query, limit=limit, session_key=scope)

    def nearest(self, query: str, *, limit: int, session_key: str | None) -> list[Candidate]:
        """Return up to ``limit`` items nearest to ``query`` in meaning, best first.

        Args:
            query: the new message.
            limit: at most this many.
            session_key: only this session's items; None: every session's.
        """
        limit = min(limit, self.depth)
        try:
            self.catch_up(only=session_key, per_call=self.per_call)
            vector = self.encoder.queries([query])[0]
            found = self.store.nearest(vector, limit=limit + 16, session_key=session_key)
        except (sqlite3.Error, OSError, ReverieError, RuntimeError, ValueError) as exc:
            logger.warning("dense recall skipped: %s", exc)
            return []
        cosine = dict(found)
        refs = [ref for ref in (parse_ref(name) for name, _ in found) if ref is not None]
        items = self._index().items_named(refs, session_key=session_key)
        return [replace(item, score=cosine[str(_ref(item))]) for item in items][:limit]

    def catch_up(self, *, only: str | None = None, per_call: int | None = None) -> int:
        """Encode the items indexed since the last call; return how many were encoded.

        ``per_call``: stop after about this many (None: all there are).
        """
        encoded = 0
        while per_call is None or encoded < per_call:
            mark = self.store.mark()
            page = self._index().items_after(mark.after, seen=mark.seen, limit=256, only=only)
            if not page.items:
                if page.restarted:
                    self.store.move_mark(Mark())
                return encoded
            encoded += self._take(page)
        return encoded

    def _take(self, page: ItemsAfter) -> int:
        last = page.items[-1]
        mark = Mark(after=last.doc, seen=str(last.ref))
        todo = [
            (str(item.ref), item.session_key, item.text)
            for item in page.items
            if not self.store.unchanged(str(item.ref), item.text)
        ]
        if not todo:
            self.store.move_mark(mark)
            return 0
        for start in range(0, len(todo), BATCH):
            chunk = todo[start : start + BATCH]
            vectors = self.encoder.passages([text[:PASSAGE_CHARS] for _, _, text in chunk])
            end = start + BATCH >= len(todo)
            self.store.add(chunk, vectors, mark if end else self.store.mark())
        return len(todo)


def _ref(item: Candidate) -> SourceRef:
    if item.kind == "history":
        return history_ref(item.cursor or 0)
    return message_ref(item.session_key or "", item.message_index or 0)
