"""BM25 on PostgreSQL: a query's statistics, its matches' positions, the best of them ranked.

PostgreSQL has no BM25 (``ts_rank_cd`` has no inverse document frequency: a rare word
weighed as much as a common one), so the index ranks here, by ``core.bm25``, the formula
SQLite FTS5's ``bm25()`` uses in the folder index. Per query, in the query's transaction:

- ``N``: the workspace's items (history entries and messages, internal sessions included, as
  the folder's ``fts`` table holds them), exact: the sum of its ``item_counts`` rows, which
  the writes keep (``terms_schema``), so no query counts the items;
- ``n(p)`` per phrase: a capped count over both tables, at most ``min(HOLDING_CAP, N/2 + 1)``
  per table. Up to ``N/2`` it is exact, and past it FTS5's floor makes every count weigh the
  same, so on workspaces of up to ``2 * HOLDING_CAP`` items the idf is FTS5's exactly; on
  larger ones a phrase held by more than ``HOLDING_CAP`` items of a table is weighed as if
  held by that many, so its idf is overstated (by about ln 2 when twice as many hold it):
  common words weigh more against rare ones than on the folder, never more than a word
  held by ``HOLDING_CAP`` items. The count stops early, so a common word costs a bounded time;
- ``avgdl``: the mean length in tokens of up to ``SAMPLE`` items per table (the first the
  database reads; exact on a workspace with fewer), since summing every item's length per
  query would cost a scan of the workspace; kept by the index (``Memo``) until the item
  count has moved by a tenth, as are the counts of phrases at least ``REMEMBERED_FROM``
  items hold (the folder index likewise remembers which phrases are common, ``CommonMemo``);
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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.core.bm25 import Corpus, Scorer, phrase_frequency
from reverie.storage.postgres import matching, tsearch

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn

HOLDING_CAP = 5_000
"""Per table, a phrase's holders are counted up to this many (see the module docstring)."""
SAMPLE = 1_000
"""Per table, the mean length is taken over at most this many items."""
REMEMBERED_FROM = 100
"""A phrase held by at least this many items has its count remembered (``Memo``)."""
_MEMO_SIZE = 4_096
"""At most this many phrases are remembered (then all are forgotten)."""

_ITEMS = "SELECT coalesce(sum(n), 0) FROM item_counts WHERE workspace_id = %(ws)s"
"""The workspace's items: the sum of its ``item_counts`` rows (``terms_schema``)."""


def length(words: str) -> str:
    """The SQL of an item's length in tokens: its lexemes plus the commas between positions.

    ``'a':1,4 'b':2`` is 3 tokens. Cheap, as reading the text form of a ``tsvector`` is (an
    exact count by ``unnest`` cost twice a whole query of common words); off by one for each
    comma inside a lexeme, which only a URL's or a path's lexeme holds (``'/a,b'``).
    """
    return _tokens(f"length({words})", f"{words}::text")


def _tokens(lexemes: str, text: str) -> str:
    return f"({lexemes} + length({text}) - length(replace({text}, ',', '')))"


def hits(words: str) -> str:
    """The SQL of the query's tokens an item holds, with their positions (``'a':1A,4A``).

    The ``tsvector`` with the query's lexemes (``%(lexemes)s``) marked, then only those kept:
    a few bytes per item cross the wire, whatever its length.
    """
    return f"ts_filter(setweight({words}, 'A', %(lexemes)s), '{{a}}')::text"


def counted(rows: str) -> str:
    """``rows`` (``kind, cursor, session_key, idx, role, at, words``) with BM25's columns.

    Each row as ``kind, cursor, session_key, idx, role, at, hits, length`` (``hits``,
    ``length``); the fences (``OFFSET 0``) make them read for these rows only, after any join,
    and the text form of each ``tsvector`` made once.
    """
    return (
        f"SELECT kind, cursor, session_key, idx, role, at, hits, {_tokens('lexemes', 't')} FROM"
        f" (SELECT kind, cursor, session_key, idx, role, at, {hits('words')} AS hits,"
        f" length(words) AS lexemes, words::text AS t FROM ({rows} OFFSET 0) AS r OFFSET 0)"
        " AS c"
    )


_LENGTHS = (
    "SELECT coalesce(sum(n), 0), count(*) FROM ("
    f"(SELECT {length('words')} AS n FROM history"
    " WHERE workspace_id = %(ws)s LIMIT %(sample)s) UNION ALL"
    f" (SELECT {length('words')} AS n FROM messages"
    " WHERE workspace_id = %(ws)s LIMIT %(sample)s)) AS s"
)
_BODIES = (
    "SELECT 'history', cursor, session_key, NULL::integer, NULL::text, at, {history}"
    " FROM history WHERE workspace_id = %(ws)s AND cursor = ANY(%(cursors)s) UNION ALL"
    " SELECT 'message', NULL::bigint, m.session_key, m.idx, m.role, m.at, {messages}"
    " FROM messages AS m JOIN unnest(%(keys)s::text[], %(idxs)s::integer[]) AS k(session_key, idx)"
    " USING (session_key, idx) WHERE m.workspace_id = %(ws)s"
)
"""The text (or headline) of the ranked items returned, read for those only."""
_HIT = re.compile(r"'((?:[^']|'')*)':([0-9A-D,]+)")


