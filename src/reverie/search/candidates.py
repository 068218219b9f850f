"""Candidates for a caller that ranks again (recall): matching items with their whole text.

An item is scored on its own text (``fts``) and on its context (``ctx``: the end of the
message before it), ``bm25(own) + context_weight * bm25(context)``, higher is better; each
table gives its best ``limit`` items and the union is ranked. The MATCH expression comes from
``text.terms_expression`` (never from user text directly). This module only reads.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from reverie.search.hits import SourceKind
from reverie.search.query import Filters, conditions
from reverie.search.text import unsegment


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One matching item with its whole indexed text.

    Attributes:
        kind: ``"history"`` or ``"message"``.
        score: BM25 on its own text plus the weighted BM25 on its context; higher is better.
        text: the item's indexed text (up to 64,000 characters).
        timestamp: when it was written (None when unknown).
        session_key: its session (for a history entry, the session it came from, if known).
        cursor: a history entry's cursor.
        message_index: a message's index in its session.
        role: a message's role.
    """

    kind: SourceKind
    score: float
    text: str
    timestamp: datetime | None
    session_key: str | None
    cursor: int | None
    message_index: int | None
    role: str | None


def run_candidates(
    conn: sqlite3.Connection,
    expression: str,
    filters: Filters,
    limit: int,
    *,
    context_weight: float,
) -> list[Candidate]:
    """Return up to ``limit`` items matching ``expression``, best first."""
    scores = _scores(conn, "fts", expression, filters, limit)
    if context_weight > 0:
        for doc, score in _scores(conn, "ctx", expression, filters, limit).items():
            scores[doc] = scores.get(doc, 0.0) + context_weight * score
    best = sorted(scores, key=lambda doc: (-scores[doc], -doc))[:limit]
    return [_candidate(conn, doc, scores[doc]) for doc in best]


def _scores(
    conn: sqlite3.Connection, table: str, expression: str, filters: Filters, limit: int
) -> dict[int, float]:
    where, args = conditions(filters)
    sql = (
        f"SELECT d.id, bm25({table}) FROM {table} JOIN docs AS d ON d.id = {table}.rowid"  # noqa: S608 -- table is one of two literals
        f" WHERE {table} MATCH ?{where} ORDER BY bm25({table}) LIMIT ?"
    )
    return {doc: -rank for doc, rank in conn.execute(sql, (expression, *args, limit))}


def _candidate(conn: sqlite3.Connection, doc: int, score: float) -> Candidate:
    kind, cursor, key, position, role, ts = conn.execute(
        "SELECT kind, cursor, session_key, position, role, ts FROM docs WHERE id = ?", (doc,)
    ).fetchone()
    (body,) = conn.execute("SELECT body FROM fts WHERE rowid = ?", (doc,)).fetchone()
    return Candidate(
        kind="history" if kind == "history" else "message",
        score=score,
        text=unsegment(body),
        timestamp=datetime.fromtimestamp(ts, UTC) if ts is not None else None,
        session_key=key,
        cursor=cursor,
        message_index=position,
        role=role,
    )
