"""``Recaller``: the items most relevant to a new message, within a token budget, no model.

Flow: the spans its event phrases anchor (``anchors``), the query's terms (``terms``), the
days it names (``dates``) and its rare names (``entities``) → a pool of candidates
from the search index (``IndexPort.candidates``: this session's messages and history
entries, or every non-internal session's when the workspace is one unified conversation) →
ranked again (``ranking``), fused by reciprocal rank with any other ``RankedSource``'s list
(``fusion``; e.g. dense retrieval) → what the prompt already carries verbatim is dropped → the best
items that fit the budget are quoted, oldest first (``items``).

Invariants.
- Isolation (DESIGN.md invariant 10): with ``scope`` set, only that session's messages and
  history entries are candidates; without it, never a ``dream:`` or ``cron:`` session's.
- The section never costs more than ``max_tokens`` (counted with the prompt's counter); a
  source too long for it is quoted as a verbatim excerpt, and an item that still does not fit
  is left out. ``max_tokens`` of 0 recalls nothing and reads nothing.
- Nothing is written; the index is caught up incrementally by the query itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta
from functools import partial
from typing import TYPE_CHECKING

from reverie.core.hits import Candidate
from reverie.core.marks import without_marks
from reverie.core.refs import history_ref, message_ref
from reverie.core.session import is_internal
from reverie.core.token_estimate import TokenCounter
from reverie.memory.recall.anchors import Anchored, anchored, with_anchors
from reverie.memory.recall.dates import DaySpan, resolve, without_dates
from reverie.memory.recall.entities import rare_names, with_entities
from reverie.memory.recall.fusion import RankedSource, fuse
from reverie.memory.recall.items import RecalledItem, RecallResult, excerpt, item_line, render
from reverie.memory.recall.neighbours import expand
from reverie.memory.recall.ranking import Ranked, RecallOptions, Signals, dedup, rank
from reverie.memory.recall.terms import QueryTerms

if TYPE_CHECKING:
    from reverie.storage.ports import IndexPort


@dataclass(frozen=True, slots=True, kw_only=True)
class Carried:
    """What the prompt already quotes verbatim, so recall does not repeat it.

    Attributes:
        session_key: the session the prompt is for.
        messages_from: that session's messages from this index on are in the prompt.
        cursors: history entries the prompt shows.
        texts: other texts the prompt shows whole (e.g. the compaction summary).
    """

    session_key: str
    messages_from: int
    cursors: frozenset[int] = frozenset()
    texts: frozenset[str] = field(default_factory=frozenset)

    def holds(self, candidate: Candidate) -> bool:
        """Whether the prompt already carries ``candidate``."""
        if candidate.kind == "history":
            return candidate.cursor in self.cursors or candidate.text.strip() in self.texts
        index = candidate.message_index if candidate.message_index is not None else -1
        return candidate.session_key == self.session_key and index >= self.messages_from


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranking:
    """Recall's ranking of one query: the terms it looked for, and the items, best first."""

    terms: tuple[str, ...]
    items: tuple[Ranked, ...]


