"""``DenseRetriever``: the items nearest in meaning to a query, following the search index.

Before each query it catches up a little: it asks the search index for the items added since
its mark, encodes at most ``per_call`` of those whose text it has no vector for (4 by default
and 600 characters: a prompt follows a turn of a few new messages, and the model's cost grows
with the text, 1.5 s for a 2,000-character item; a longer item is left for the bulk catch-up,
noted in the store), and stores them (``VectorStore``); then it
encodes the query and returns the nearest items of the query's scope as search candidates,
with their current text from the index and their cosine as score. Recall fuses them with its
lexical ranking (``recall.fusion``). A backlog (a large ingest, a workspace that just turned
dense recall on) is encoded in bulk where waiting is expected: ``catch_up(per_call=None)`` at
the end of ``ingest``, after ``dream`` and ``compact``, and by ``reverie index``; meanwhile
the items not yet encoded are still found by the lexical ranking. ``pending`` says how many
items wait.

The query. The model's cost grows with the text (about 0.8 ms per character on one core:
41 ms for a 55-character question, 1.2 s for 1,400 characters), so a long message is cut to
its start and its end (``query_text``: the question is usually at one end of a pasted log).
The last few query vectors are kept (``QUERY_MEMO``): a prompt that is fitted again, or an
agent that assembles a prompt per tool call for the same message, encodes it once.

Invariants.
- Isolation is the index's: the nearest references are fetched back through the search index
  with the query's session filter, so an item outside the scope (or deleted since) is never
  returned, whatever the store holds.
- Bounded work per query: at most ``per_call`` new items are encoded by one query (a large
  workspace is filled by ``catch_up(per_call=None)``, or over many queries).
- Dense recall only adds: any failure (a store that cannot be written, a model error) is
  logged as a warning and the query gets no dense candidates, never an error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from reverie.core.hits import Candidate
from reverie.core.indexed import ItemsAfter
from reverie.core.refs import SourceRef, history_ref, message_ref, parse_ref
from reverie.errors import ReverieError
from reverie.memory.recall.dense.encoder import Encoder
from reverie.memory.recall.dense.vectors import Mark, VectorStore
from reverie.storage.ports.vectors import FollowedPort

if TYPE_CHECKING:
    from reverie.memory.recall.dense.encoder import Vectors

logger = logging.getLogger(__name__)

PASSAGE_CHARS = 2_000
"""Only the start of a long item is encoded (the model reads 512 tokens at most)."""
BATCH = 32
BULK_THREADS = min(4, os.cpu_count() or 1)
"""Threads the model may use for a bulk catch-up (a query's pass keeps one)."""
DEPTH = 80
"""Nearest items fused per query by default: recall's pool (bench/recall.py --dense)."""
PER_QUERY = 4
"""New items a query encodes at most before it runs (the rest wait for a bulk catch-up)."""
PER_QUERY_CHARS = 600
"""And at most this many characters of them (a longer item waits for the bulk catch-up)."""
QUERY_CHARS = 256
"""A longer query is encoded as its first ``QUERY_HEAD`` and last characters (see above)."""
QUERY_HEAD = 96
QUERY_MEMO = 16
"""Query vectors kept, newest used last."""
PASSAGE_MEMO = 2_048
"""Recently encoded item texts whose vector is kept, so a repeated text is not encoded again."""


def query_text(text: str) -> str:
    """``text`` cut to at most about ``QUERY_CHARS`` characters: its start and its end."""
    text = " ".join(text.split())
    if len(text) <= QUERY_CHARS:
        return text
    head = text[:QUERY_HEAD].rsplit(" ", 1)[0] if " " in text[:QUERY_HEAD] else text[:QUERY_HEAD]
    tail = text[-(QUERY_CHARS - QUERY_HEAD) :]
    if " " in tail:
        tail = tail.split(" ", 1)[1]
    return f"{head} … {tail}"


Followed = FollowedPort
"""What the retriever needs of the search index (``reverie.storage.ports.vectors``)."""


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
        per_call: int = PER_QUERY,
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
        self._memo: OrderedDict[str, Vectors] = OrderedDict()
        self._passage_memo: OrderedDict[str, Vectors] = OrderedDict()
        self.repeated = 0
        """Items whose text was encoded already (in the same batch or lately): not encoded."""

    def ranked(self, query: str, *, limit: int, scope: str | None) -> list[Candidate]:
        """``nearest`` as recall's ``RankedSource`` (``reverie.memory.recall.fusion``)."""
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
            self.catch_up(only=session_key, per_call=self.per_call, chars=PER_QUERY_CHARS)
            vector = self._query_vector(query)
            found = self.store.nearest(vector, limit=limit + 16, session_key=session_key)
        except (sqlite3.Error, OSError, ReverieError, RuntimeError, ValueError) as exc:
            logger.warning("dense recall skipped: %s", exc)
            return []
        cosine = dict(found)
        refs = [ref for ref in (parse_ref(name) for name, _ in found) if ref is not None]
        items = self._index().items_named(refs, session_key=session_key)
        return [replace(item, score=cosine[str(_ref(item))]) for item in items][:limit]

    def _query_vector(self, query: str) -> Vectors:
        text = query_text(query)
        vector = self._memo.get(text)
        if vector is None:
            vector = self.encoder.queries([text])[0]
            self._memo[text] = vector
            while len(self._memo) > QUERY_MEMO:
                self._memo.popitem(last=False)
        self._memo.move_to_end(text)
        return vector

    def _passages(self, texts: Sequence[str]) -> Vectors:
        """Encode ``texts``, each distinct text once; a text encoded lately is not encoded again.

        Chat repeats itself ("ok", "thanks!", a pasted log): ``PASSAGE_MEMO`` recent texts keep
        their vector.
        """
        import numpy as np  # noqa: PLC0415 -- only with the extra

        missing = [text for text in dict.fromkeys(texts) if text not in self._passage_memo]
        if missing:
            for text, vector in zip(missing, self.encoder.passages(missing), strict=True):
                self._passage_memo[text] = vector
        for text in texts:
            self._passage_memo.move_to_end(text)
        out = np.stack([self._passage_memo[text] for text in texts])
        while len(self._passage_memo) > PASSAGE_MEMO:
            self._passage_memo.popitem(last=False)
        self.repeated += len(texts) - len(missing)
        return out

    def pending(self) -> int:
        """How many items wait for their vector: those after the mark, and those deferred."""
        mark = self.store.mark()
        return self._index().count_after(mark.after, seen=mark.seen) + self.store.deferred()

    def catch_up_all(self, progress: Callable[[int], None] | None = None) -> int:
        """Encode every item still without a vector; return how many (a failure: a warning).

        ``progress`` is called with the running count after each page.
        """
        encoded = 0
        threads = getattr(self.encoder, "threads", None)  # the bundled model's; not a test's
        try:
            self.store.resume()  # back to the first item a query left for this
            with threads(BULK_THREADS) if threads is not None else contextlib.nullcontext():
                while True:
                    done = self.catch_up(per_call=256)
                    encoded += done
                    if progress is not None:
                        progress(encoded)
                    if done < 256:
                        return encoded
        except (sqlite3.Error, OSError, ReverieError, RuntimeError, ValueError) as exc:
            logger.warning("dense recall: encoding the backlog stopped: %s", exc)
            return encoded

    def catch_up(
        self, *, only: str | None = None, per_call: int | None = None, chars: int | None = None
    ) -> int:
        """Encode the items indexed since the last call; return how many were encoded.

        ``per_call``: stop after this many (None: all there are); ``chars``: and before the
        encoded text passes this many characters (the first item is always taken).
        """
        budget = _Budget(items=per_call, chars=chars)
        self.store.load()  # before the mark is read: a damaged row moves it back
        while not budget.spent:
            mark = self.store.mark()
            page = self._index().items_after(mark.after, seen=mark.seen, limit=256, only=only)
            if not page.items:
                if page.restarted:
                    self.store.move_mark(Mark())
                break
            self._take(page, budget, Mark() if page.restarted else mark)
        return budget.used

    def _take(self, page: ItemsAfter, budget: _Budget, before: Mark) -> None:
        """Encode the page's changed items within ``budget``; the mark moves past those seen.

        An item too long for what is left of ``budget``'s characters is skipped and noted
        (``VectorStore.defer``): the bulk catch-up goes back for it.
        """
        todo: list[tuple[str, str | None, str]] = []
        last = None
        for item in page.items:
            changed = not self.store.unchanged(str(item.ref), item.text)
            verdict = budget.take(min(len(item.text), PASSAGE_CHARS)) if changed else "take"
            if verdict == "stop":
                break
            if verdict == "defer":
                self.store.defer(before)
            elif changed:
                todo.append((str(item.ref), item.session_key, item.text))
            last = item
            before = Mark(after=item.doc, seen=str(item.ref))
        if last is None:
            return
        mark = Mark(after=last.doc, seen=str(last.ref))
        if not todo:
            self.store.move_mark(mark)
            return
        for start in range(0, len(todo), BATCH):
            chunk = todo[start : start + BATCH]
            vectors = self._passages([text[:PASSAGE_CHARS] for _, _, text in chunk])
            end = start + BATCH >= len(todo)
            self.store.add(chunk, vectors, mark if end else self.store.mark())


class _Budget:
    """What one catch-up may still encode: items and characters (None: no limit)."""

    def __init__(self, *, items: int | None, chars: int | None) -> None:
        self.items, self.chars = items, chars
        self.used = self.spent_chars = 0
        self.spent = items is not None and items <= 0

    def take(self, length: int) -> Literal["take", "defer", "stop"]:
        """Count an item of ``length`` characters, or say to leave it (``defer``) or stop."""
        if self.spent:
            return "stop"
        if self.chars is not None and self.spent_chars + length > self.chars:
            return "defer"
        self.used += 1
        self.spent_chars += length
        self.spent = self.items is not None and self.used >= self.items
        return "take"


def _ref(item: Candidate) -> SourceRef:
    if item.kind == "history":
        return history_ref(item.cursor or 0)
    return message_ref(item.session_key or "", item.message_index or 0)
