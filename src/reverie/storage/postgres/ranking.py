"""BM25 on PostgreSQL: a query's statistics, its matches' positions, the best of them ranked.

PostgreSQL has no BM25 (``ts_rank_cd`` has no inverse document frequency: a rare word
weighed as much as a common one), so the index ranks here, by ``core.bm25``, the formula
SQLite FTS5's ``bm25()`` uses in the folder index. Per query, in the query's transaction:

- ``N``: the workspace's items (history entries and messages, internal sessions included, as
  the folder's ``fts`` table holds them), an exact count;
- ``n(p)`` per phrase: a capped count over both tables, at most ``min(HOLDING_CAP, N/2 + 1)``
  per table. Up to ``N/2`` it is exact, and past it FTS5's floor makes every count weigh the
  same, so on workspaces of up to ``2 * HOLDING_CAP`` items the idf is FTS5's exactly; on
  larger ones a phrase held by more than ``HOLDING_CAP`` items of a table is weighed as if
  held by that many (a little more than it should, where it already weighs little);
- ``avgdl``: the mean length in tokens of up to ``SAMPLE`` items per table (the first the
  database reads; exact on a workspace with fewer), since summing every item's length per
  query would cost a scan of the workspace;
- for each candidate (the newest ``WINDOW`` matches per source, found as before): its length
  in tokens and the positions of the query's tokens, read from its ``tsvector`` in SQL, so
  only a few numbers per item cross the wire; the phrase counts and the score are computed
  in Python (``core.bm25``), where a phrase (咖 then 啡) is easy to count, and the text and
  headline are fetched afterwards for the items returned only.

Tokens are PostgreSQL's ``simple`` parser's, not FTS5's ``porter unicode61``: words that
stem alike there ("meetings", "meeting") are two words here, and a length can differ where
the parsers split differently (a hyphenated word is three lexemes here). This module only
reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.core.bm25 import Corpus, phrase_frequency, score
from reverie.storage.postgres import tsearch

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn

HOLDING_CAP = 5_000
"""Per table, a phrase's holders are counted up to this many (see the module docstring)."""
SAMPLE = 1_000
"""Per table, the mean length is taken over at most this many items."""

_ITEMS = (
    "SELECT (SELECT count(*) FROM history WHERE workspace_id = %(ws)s)"
    " + (SELECT count(*) FROM messages WHERE workspace_id = %(ws)s)"
)
_LENGTH = "(SELECT coalesce(sum(cardinality(positions)), 0) FROM unnest({words}))"
"""An item's length in tokens: every position of every lexeme of its ``tsvector``."""
_LENGTHS = (
    "SELECT coalesce(sum(n), 0), count(*) FROM ("
    f"(SELECT {_LENGTH.format(words='words')} AS n FROM history"
    " WHERE workspace_id = %(ws)s LIMIT %(sample)s) UNION ALL"
    f" (SELECT {_LENGTH.format(words='words')} AS n FROM messages"
    " WHERE workspace_id = %(ws)s LIMIT %(sample)s)) AS s"
)
_HOLDERS = (
    "(SELECT count(*) FROM (SELECT 1 FROM history WHERE workspace_id = %(ws)s"
    " AND words @@ to_tsquery('simple', %(q{i})s) LIMIT %(cap)s) AS h{i})"
    " + (SELECT count(*) FROM (SELECT 1 FROM messages WHERE workspace_id = %(ws)s"
    " AND words @@ to_tsquery('simple', %(q{i})s) LIMIT %(cap)s) AS m{i})"
)
HITS = (
    " CROSS JOIN LATERAL (SELECT array_agg(lexeme || ':' || array_to_string(positions, ','))"
    " FILTER (WHERE lexeme = ANY(%(lexemes)s)) AS hits,"
    " coalesce(sum(cardinality(positions)), 0) AS length FROM unnest({words})) AS t"
)
"""Joined to a candidate: the query's tokens it holds (``token:pos,pos``) and its length."""
_BODIES = (
    "SELECT 'history', cursor, session_key, NULL::integer, NULL::text, at, {history}"
    " FROM history WHERE workspace_id = %(ws)s AND cursor = ANY(%(cursors)s) UNION ALL"
    " SELECT 'message', NULL::bigint, m.session_key, m.idx, m.role, m.at, {messages}"
    " FROM messages AS m JOIN unnest(%(keys)s::text[], %(idxs)s::integer[]) AS k(session_key, idx)"
    " USING (session_key, idx) WHERE m.workspace_id = %(ws)s"
)
"""The text (or headline) of the ranked items returned, read for those only."""