class Recaller:
    """Chooses and quotes the remembered items most relevant to a new message."""

    def __init__(
        self,
        index: Callable[[], IndexPort],
        *,
        counter: TokenCounter,
        options: RecallOptions | None = None,
        sources: Sequence[RankedSource] = (),
    ) -> None:
        """Recall from the index ``index()`` returns (called per recall, so it may open lazily).

        Args:
            index: returns the search index (or any ``IndexPort``).
            counter: counts tokens as the prompt does.
            options: ranking options (``RecallOptions()`` by default).
            sources: other rankers (e.g. dense retrieval) fused with BM25 by reciprocal rank.
        """
        self._index = index
        self._counter = counter
        self.options = options or RecallOptions()
        self.sources: tuple[RankedSource, ...] = tuple(sources)

    def recall(
        self,
        query: str,
        *,
        max_tokens: int,
        scope: str | None,
        carried: Carried | None = None,
        context: Sequence[str] = (),
        now: datetime | None = None,
    ) -> RecallResult:
        """Return the items most relevant to ``query`` that fit ``max_tokens``, oldest first.

        Args:
            query: the new user message.
            max_tokens: the most the section may cost (0: recall nothing).
            scope: only this session's items; None: every non-internal session's.
            carried: what the prompt already quotes (left out of the recall).
            context: the user's recent turns; their words can reorder, never add, candidates.
            now: when the query is asked ("last Friday" is resolved against it).
        """
        empty = RecallResult(query=query, budget=max(0, max_tokens))
        if max_tokens <= 0:
            return empty
        ranking = self.ranking(query, scope=scope, carried=carried, context=context, now=now)
        chosen = self._fit(ranking.items, ranking.terms, max_tokens)
        text = render(chosen)
        return RecallResult(
            query=query,
            items=chosen,
            text=text,
            tokens=self._counter.text(text) if text else 0,
            budget=max_tokens,
        )

    def ranking(
        self,
        query: str,
        *,
        scope: str | None,
        carried: Carried | None = None,
        context: Sequence[str] = (),
        now: datetime | None = None,
    ) -> Ranking:
        """Every eligible item for ``query``, best first, no budget (``recall`` and ``search``).

        Arguments as for ``recall``.
        """
        index, options = self._index(), self.options
        events = anchored(query, index, scope) if options.anchors else Anchored(rest=query)
        windows, asked = events.windows, events.rest
        spans = resolve(asked, now) if now is not None and options.date_boost else ()
        terms = QueryTerms.of(without_dates(asked, now) if spans and now is not None else asked)
        if not (terms.terms or spans or windows):
            return Ranking(terms=terms.terms, items=())
        rare = rare_names(terms.names, index, at_most=options.entity_rare)
        signals = Signals(
            terms=terms.terms,
            keys=terms.keys,
            names=terms.names,
            spans=spans,
            expansion=_expansion(context, terms),
            now=now,
            present=terms.present,
            entities=frozenset(rare),
            windows=windows,
        )
        pool = index.candidates(
            self._searched(terms, dated=bool(spans)),
            limit=options.pool,
            session_key=scope,
            context_weight=options.context_weight,
            between=[*(_interval(span, now) for span in spans if now is not None), *windows],
        )
        pool = with_anchors(with_entities(pool, rare, index, scope), events.anchors)
        eligible = [c for c in pool if self._eligible(c, scope, carried)]
        ranked = self._ranked(query, eligible, signals, scope, carried)
        eligible_now = partial(self._eligible, scope=scope, carried=carried)
        ranked = expand(ranked, index, options, frozenset(terms.terms), scope, eligible_now)
        return Ranking(terms=terms.terms, items=tuple(ranked))

    def _searched(self, terms: QueryTerms, *, dated: bool) -> tuple[str, ...]:
        """The terms looked up in the index (the named days bring their own candidates)."""
        if self.options.name_query:
            return terms.terms
        searched = terms.searched
        return () if dated and set(searched) <= terms.names else searched

    def _ranked(
        self,
        query: str,
        eligible: list[Candidate],
        signals: Signals,
        scope: str | None,
        carried: Carried | None,
    ) -> Iterable[Ranked]:
        """The lexical ranking, fused by reciprocal rank with every other source's list."""
        if not self.sources:
            return rank(eligible, signals, self.options)
        lexical = list(rank(eligible, signals, replace(self.options, dedup=False)))
        others = [
            [
                c
                for c in source.ranked(query, limit=self.options.pool, scope=scope)
                if self._eligible(c, scope, carried)
            ]
            for source in self.sources
        ]
        fused = fuse(
            lexical,
            others,
            weights=(1.0, *(source.weight for source in self.sources)),
            names=[source.name for source in self.sources],
        )
        return dedup(fused) if self.options.dedup else fused

    def _eligible(self, candidate: Candidate, scope: str | None, carried: Carried | None) -> bool:
        if candidate.kind == "history" and not self.options.history:
            return False
        key = candidate.session_key
        if scope is None and is_internal(key):
            return False
        if scope is not None and key != scope:
            return False
        return carried is None or not carried.holds(candidate)

    def _fit(
        self, ranked: Iterable[Ranked], needles: tuple[str, ...], max_tokens: int
    ) -> tuple[RecalledItem, ...]:
        fixed = self._counter.text(render((_PLACEHOLDER,))) - self._counter.text(
            item_line(_PLACEHOLDER)
        )
        left = max_tokens - fixed
        chars = max(80, min(self.options.item_chars, max_tokens * 2))
        chosen: list[RecalledItem] = []
        for entry in ranked:
            item = _item(entry, excerpt(entry.candidate.text, needles, chars))
            cost = self._counter.text(item_line(item)) + 1
            if cost <= left:
                chosen.append(_with_tokens(item, cost))
                left -= cost
            if left < 16:
                break
        return self._within(sorted(chosen, key=_when), max_tokens)

    def _within(self, items: list[RecalledItem], max_tokens: int) -> tuple[RecalledItem, ...]:
        """Drop the lowest-scored items until the whole section fits (counts do not add up)."""
        while items and self._counter.text(render(tuple(items))) > max_tokens:
            items.remove(min(items, key=lambda item: item.score))
        return tuple(items)


def _interval(span: DaySpan, now: datetime) -> tuple[datetime, datetime]:
    """The span's days as times in the zone of ``now`` (end excluded)."""
    zone = now.tzinfo
    start = datetime.combine(span.first, time(), tzinfo=zone)
    return start, datetime.combine(span.last + timedelta(days=1), time(), tzinfo=zone)


def _expansion(context: Sequence[str], terms: QueryTerms) -> tuple[str, ...]:
    own = set(terms.terms)
    found: list[str] = []
    for text in context:
        found.extend(term for term in QueryTerms.of(text).terms if term not in own)
    return tuple(dict.fromkeys(found))[:16]


def _item(entry: Ranked, text: str) -> RecalledItem:
    candidate = entry.candidate
    if candidate.kind == "history" or candidate.message_index is None:
        ref = history_ref(candidate.cursor or 0)
        speaker = "history"
    else:
        ref = message_ref(candidate.session_key or "", candidate.message_index)
        speaker = candidate.role or "message"
    return RecalledItem(
        ref=ref,
        text=without_marks(text),
        timestamp=candidate.timestamp,
        speaker=speaker,
        score=round(entry.score, 4),
        why=entry.why,
    )


def _with_tokens(item: RecalledItem, tokens: int) -> RecalledItem:
    return replace(item, tokens=tokens)


def _when(item: RecalledItem) -> tuple[float, str]:
    return (item.timestamp.timestamp() if item.timestamp is not None else 0.0, str(item.ref))


_PLACEHOLDER = RecalledItem(
    ref=history_ref(1), text="x", timestamp=None, speaker="history", score=0.0, why=()
)
