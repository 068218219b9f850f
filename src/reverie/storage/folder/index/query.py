"""Running one ranked, filtered query against the index.

The MATCH expression comes from ``text.match_expression`` (never from user text directly);
every filter value is a bound parameter. Ranking is FTS5's built-in ``bm25()`` (lower is
better there; hits report its negation so that higher is better), ties broken newest first;
``run_ref`` fetches the one item a source reference names.
Messages of internal sessions (keys starting ``dream:`` or ``cron:``) are left out unless the
caller asks for them or filters on such a session. Items without a time are left out whenever
a time filter is given. This module only reads.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from reverie.core.clock import from_epoch
from reverie.core.hits import SNIPPET_CLOSE, SNIPPET_OPEN, SearchHit, Source
from reverie.core.marks import without_marks
from reverie.core.refs import SourceRef
from reverie.core.session import INTERNAL_PREFIXES
from reverie.core.text import unsegment

"""Session keys of reverie's own jobs, whose messages are not the user's conversation."""

_SELECT = (
    "SELECT d.kind, d.cursor, d.session_key, d.position, d.role, d.ts, bm25(fts),"
    " snippet(fts, 0, ?, ?, '…', 24)"  # 24 tokens; one CJK character is one token
    " FROM fts JOIN docs AS d ON d.id = fts.rowid WHERE fts MATCH ?"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Filters:
    """Which items a query may return."""

    sources: frozenset[Source]
    session_key: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_internal: bool = False


def run_query(
    conn: sqlite3.Connection, expression: str, filters: Filters, limit: int
) -> list[SearchHit]:
    """Return up to ``limit`` hits for an FTS5 ``expression``, best first."""
    where, args = conditions(filters)
    sql = f"{_SELECT}{where} ORDER BY bm25(fts), d.id DESC LIMIT ?"
    rows = conn.execute(sql, (SNIPPET_OPEN, SNIPPET_CLOSE, expression, *args, limit))
    return [_hit(row) for row in rows]


def run_ref(conn: sqlite3.Connection, ref: SourceRef, filters: Filters) -> list[SearchHit]:
    """Return the item ``ref`` names as the only hit, if it exists and passes ``filters``."""
    where, args = conditions(filters)
    if ref.kind == "history":
        key: list[object] = ["history", ref.cursor]
        which = "d.kind = ? AND d.cursor = ?"
    else:
        key = ["message", ref.session_key, ref.message_index]
        which = "d.kind = ? AND d.session_key = ? AND d.position = ?"
    sql = (
        "SELECT d.kind, d.cursor, d.session_key, d.position, d.role, d.ts, 0.0,"  # noqa: S608 -- ``which`` is one of two literals
        " substr(fts.body, 1, 400) FROM fts JOIN docs AS d ON d.id = fts.rowid"
        f" WHERE {which}{where}"
    )
    return [_hit(row) for row in conn.execute(sql, (*key, *args))]


def conditions(filters: Filters) -> tuple[str, list[object]]:
    """Return the SQL (`` AND ...`` clauses over ``docs AS d``) and arguments of ``filters``."""
    clauses: list[str] = []
    args: list[object] = []
    kinds = sorted({"history" if s == "history" else "message" for s in filters.sources})
    clauses.append(f"d.kind IN ({', '.join('?' for _ in kinds)})")
    args.extend(kinds)
    if filters.session_key is not None:
        clauses.append("d.session_key = ?")
        args.append(filters.session_key)
    elif not filters.include_internal:
        internal = " OR ".join("d.session_key GLOB ?" for _ in INTERNAL_PREFIXES)
        clauses.append(f"NOT (d.kind = 'message' AND ({internal}))")
        args.extend(f"{prefix}*" for prefix in INTERNAL_PREFIXES)
    if filters.since is not None:
        clauses.append("d.ts >= ?")
        args.append(filters.since.timestamp())
    if filters.until is not None:
        clauses.append("d.ts < ?")
        args.append(filters.until.timestamp())
    return "".join(f" AND {clause}" for clause in clauses), args


def _hit(
    row: tuple[str, int | None, str | None, int | None, str | None, float | None, float, str],
) -> SearchHit:
    kind, cursor, session_key, position, role, ts, rank, snippet = row
    return SearchHit(
        kind="history" if kind == "history" else "message",
        score=-rank,
        snippet=without_marks(unsegment(snippet)).strip(),
        timestamp=from_epoch(ts) if ts is not None else None,
        session_key=session_key,
        cursor=cursor,
        message_index=position,
        role=role,
    )
