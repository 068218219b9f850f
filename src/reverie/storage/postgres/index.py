"""Full-text search over one workspace's history entries and session messages in PostgreSQL.

The index is the tables themselves: ``history.words`` and ``messages.words`` are generated
``tsvector`` columns (the ``simple`` configuration: lower-cased words, no stemming, no stop
words, so every language is treated alike) with GIN indexes, written in the same transaction
as the row. So the index is never behind the stores, ``refresh`` and ``rebuild`` have nothing
to do, and every server sees every other server's writes at once.

Ranking. A query matches items holding any of its words (an OR, as BM25 in the file backend
does); ``ts_rank_cd`` (cover density: how many query words and how close together, with the
length normalisation ``32``) orders them, newest first on ties. Only the newest ``WINDOW``
matches of each source are ranked, so a query of very common words costs a bounded time (the
folder index makes the same trade, at the price of older items). What PostgreSQL does not
offer: BM25's inverse document frequency (a rare word weighs as much as a common one) and
word segmentation for Chinese or Japanese (a run of CJK characters is one word), so recall
in those languages is weaker than the file backend's; ``docs/scale-out.md`` says so.
Messages of internal sessions (``dream:``, ``cron:``) are left out unless asked for. A source
reference alone (``#h12``, ``#m3@cli:default``: ``reverie.core.refs``) returns the item it
names, under the same filters, as on a folder (it is never read as the word ``h12``). This
module only reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, cast

from reverie.core.hits import (
    SNIPPET_CLOSE,
    SNIPPET_OPEN,
    RefreshStats,
    SearchHit,
    Source,
    SourceKind,
)
from reverie.core.marks import without_marks
from reverie.core.refs import SourceRef, parse_ref
from reverie.storage.folder.index.candidates import Candidate
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn, Tenant

_WORD = re.compile(r"\w+")
_INTERNAL = "^(dream|cron):"
_HEADLINE = f"StartSel={SNIPPET_OPEN}, StopSel={SNIPPET_CLOSE}, MaxWords=24, MinWords=8"
_MATCH = " AND words @@ to_tsquery('simple', %(q)s)"
# Each source: the keys of its newest WINDOW matches first (no text read), then their rows.
_HISTORY = (
    "SELECT 'history' AS kind, h.cursor, h.session_key, NULL::integer AS idx,"
    " NULL::text AS role, h.at, h.words, h.content AS body FROM history AS h JOIN ({keys})"
    " AS w USING (cursor) WHERE h.workspace_id = %(ws)s"
)
_MESSAGES = (
    "SELECT 'message' AS kind, NULL::bigint AS cursor, m.session_key, m.idx, m.role, m.at,"
    " m.words, m.plain AS body FROM messages AS m JOIN ({keys}) AS w USING (session_key, idx)"
    " WHERE m.workspace_id = %(ws)s"
)
_KEYS = {
    "history": ("SELECT cursor FROM history WHERE workspace_id = %(ws)s", " ORDER BY cursor DESC"),
    "messages": (
        "SELECT session_key, idx FROM messages WHERE workspace_id = %(ws)s",
        " ORDER BY at DESC NULLS LAST",
    ),
}
_REF = {
    "history": " AND cursor = %(ref_cursor)s",
    "messages": " AND session_key = %(ref_key)s AND idx = %(ref_idx)s",
}
_REF_SNIPPET = 400
"""A referenced item's snippet: its first this many characters (as the folder index)."""
WINDOW = 2_000
"""Per source, only the newest this many matching items are ranked (as the folder index)."""


def tsquery(words: Sequence[str]) -> str:
    """Return a ``to_tsquery`` text matching any of ``words`` (only word characters survive)."""
    found = [w.lower() for text in words for w in _WORD.findall(text)]
    return " | ".join(f"'{w}'" for w in dict.fromkeys(found))


