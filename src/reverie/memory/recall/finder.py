"""``find``: search ranked as recall ranks (``search()``, ``reverie search``, MCP, agent tools).

Plain BM25 put the evidence among its first 10 hits for 0.40 of our dev set's questions;
recall's ranking (``Recaller.ranking``: the lexical steps of ``ranking``, named days, fused
with dense recall when that is on) for 0.62 lexically and 0.78 with dense. So a search is
recall's ranking of the query, without the budget and without leaving anything out as
already in a prompt, shown as ``SearchHit`` values (the score is recall's; the snippet a
verbatim excerpt around the first term it holds, terms in bold).

Plain BM25 (``SearchIndex.search``) still answers what the ranking cannot: a query that is a
source reference (``#h12``: that item alone), a query of function words only, and the rest
of a list the ranking did not fill (a time filter keeps few of recall's pool, or ``limit`` is
larger than the pool). Those hits follow the ranked ones with score 0. Isolation is recall's
and the index's: ``session_key`` keeps that session's items, none keeps every session's but
reverie's own (``dream:``, ``cron:``). This module does no I/O of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from reverie.core.clock import require_aware
from reverie.core.hits import SNIPPET_CLOSE, SNIPPET_OPEN, SearchHit
from reverie.core.marks import without_marks
from reverie.core.refs import parse_ref
from reverie.core.words import prefix_stem
from reverie.memory.recall.items import excerpt
from reverie.memory.recall.recaller import Recaller

if TYPE_CHECKING:
    from reverie.storage.ports import IndexPort

SNIPPET_CHARS = 160
"""About as long as the index's own snippets (24 tokens)."""


def find(
    recaller: Recaller,
    index: IndexPort,
    query: str,
    *,
    limit: int,
    session_key: str | None,
    since: datetime | None = None,
    until: datetime | None = None,
    now: datetime | None = None,
) -> list[SearchHit]:
    """Return up to ``limit`` items for ``query``, best first, ranked as recall ranks.

    Args:
        recaller: the engine's recall (its options and its fused sources, e.g. dense).
        index: the search index, for references and to fill the list.
        query: free text, or a source reference.
        limit: at most this many hits (at least 1).
        session_key: only this session's items; None: every non-internal session's.
        since: only items written at or after this time (timezone-aware).
        until: only items written before this time (timezone-aware).
        now: when the query is asked ("last Friday" is resolved against it).
    """
    since = None if since is None else require_aware(since)
    until = None if until is None else require_aware(until)
    plain = partial(index.search, query, session_key=session_key, since=since, until=until)
    if parse_ref(query) is not None:
        return plain(limit=limit)
    ranking = recaller.ranking(query, scope=session_key, now=now)
    hits: list[SearchHit] = []
    for entry in ranking.items:
        item = entry.candidate
        if _within(item.timestamp, since, until):
            snippet = _snippet(item.text, ranking.terms)
            hits.append(
                SearchHit(
                    kind=item.kind,
                    score=round(entry.score, 4),
                    snippet=snippet,
                    timestamp=item.timestamp,
                    session_key=item.session_key,
                    cursor=item.cursor,
                    message_index=item.message_index,
                    role=item.role,
                )
            )
            if len(hits) == limit:
                return hits
    seen = {_key(hit) for hit in hits}
    rest = [hit for hit in plain(limit=limit) if _key(hit) not in seen]
    return hits + [replace(hit, score=0.0) for hit in rest][: limit - len(hits)]


def _key(hit: SearchHit) -> tuple[str, int | None, str | None, int | None]:
    return (hit.kind, hit.cursor, hit.session_key, hit.message_index)


def _within(when: datetime | None, since: datetime | None, until: datetime | None) -> bool:
    if since is None and until is None:
        return True
    if when is None:
        return False
    return (since is None or when >= since) and (until is None or when < until)


def _snippet(text: str, terms: Sequence[str]) -> str:
    """A verbatim excerpt around the first term ``text`` holds, each term's words in bold."""
    shown = excerpt(
        " ".join(without_marks(text).split()), tuple(prefix_stem(t) for t in terms), SNIPPET_CHARS
    )
    words = sorted({t for t in terms if t.strip()}, key=len, reverse=True)
    if not words:
        return shown
    pattern = "|".join(
        rf"\b{re.escape(prefix_stem(t))}\w*" if t.isascii() else re.escape(t) for t in words
    )
    return re.sub(
        f"(?i)(?:{pattern})", lambda m: f"{SNIPPET_OPEN}{m.group(0)}{SNIPPET_CLOSE}", shown
    )
