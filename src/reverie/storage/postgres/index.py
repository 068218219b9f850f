"""Full-text search over one workspace's history entries and session messages in PostgreSQL.

The index is the tables themselves: ``history.words`` and ``messages.words`` are generated
``tsvector`` columns (the ``simple`` configuration: lower-cased words, no stemming, no stop
words; every Chinese and Japanese character its own token, ``tsearch``), and the word tables
``history_terms`` / ``message_terms`` hold each item's words as btree rows, kept by triggers
(``terms_schema``); all written in the same transaction as the row. So the index is never
behind the stores, ``refresh`` and ``rebuild`` have nothing to do, and every server sees
every other server's writes at once. A match is found through the word tables
(``matching``), a btree any role may use under row-level security, and confirmed by
``words @@ query`` on the items reached: its cost follows the matches read, not the
workspace's size.

One search path with the folder index: the same terms (``core.text.query_terms`` for a
query, each recall term a phrase of ``core.text.phrase_tokens``, so "咖啡" is found inside
"我每天喝咖啡"), the same source references (a query that is exactly ``#h12`` or
``#m3@cli:default``, ``reverie.core.refs``, returns the item it names under the same filters;
it is never read as the word ``h12``), the same context rule for recall (a message whose
previous message's last ``core.text.CONTEXT_CHARS`` characters match adds
``context_weight`` x that match's rank to its own), the same isolation (messages of
internal sessions, ``dream:`` and ``cron:``, are left out unless asked for), the same rare
words for recall's links (``rare_terms``: a capped count over the whole workspace).

Ranking. A query matches items holding any of its terms (an OR, as in the file backend)
and is ranked by BM25 as SQLite FTS5's ``bm25()`` computes it in the folder index
(``core.bm25``; the statistics, capped counts and token positions come from ``ranking``),
newest first on ties; an item's score in ``candidates`` is ``bm25(own) + context_weight x
bm25(context)``, as the folder's (which also adds ``bm25(pairs)`` of a separate table for
Chinese and Japanese pairs: here a pair is a phrase of the own text). Only the newest
``WINDOW`` matches of each source are ranked, newest by ``doc`` (the latest written, as the
folder's row ids), so a query of very common words costs a bounded time (the folder index
makes the same trade, at the price of older items); the headline is computed for the rows
returned only. This module only reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, cast

from reverie.core.hits import (
    SNIPPET_CLOSE,
    SNIPPET_OPEN,
    Candidate,
    RefreshStats,
    SearchHit,
    Source,
    SourceKind,
)
from reverie.core.marks import without_marks
from reverie.core.refs import SourceRef, parse_ref
from reverie.core.text import CONTEXT_CHARS, query_terms
from reverie.storage.postgres import matching, ranking, search_sql, tsearch
from reverie.storage.postgres.search_sql import WINDOW
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.core.bm25 import Corpus
    from reverie.storage.postgres.database import Tenant

_HEADLINE = f"StartSel={SNIPPET_OPEN}, StopSel={SNIPPET_CLOSE}, MaxWords=24, MinWords=8"
_REF_SNIPPET = 400
"""A referenced item's snippet: its first this many characters (as the folder index)."""


