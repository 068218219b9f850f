"""The SQL of a PostgreSQL search's rows: each source's templates, the filters, the pool.

A pool is the rows a search ranks: with words, the newest ``WINDOW`` matches per source
(``matching.matched``) with BM25's columns (``ranking.counted``); without, the newest rows by
time. Only names of tables and columns are built in; every value is a parameter
(``filters``, ``ref_params``). ``reverie.storage.postgres.index`` runs them. No I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.core.hits import Source
from reverie.storage.postgres import matching, ranking
from reverie.storage.postgres.text_codec import to_db

if TYPE_CHECKING:
    from reverie.core.refs import SourceRef

INTERNAL = "^(dream|cron):"
"""Internal sessions' keys (``dream:``, ``cron:``), left out unless asked for."""
# Each source: the ``doc`` of the rows wanted first (no text read), then their rows.
_HISTORY = (
    "SELECT 'history' AS kind, h.cursor, h.session_key, NULL::integer AS idx,"
    " NULL::text AS role, h.at, {rank} FROM history AS h JOIN ({keys}) AS w USING (doc)"
    " WHERE h.workspace_id = %(ws)s"
)
_MESSAGES = (
    "SELECT 'message' AS kind, NULL::bigint AS cursor, m.session_key, m.idx, m.role, m.at,"
    " {rank} FROM messages AS m JOIN ({keys}) AS w USING (doc)"
    " WHERE m.workspace_id = %(ws)s"
)
_NEWEST = {
    "history": "SELECT doc FROM history WHERE workspace_id = %(ws)s{where} ORDER BY cursor DESC",
    "messages": (
        "SELECT doc FROM messages WHERE workspace_id = %(ws)s{where} ORDER BY at DESC NULLS LAST"
    ),
}
"""Without words: the newest rows by their time (a reference, an interval's items)."""
_REF = {
    "history": " AND cursor = %(ref_cursor)s",
    "messages": " AND session_key = %(ref_key)s AND idx = %(ref_idx)s",
}
CONTEXT = (
    "SELECT 'message' AS kind, NULL::bigint AS cursor, m.session_key, m.idx, m.role, m.at,"
    " p.context AS words FROM (SELECT x.session_key, x.idx + 1 AS next, {context} AS context"
    " FROM messages AS x JOIN ({keys}) AS w USING (doc) WHERE x.workspace_id = %(ws)s OFFSET 0)"
    " AS p JOIN messages AS m ON m.workspace_id = %(ws)s AND m.session_key = p.session_key"
    " AND m.idx = p.next WHERE p.context @@ to_tsquery('simple', %(q)s)"
)
"""Messages whose context (the end of the message before) matches, with its BM25 columns: the
previous messages are found by their whole words (the word table), then their end is checked.
The fence (``OFFSET 0``) makes each context computed once, not once for each use of it; the
next index is computed inside it, since under row-level security a join condition holding
``+`` (not ``LEAKPROOF``: it can overflow) cannot use an index before the policy."""
_SOURCES: tuple[tuple[Source, str, str, str], ...] = (
    ("history", _HISTORY, "h", "content"),
    ("messages", _MESSAGES, "m", "plain"),
)
"""Each source: its rows' template, their alias and their text column."""
WINDOW = 2_000
"""Per source, only the newest this many matching items are ranked (as the folder index)."""


def filters(
    session_key: str | None,
    between: tuple[datetime | None, datetime | None],
    include_internal: bool,  # noqa: FBT001
) -> str:
    """The conditions of a search's filters on an item's own columns, each `` AND ...``."""
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


def ref_params(ref: SourceRef | None) -> dict[str, object]:
    """The parameters of the item ``ref`` names (``pool_sql(..., ref=True)``)."""
    if ref is None:
        return {}
    key = None if ref.session_key is None else to_db(ref.session_key)
    return {"ref_cursor": ref.cursor, "ref_key": key, "ref_idx": ref.message_index}


def pool_sql(sources: Sequence[Source], filters: str, *, by_words: bool, ref: bool = False) -> str:
    """The SQL of a search's rows.

    Matching: every row of the newest ``WINDOW`` matches per source, with the BM25 columns
    (``ranking.counted``; ``ranking.top`` ranks them). Else the newest
    ``limit`` rows, with their text.
    """
    parts = [
        template.format(
            keys=(
                matching.matched(source, filters)
                if by_words
                else _NEWEST[source].format(where=(_REF[source] if ref else "") + filters)
                + " LIMIT %(window)s"
            ),
            rank=f"{alias}.words" if by_words else f"0.0 AS rank, {alias}.{column} AS body",
        )
        for source, template, alias, column in _SOURCES
        if source in sources
    ]
    pool = " UNION ALL ".join(f"({part})" for part in parts)
    if by_words:
        return ranking.counted(f"SELECT * FROM ({pool}) AS u")
    return f"SELECT * FROM ({pool}) AS pool ORDER BY 7 DESC, 6 DESC NULLS LAST LIMIT %(limit)s"
