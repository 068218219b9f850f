"""Candidates for a caller that ranks again (recall): matching items with their whole text.

An item is scored on its own text (``fts``), its Chinese and Japanese two-character words
(``grams``) and its context (``ctx``: the end of the message before it),
``bm25(own) + bm25(pairs) + context_weight * bm25(context)``, higher is better; each table
gives its best ``limit`` items and the union is ranked. The phrases come from
``text.term_phrases`` (never from user text directly). A caller may also ask for the items
written in given intervals (a question about "last Friday"), whatever their words. This
module only reads.

Cost. FTS5 computes BM25 for every item a query matches, so a term held by tens of thousands
of items costs tens of milliseconds. A term held by at least ``COMMON`` items is common
(counted with a capped scan, so counting is cheap too). Common terms are dropped when the
query has rarer ones (they add little to BM25 anyway). When every term is common, the first
two are kept and only the newest ``WINDOW`` items of the whole index holding them count: the
window's edge is found without scoring (FTS5 walks its index newest first and stops), then
only the items past the edge that pass the filters are scored (BM25 is the costly part:
scoring the whole window and filtering afterwards took most of a common-word query). So a
query's cost is bounded whatever the size of the workspace, at the price of older items in a
query made only of very common words.
Whether a phrase is common is remembered (``CommonMemo``) until ``STALE`` items have changed:
commonness moves slowly, and counting it took about a fifth of a query's time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from reverie.core.clock import from_epoch
from reverie.core.hits import Candidate
from reverie.core.text import is_cjk_pair, term_phrases, unsegment
from reverie.storage.folder.index.query import Filters, conditions

COMMON = 1_500
"""A term held by at least this many items is common."""

WINDOW = 2_000
"""When every term is common, only the newest this many matching items are ranked."""


STALE = 1_000
"""``CommonMemo`` forgets what it knows once this many items were added or removed."""


@dataclass(slots=True, kw_only=True)
class CommonMemo:
    """Phrases known to be common or not, forgotten after ``STALE`` changes to the index."""

    known: dict[str, bool] = field(default_factory=dict)
    changes: int = 0

    def changed(self, count: int, *, rebuilt: bool = False) -> None:
        """Note that ``count`` items were added or removed (``rebuilt``: forget everything)."""
        self.changes += count
        if rebuilt or self.changes >= STALE or len(self.known) >= 4 * STALE:
            self.known.clear()
            self.changes = 0


def run_candidates(
    conn: sqlite3.Connection,
    phrases: list[str],
    filters: Filters,
    limit: int,
    *,
    context_weight: float,
    between: Sequence[tuple[float, float]] = (),
    memo: CommonMemo | None = None,
    pairs: Sequence[str] = (),
) -> list[Candidate]:
    """Return up to ``limit`` items matching any of ``phrases`` or ``pairs``, best first.

    ``pairs`` are quoted CJK two-character words, looked up in ``grams``; an item's score is
    the sum of its BM25 in ``fts`` and in ``grams``.

    Items written in one of the ``between`` intervals (POSIX times, end excluded) join with a
    score of 0 when they do not match: the newest ``limit`` of each interval.
    """
    scores: dict[int, float] = {}
    memo = memo if memo is not None else CommonMemo()
    for table, group in (("fts", phrases), ("grams", pairs)):
        if not group:
            continue
        rare = [phrase for phrase in group if not _common(conn, table, phrase, memo)]
        expression = " OR ".join(rare or group[:2])
        score = _scores if rare else _window_scores
        for doc, value in score(conn, table, expression, filters, limit).items():
            scores[doc] = scores.get(doc, 0.0) + value
        if context_weight > 0 and table == "fts":
            for doc, extra in score(conn, "ctx", expression, filters, limit).items():
                scores[doc] = scores.get(doc, 0.0) + context_weight * extra
    best = sorted(scores, key=lambda doc: (-scores[doc], -doc))[:limit]
    dated = [doc for span in between for doc in _written(conn, span, filters, limit)]
    best.extend(doc for doc in dict.fromkeys(dated) if doc not in scores)
    return _fetch(conn, best, scores)


def _written(
    conn: sqlite3.Connection, span: tuple[float, float], filters: Filters, limit: int
) -> list[int]:
    where, args = conditions(filters)
    sql = (
        f"SELECT d.id FROM docs AS d WHERE d.ts >= ? AND d.ts < ?{where} ORDER BY d.ts DESC LIMIT ?"  # noqa: S608
    )
    return [doc for (doc,) in conn.execute(sql, (*span, *args, limit))]


def rare_terms(conn: sqlite3.Connection, terms: Sequence[str], at_most: int) -> list[str]:
    """The ``terms`` at most ``at_most`` items of the whole index hold (a capped count each).

    A capped scan stops after ``at_most + 1`` matches and scores nothing, so a common word
    costs no more than a rare one (recall's links look rare words up, ``recall.neighbours``).
    """
    found: list[str] = []
    for term in terms:
        table = "grams" if is_cjk_pair(term) else "fts"
        phrases = [f'"{term}"'] if table == "grams" else term_phrases([term])
        if not phrases:
            continue
        sql = f"SELECT count(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?)"  # noqa: S608 -- table is a literal
        if conn.execute(sql, (phrases[0], at_most + 1)).fetchone()[0] <= at_most:
            found.append(term)
    return found


def _common(conn: sqlite3.Connection, table: str, phrase: str, memo: CommonMemo) -> bool:
    known = memo.known.get(f"{table}:{phrase}")
    if known is None:
        sql = f"SELECT count(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?)"  # noqa: S608 -- table is a literal
        known = bool(conn.execute(sql, (phrase, COMMON)).fetchone()[0] >= COMMON)
        memo.known[f"{table}:{phrase}"] = known
    return known


def _scores(
    conn: sqlite3.Connection, table: str, expression: str, filters: Filters, limit: int
) -> dict[int, float]:
    """Every match ranked by SQLite (the terms are rare, so matches are few)."""
    where, args = conditions(filters)
    sql = (
        f"SELECT d.id, bm25({table}) FROM {table} JOIN docs AS d ON d.id = {table}.rowid"  # noqa: S608 -- table is one of two literals
        f" WHERE {table} MATCH ?{where} ORDER BY bm25({table}) LIMIT ?"
    )
    return {doc: -rank for doc, rank in conn.execute(sql, (expression, *args, limit))}


def _window_scores(
    conn: sqlite3.Connection, table: str, expression: str, filters: Filters, limit: int
) -> dict[int, float]:
    """The newest ``WINDOW`` matches of the whole index, then the filters, ranked.

    The window's edge is found first without scoring (``window_edge``); only the matches at
    or after it that pass the filters are scored. Ties go to the newer item, as they did when
    the whole window was scored in rowid order and ranked here.
    """
    where, args = conditions(filters)
    sql = (
        f"SELECT d.id, bm25({table}) FROM {table} JOIN docs AS d ON d.id = {table}.rowid"  # noqa: S608 -- table is one of three literals
        f" WHERE {table} MATCH ? AND {table}.rowid >= ?{where}"
        f" ORDER BY bm25({table}), d.id DESC LIMIT ?"
    )
    edge = window_edge(conn, table, expression)
    return {doc: -rank for doc, rank in conn.execute(sql, (expression, edge, *args, limit))}


def window_edge(conn: sqlite3.Connection, table: str, expression: str) -> int:
    """The lowest rowid among the newest ``WINDOW`` matches (0 when there are fewer).

    FTS5 walks its matches newest first and stops at the offset, scoring none of them.
    """
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"  # noqa: S608 -- a literal
    row = conn.execute(sql, (expression, WINDOW - 1)).fetchone()
    return int(row[0]) if row is not None else 0


def _fetch(conn: sqlite3.Connection, docs: list[int], scores: dict[int, float]) -> list[Candidate]:
    """The items ``docs`` names, in that order, with their text (one query)."""
    marks = ", ".join("?" for _ in docs)
    sql = (
        "SELECT d.id, d.kind, d.cursor, d.session_key, d.position, d.role, d.ts, fts.body"  # noqa: S608 -- placeholders only
        f" FROM docs AS d JOIN fts ON fts.rowid = d.id WHERE d.id IN ({marks})"
    )
    found = {row[0]: row[1:] for row in conn.execute(sql, docs)} if docs else {}
    return [candidate_from_row(found[doc], scores.get(doc, 0.0)) for doc in docs if doc in found]


def candidate_from_row(
    row: tuple[str, int | None, str | None, int | None, str | None, float | None, str],
    score: float = 0.0,
) -> Candidate:
    """The candidate a ``docs`` row (kind, cursor, key, position, role, ts, body) names."""
    kind, cursor, key, position, role, ts, body = row
    return Candidate(
        kind="history" if kind == "history" else "message",
        score=score,
        text=unsegment(body),
        timestamp=from_epoch(ts) if ts is not None else None,
        session_key=key,
        cursor=cursor,
        message_index=position,
        role=role,
    )