@dataclass(slots=True)
class Memo:
    """What an index remembers between queries: the mean length and common phrases' counts.

    Both are taken again once the item count moved by a tenth since: summing lengths reads
    every sampled ``tsvector`` (about 30 ms for 2,000 items here, more than the rest of a
    selective query), and counting a common phrase reads up to ``HOLDING_CAP`` rows a table,
    while both move slowly. A phrase fewer than ``REMEMBERED_FROM`` items hold is counted on
    every query (cheap, and where a count matters most). One memo per index, so each server
    keeps its own; threads race benignly (a tuple or an entry swapped whole).
    """

    sampled: tuple[int, float] = (-1, 0.0)
    """The item count when last sampled (-1: never) and the mean length then."""
    holding: dict[tuple[str, ...], tuple[int, int]] = field(default_factory=dict)
    """Per common phrase: the item count when it was counted, and its count."""

    def average(self, conn: Conn, workspace: int, items: int) -> float:
        """The mean length, sampled first when ``items`` moved by a tenth since the last time."""
        then, average = self.sampled
        if not _fresh(then, items):
            row = conn.execute(_LENGTHS, {"ws": workspace, "sample": SAMPLE}).fetchone()
            tokens, counted = (0, 0) if row is None else (int(str(n)) for n in row)
            average = tokens / counted if counted else 0.0
            self.sampled = (items, average)
        return average

    def known(self, phrase: tuple[str, ...], items: int) -> int | None:
        """The remembered count of a common ``phrase``, if still fresh."""
        then, count = self.holding.get(phrase, (-1, 0))
        return count if _fresh(then, items) else None

    def note(self, phrase: tuple[str, ...], items: int, count: int) -> None:
        """Remember ``count`` if the phrase is common."""
        if count >= REMEMBERED_FROM:
            if len(self.holding) >= _MEMO_SIZE:
                self.holding.clear()
            self.holding[phrase] = (items, count)


def _fresh(then: int, items: int) -> bool:
    return then >= 0 and abs(items - then) * 10 <= then


def corpus(conn: Conn, workspace: int, phrases: Sequence[tuple[str, ...]], memo: Memo) -> Corpus:
    """The statistics of a query of ``phrases`` (each a tuple of tokens) over ``workspace``."""
    params: dict[str, object] = {"ws": workspace}
    items_row = conn.execute(_ITEMS, params).fetchone()
    items = int(str(items_row[0])) if items_row is not None else 0
    cap = min(HOLDING_CAP, items // 2 + 1)
    counts = {phrase: memo.known(phrase, items) for phrase in phrases}
    asked = [phrase for phrase, count in counts.items() if count is None]
    for phrase, value in zip(asked, matching.counts(conn, workspace, asked, cap), strict=True):
        counts[phrase] = value
        memo.note(phrase, items, value)
    holding = tuple(counts[phrase] or 0 for phrase in phrases)
    return Corpus(items=items, average_length=memo.average(conn, workspace, items), holding=holding)


def lexemes(phrases: Sequence[Sequence[str]]) -> list[str]:
    """Every token of ``phrases``, once (what ``hits`` reads positions of)."""
    return list(dict.fromkeys(token for tokens in phrases for token in tokens))


def positions(hits: object) -> dict[str, list[int]]:
    """``hits``'s text (``'a':1A,4A 'b':2A``) as token -> positions."""
    return {token: _places(places) for token, places in _held(hits).items()}


def frequencies(hits: object, phrases: Sequence[Sequence[str]]) -> list[int]:
    """How many times a candidate holds each of ``phrases``, from its ``hits`` column.

    A one-token phrase is counted off the text (its positions, never parsed); only a phrase
    of several tokens has its positions read (``core.bm25.phrase_frequency``).
    """
    held = _held(hits)
    found: list[int] = []
    for tokens in phrases:
        if len(tokens) == 1:
            places = held.get(tokens[0])
            found.append(places.count(",") + 1 if places else 0)
        else:
            where = {token: _places(held[token]) for token in tokens if token in held}
            found.append(phrase_frequency(where, tokens))
    return found


def _held(hits: object) -> dict[str, str]:
    return {token.replace("''", "'"): places for token, places in _HIT.findall(str(hits or ""))}


def _places(places: str) -> list[int]:
    return [int(place.rstrip("ABCD")) for place in places.split(",")]


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
    scorer = Scorer.of(stats)
    scored = [(scorer(frequencies(row[6], phrases), int(str(row[7]))), row) for row in pool]
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