class PgIndex:
    """Search one workspace; the index is maintained by the database with every write."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

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
        rows = self._run(
            "" if ref is not None else tsquery([query]),
            ref=ref,
            headline=True,
            limit=limit,
            session_key=session_key,
            between=(since, until),
            sources=sources,
            include_internal=include_internal,
        )
        return [
            SearchHit(
                kind=_kind(row[0]),
                score=float(str(row[6])),
                snippet=without_marks(from_db(str(row[7])))[
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
        context_weight: float = 0.3,  # noqa: ARG002 (no context column here; see the docstring)
        between: Sequence[tuple[datetime, datetime]] = (),
    ) -> list[Candidate]:
        """Items matching any of ``terms``, with their whole text, best first."""
        rows = self._run(
            tsquery(terms),
            limit=limit,
            session_key=session_key,
            between=(None, None),
            sources=("history", "messages"),
            include_internal=include_internal,
        )
        for start, end in between:
            rows += self._run(
                "", limit=limit, session_key=session_key, between=(start, end),
                sources=("history", "messages"), include_internal=include_internal,
            )  # fmt: skip
        seen: set[tuple[object, ...]] = set()
        found: list[Candidate] = []
        for row in rows:
            if (ident := (row[0], row[1], row[2], row[3])) not in seen:
                seen.add(ident)
                found.append(_candidate(row))
        return found

    def close(self) -> None:
        """Nothing to release."""

    def _run(
        self,
        query: str,
        *,
        headline: bool = False,
        ref: SourceRef | None = None,
        limit: int,
        session_key: str | None,
        between: tuple[datetime | None, datetime | None],
        sources: Sequence[Source],
        include_internal: bool,
    ) -> list[tuple[object, ...]]:
        if ref is not None:  # one item by its name: no words to match, no headline
            sources = [s for s in sources if (s == "history") == (ref.kind == "history")]
            headline = False
        elif not query and between == (None, None):
            return []
        if not sources:
            return []
        filters = _filters(session_key, between, include_internal)
        sql = _ranked_sql(bool(query), sources, filters, headline, ref=ref is not None)
        params = {
            **_ref_params(ref),
            "ws": self._tenant.id,
            "q": query,
            "opts": _HEADLINE,
            "key": None if session_key is None else to_db(session_key),
            "since": between[0],
            "until": between[1],
            "internal": _INTERNAL,
            "limit": limit,
            "window": WINDOW,
        }
        with self._tenant.transaction() as conn:
            return _fetch(conn, sql, params)


def _filters(
    session_key: str | None,
    between: tuple[datetime | None, datetime | None],
    include_internal: bool,  # noqa: FBT001
) -> str:
    sql = ""
    if session_key is not None:
        sql += " AND session_key = %(key)s"
    elif not include_internal:
        sql += " AND coalesce(session_key, '') !~ %(internal)s"
    if between[0] is not None:
        sql += " AND at >= %(since)s"
    if between[1] is not None:
        sql += " AND at <= %(until)s"
    return sql


def _ref_params(ref: SourceRef | None) -> dict[str, object]:
    if ref is None:
        return {}
    key = None if ref.session_key is None else to_db(ref.session_key)
    return {"ref_cursor": ref.cursor, "ref_key": key, "ref_idx": ref.message_index}


def _ranked_sql(
    matching: bool,  # noqa: FBT001
    sources: Sequence[Source],
    filters: str,
    headline: bool,  # noqa: FBT001
    *,
    ref: bool = False,
) -> str:
    parts = [
        template.format(
            keys=_KEYS[source][0]
            + (_MATCH if matching else "")
            + (_REF[source] if ref else "")
            + filters
            + _KEYS[source][1]
            + " LIMIT %(window)s"
        )
        for source, template in (("history", _HISTORY), ("messages", _MESSAGES))
        if source in sources
    ]
    rank = "ts_rank_cd(words, to_tsquery('simple', %(q)s), 32)" if matching else "0.0"
    # Ranking reads each candidate's tsvector and ts_headline re-parses its text: both run
    # only on the newest WINDOW matches, and the headline only on the rows returned.
    sql = (
        f"SELECT kind, cursor, session_key, idx, role, at, {rank} AS rank, body"
        f" FROM ({' UNION ALL '.join(f'({part})' for part in parts)}) AS pool"
        " ORDER BY 7 DESC, 6 DESC NULLS LAST LIMIT %(limit)s"
    )
    if not headline:
        return sql
    text = "ts_headline('simple', body, to_tsquery('simple', %(q)s), %(opts)s)"
    return (
        f"SELECT kind, cursor, session_key, idx, role, at, rank, {text}"
        f" FROM ({sql}) AS top ORDER BY 7 DESC, 6 DESC NULLS LAST"
    )


def _fetch(conn: Conn, sql: str, params: dict[str, object]) -> list[tuple[object, ...]]:
    return [tuple(row) for row in conn.execute(sql, params).fetchall()]


def _kind(value: object) -> SourceKind:
    return "history" if value == "history" else "message"


def _candidate(row: Sequence[object]) -> Candidate:
    return Candidate(
        kind=_kind(row[0]),
        score=float(str(row[6])),
        text=from_db(str(row[7])),
        timestamp=cast("datetime | None", row[5]),
        session_key=None if row[2] is None else from_db(str(row[2])),
        cursor=None if row[1] is None else int(str(row[1])),
        message_index=None if row[3] is None else int(str(row[3])),
        role=None if row[4] is None else str(row[4]),
    )