def corpus(conn: Conn, workspace: int, phrases: Sequence[Sequence[str]]) -> Corpus:
    """The statistics of a query of ``phrases`` (each a tuple of tokens) over ``workspace``."""
    params: dict[str, object] = {"ws": workspace, "sample": SAMPLE}
    items_row = conn.execute(_ITEMS, params).fetchone()
    items = int(str(items_row[0])) if items_row is not None else 0
    tokens_row = conn.execute(_LENGTHS, params).fetchone()
    tokens, sampled = (
        (0, 0) if tokens_row is None else (int(str(tokens_row[0])), int(str(tokens_row[1])))
    )
    params["cap"] = min(HOLDING_CAP, items // 2 + 1)
    for i, tokens_of in enumerate(phrases):
        params[f"q{i}"] = tsearch.phrase_query(tokens_of)
    holding: tuple[int, ...] = ()
    if phrases:
        sql = "SELECT " + ", ".join(_HOLDERS.format(i=i) for i in range(len(phrases)))
        row = conn.execute(sql, params).fetchone()
        holding = tuple(int(str(value)) for value in row) if row is not None else ()
    average = tokens / sampled if sampled else 0.0
    return Corpus(items=items, average_length=average, holding=holding)


def lexemes(phrases: Sequence[Sequence[str]]) -> list[str]:
    """Every token of ``phrases``, once (what ``HITS`` reads positions of)."""
    return list(dict.fromkeys(token for tokens in phrases for token in tokens))


def positions(hits: object) -> dict[str, list[int]]:
    """``HITS``'s array (``token:pos,pos``, or NULL) as token -> positions."""
    found: dict[str, list[int]] = {}
    for hit in hits if isinstance(hits, list) else ():
        token, _, places = str(hit).rpartition(":")
        found[token] = [int(place) for place in places.split(",") if place]
    return found


def bm25(hits: object, length: int, phrases: Sequence[Sequence[str]], stats: Corpus) -> float:
    """The BM25 score of a candidate from its ``HITS`` columns."""
    held = positions(hits)
    return score([phrase_frequency(held, tokens) for tokens in phrases], length, stats)


def top(
    conn: Conn,
    pool: list[tuple[object, ...]],
    phrases: Sequence[Sequence[str]],
    stats: Corpus,
    *,
    limit: int,
    params: dict[str, object],
    headline: bool,
) -> list[tuple[object, ...]]:
    """The best ``limit`` of ``pool`` (rows ending in ``hits, length``) by BM25.

    Newest first on ties; each as ``kind, cursor, key, idx, role, at, score, text`` (the
    headline when asked), the text read for the rows returned only.
    """
    scored = [(bm25(row[6], int(str(row[7])), phrases, stats), row) for row in pool]
    scored.sort(key=lambda pair: (-pair[0], newest(pair[1])))
    best = scored[:limit]
    if not best:
        return []
    messages = [row for _, row in best if row[0] == "message"]
    text = {"history": "content", "messages": "plain"}
    if headline:
        text = {
            source: f"ts_headline('simple', {tsearch.segmented(column)},"
            " to_tsquery('simple', %(q)s), %(opts)s)"
            for source, column in text.items()
        }
    bodies = {
        ident(row): row[6]
        for row in fetch(
            conn,
            _BODIES.format(history=text["history"], messages=text["messages"]),
            {
                **params,
                "cursors": [row[1] for _, row in best if row[0] == "history"],
                "keys": [row[2] for row in messages],
                "idxs": [row[3] for row in messages],
            },
        )
    }
    return [(*row[:6], value, bodies[ident(row)]) for value, row in best if ident(row) in bodies]


def fetch(conn: Conn, sql: str, params: dict[str, object]) -> list[tuple[object, ...]]:
    """The rows of ``sql``, as tuples."""
    return [tuple(row) for row in conn.execute(sql, params).fetchall()]


def ident(row: Sequence[object]) -> tuple[object, ...]:
    """What names a row of a search: kind, cursor, session key, index."""
    return (row[0], row[1], row[2], row[3])


def newest(row: Sequence[object]) -> float:
    """Sorts newer rows first (rows without a time last)."""
    at = row[5]
    return -at.timestamp() if isinstance(at, datetime) else float("inf")