class PgIndex:
    """Search one workspace; the index is maintained by the database with every write."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant
        self._memo = ranking.Memo()

    def refresh(self) -> RefreshStats:
        """Nothing to catch up: the tables are the index."""
        return RefreshStats()

    def rebuild(self) -> RefreshStats:
        """Nothing to rebuild: the tables are the index."""
        return RefreshStats()

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        sources: Sequence[Source] = ("history", "messages"),
        include_internal: bool = False,
    ) -> list[SearchHit]:
        """Return the items that best match ``query``, best first, with a snippet each.

        A source reference alone (``#h12``) returns the item it names, if it passes the filters.
        """
        ref = parse_ref(query)
        rows = (
            self._named(
                ref,
                session_key=session_key,
                between=(since, until),
                sources=sources,
                include_internal=include_internal,
            )
            if ref is not None
            else self._run(
                query_terms(query),
                headline=True,
                limit=limit,
                session_key=session_key,
                between=(since, until),
                sources=sources,
                include_internal=include_internal,
            )
        )
        return [
            SearchHit(
                kind=_kind(row[0]),
                score=float(str(row[6])),
                snippet=without_marks(tsearch.unsegment(from_db(str(row[7]))))[
                    : _REF_SNIPPET if ref is not None else None
                ],
                timestamp=cast("datetime | None", row[5]),
                session_key=None if row[2] is None else from_db(str(row[2])),
                cursor=None if row[1] is None else int(str(row[1])),
                message_index=None if row[3] is None else int(str(row[3])),
                role=None if row[4] is None else str(row[4]),
            )
            for row in rows
        ]

    def candidates(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        session_key: str | None = None,
        include_internal: bool = False,
        context_weight: float = 0.3,
        between: Sequence[tuple[datetime, datetime]] = (),
    ) -> list[Candidate]:
        """Items matching any of ``terms``, with their whole text, best first.

        As the folder index: each term a phrase; an item's score is its own rank plus
        ``context_weight`` x its context's (0 ignores context); items written ``between``
        join after the matches with a score of 0 (the newest ``limit`` of each interval).
        """
        query = tsearch.tsquery(terms)
        run = partial(
            self._run, limit=limit, session_key=session_key,
            sources=("history", "messages"), include_internal=include_internal,
        )  # fmt: skip
        scores: dict[tuple[object, ...], float] = {}
        rows: dict[tuple[object, ...], tuple[object, ...]] = {}
        stats = self._stats(terms) if query else None  # once for both the own text and context
        for row in run(terms, between=(None, None), stats=stats) if query else []:
            rows[ranking.ident(row)], scores[ranking.ident(row)] = row, float(str(row[6]))
        if query and context_weight > 0:
            for row in self._context(terms, limit, session_key, include_internal, stats):
                ident = ranking.ident(row)
                rows.setdefault(ident, row)
                scores[ident] = scores.get(ident, 0.0) + context_weight * float(str(row[6]))
        order = sorted(scores, key=lambda ident: (-scores[ident], ranking.newest(rows[ident])))
        found = [_candidate(rows[ident], scores[ident]) for ident in order[:limit]]
        for start, end in between:
            for row in run([], between=(start, end)):
                if (ident := ranking.ident(row)) not in scores:
                    scores[ident] = 0.0
                    found.append(_candidate(row, 0.0))
        return found

    def rare_terms(self, terms: Sequence[str], *, at_most: int) -> list[str]:
        """The ``terms`` at most ``at_most`` items of the whole workspace hold (as the folder's).

        A capped count each (it stops after ``at_most + 1`` matches per table), so a common
        word costs no more than a rare one; recall's links look rare words up with it. Every
        term's count is a column of one statement (``matching.counts``), not one a term.
        """
        asked = [(term, tokens) for term in terms for tokens in tsearch.phrases([term])[:1]]
        if not asked:
            return []
        with self._tenant.transaction() as conn:
            counts = matching.counts(conn, self._tenant.id, [t for _, t in asked], at_most + 1)
        return [term for (term, _), n in zip(asked, counts, strict=True) if n <= at_most]

    def close(self) -> None:
        """Nothing to release."""

    def _stats(self, terms: Sequence[str]) -> Corpus:
        with self._tenant.transaction() as conn:
            return ranking.corpus(conn, self._tenant.id, tsearch.phrases(terms), self._memo)

    def _context(
        self,
        terms: Sequence[str],
        limit: int,
        session_key: str | None,
        include_internal: bool,  # noqa: FBT001
        stats: Corpus | None,
    ) -> list[tuple[object, ...]]:
        """Messages by their context, ranked on it alone.

        BM25 with the own text's idf and the mean length of the contexts found (the folder's
        ``ctx`` table keeps statistics of its own: the one place the two differ by design).
        """
        filters = search_sql.filters(session_key, (None, None), include_internal)
        context = tsearch.words(f"right(plain, {CONTEXT_CHARS})")
        phrases = tsearch.phrases(terms)
        params = {
            "ws": self._tenant.id,
            "q": tsearch.tsquery(terms),
            "lexemes": ranking.lexemes(phrases),
            "drivers": matching.drivers(phrases),
            "key": None if session_key is None else to_db(session_key),
            "internal": search_sql.INTERNAL,
            "window": WINDOW,
        }
        keys = matching.matched("messages", filters)
        sql = ranking.counted(search_sql.CONTEXT.format(context=context, keys=keys))
        with self._tenant.transaction() as conn:
            stats = stats or ranking.corpus(conn, self._tenant.id, phrases, self._memo)
            pool = ranking.fetch(conn, sql, params)
            lengths = [int(str(row[7])) for row in pool]
            stats = replace(stats, average_length=sum(lengths) / max(1, len(lengths)))
            return ranking.top(
                conn, pool, phrases, stats, limit=limit, params=params, headline=False
            )

    def _named(
        self,
        ref: SourceRef,
        *,
        session_key: str | None,
        between: tuple[datetime | None, datetime | None],
        sources: Sequence[Source],
        include_internal: bool,
    ) -> list[tuple[object, ...]]:
        """The one item ``ref`` names, if it passes the filters (no words, no headline)."""
        sources = [s for s in sources if (s == "history") == (ref.kind == "history")]
        if not sources:
            return []
        filters = search_sql.filters(session_key, between, include_internal)
        sql = search_sql.pool_sql(sources, filters, by_words=False, ref=True)
        params = {**search_sql.ref_params(ref), **self._params(session_key, between), "limit": 1}
        with self._tenant.transaction() as conn:
            return ranking.fetch(conn, sql, params)

    def _run(
        self,
        terms: Sequence[str],
        *,
        headline: bool = False,
        limit: int,
        session_key: str | None,
        between: tuple[datetime | None, datetime | None],
        sources: Sequence[Source],
        include_internal: bool,
        stats: Corpus | None = None,
    ) -> list[tuple[object, ...]]:
        query = tsearch.tsquery(terms)
        if (not query and between == (None, None)) or not sources:
            return []
        phrases = tsearch.phrases(terms) if query else []
        filters = search_sql.filters(session_key, between, include_internal)
        sql = search_sql.pool_sql(sources, filters, by_words=bool(query))
        params = {
            **self._params(session_key, between),
            "q": query,
            "lexemes": ranking.lexemes(phrases),
            "drivers": matching.drivers(phrases),
            "opts": _HEADLINE,
            "limit": limit,
        }
        with self._tenant.transaction() as conn:
            if not query:
                return ranking.fetch(conn, sql, params)
            stats = stats or ranking.corpus(conn, self._tenant.id, phrases, self._memo)
            pool = ranking.fetch(conn, sql, params)
            return ranking.top(
                conn, pool, phrases, stats, limit=limit, params=params, headline=headline
            )

    def _params(
        self, session_key: str | None, between: tuple[datetime | None, datetime | None]
    ) -> dict[str, object]:
        return {
            "ws": self._tenant.id,
            "key": None if session_key is None else to_db(session_key),
            "since": between[0],
            "until": between[1],
            "internal": search_sql.INTERNAL,
            "window": WINDOW,
        }


def _kind(value: object) -> SourceKind:
    return "history" if value == "history" else "message"


def _candidate(row: Sequence[object], score: float) -> Candidate:
    return Candidate(
        kind=_kind(row[0]),
        score=score,
        text=from_db(str(row[7])),
        timestamp=cast("datetime | None", row[5]),
        session_key=None if row[2] is None else from_db(str(row[2])),
        cursor=None if row[1] is None else int(str(row[1])),
        message_index=None if row[3] is None else int(str(row[3])),
        role=None if row[4] is None else str(row[4]),
    )
