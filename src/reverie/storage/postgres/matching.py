"""Finding the items that match a query through the word tables (schema 8, ``terms_schema``).

Each phrase of a query has a driver: one of its tokens, every item matching the phrase holds
it (the longest, as likely the rarest). An item matches the query only if it holds some
phrase's driver, so the matches are found by walking each driver's rows of the word table
(a btree, usable under row-level security) from the newest ``doc`` down, testing the item's
``words @@ query`` (and the search's filters) on each item reached, and stopping at the
number wanted. The newest ``n`` matches of the query are among the union of each driver's
newest ``n`` matches, so the union's newest ``n`` are exactly them.

Counting a phrase's holders (BM25's ``n(p)``, recall's rare words: ``counts``) walks from the
rarest of its tokens instead, found by a first capped count of each token off the btree, and
keeps only the items the word table lists under every other token before reading one.

A driver is given as the token's text and made a lexeme in SQL, by the same parser that made
the items' words (``to_tsvector('simple', token)``): no rule of the parser is repeated here.
The SQL built here names tables and columns only; every value is a parameter. Only
``counts`` runs statements, on the caller's connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reverie.core.hits import Source
from reverie.storage.postgres import tsearch

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn

TERMS: dict[Source, str] = {"history": "history_terms", "messages": "message_terms"}
"""Each item table's word table."""

_LEXEME = "(tsvector_to_array(to_tsvector('simple', {text})))[1]"
_WALK = (
    "SELECT t.doc FROM {terms} AS t JOIN {table} AS x"
    " ON x.workspace_id = t.workspace_id AND x.doc = t.doc"
    " WHERE t.workspace_id = %(ws)s AND t.lexeme = {lexeme}"
    " AND x.words @@ to_tsquery('simple', {query}){where}"
)
_MATCHED = (
    "SELECT k.doc FROM (SELECT DISTINCT {lexeme} AS lexeme"
    " FROM unnest(%(drivers)s::text[]) AS d(token)) AS d CROSS JOIN LATERAL ({walk}"
    " ORDER BY t.doc DESC LIMIT %(window)s) AS k"
    " GROUP BY k.doc ORDER BY k.doc DESC LIMIT %(window)s"
)


def driver(tokens: Sequence[str]) -> str:
    """The token of a phrase its matches are found by: the longest (the first of those)."""
    return max(tokens, key=len)


def drivers(phrases: Sequence[Sequence[str]]) -> list[str]:
    """Every phrase's driver, once (the ``%(drivers)s`` parameter of ``matched``)."""
    return list(dict.fromkeys(driver(tokens) for tokens in phrases if tokens))


def matched(table: Source, where: str = "") -> str:
    """The SQL of the ``doc`` of the newest ``%(window)s`` items of ``table`` matching ``%(q)s``.

    Newest by ``doc`` (the latest written first), each passing ``where`` (conditions on the
    item's own columns, each starting with `` AND ``); ``%(drivers)s`` the query's drivers.
    """
    walk = _WALK.format(
        terms=TERMS[table], table=table, lexeme="d.lexeme", query="%(q)s", where=where
    )
    return _MATCHED.format(lexeme=_LEXEME.format(text="d.token"), walk=walk)


DRIVER_CAP = 500
"""A token's holders are counted up to this many a table to choose a phrase's driver."""


def counts(conn: Conn, workspace: int, phrases: Sequence[Sequence[str]], cap: int) -> list[int]:
    """How many items hold each of ``phrases``, counted up to ``cap`` a table; two statements.

    First the tokens of the phrases of several tokens are counted off the btree (up to
    ``DRIVER_CAP`` a table: an index-only scan each), so each such phrase is walked from its
    rarest token (a pair of Chinese characters may pair a rare one with 的); then every
    phrase is counted (``holders``), each a column of one statement.
    """
    if not phrases:
        return []
    several = list(dict.fromkeys(t for tokens in phrases if len(tokens) > 1 for t in tokens))
    held: dict[str, int] = {}
    if several:
        params: dict[str, object] = {"ws": workspace, "cap": DRIVER_CAP}
        for i, token in enumerate(several):
            params |= _phrase_params(i, (token,), token)
        sql = "SELECT " + ", ".join(holders(i, (token,)) for i, token in enumerate(several))
        row = conn.execute(sql, params).fetchone()
        held = {token: int(str(n)) for token, n in zip(several, row or (), strict=True)}
    params = {"ws": workspace, "cap": cap}
    for i, tokens in enumerate(phrases):
        driver_of = min(tokens, key=lambda token: (held.get(token, 0), -len(token)))
        params |= _phrase_params(i, tokens, driver_of)
    sql = "SELECT " + ", ".join(holders(i, tokens) for i, tokens in enumerate(phrases))
    row = conn.execute(sql, params).fetchone()
    return [int(str(n)) for n in row or ()]


def _phrase_params(i: int, tokens: Sequence[str], first: str) -> dict[str, object]:
    """What ``holders(i, tokens)`` reads: the query, the driver ``first``, the other tokens."""
    others = [token for token in dict.fromkeys(tokens) if token != first]
    return {f"q{i}": tsearch.phrase_query(tokens), f"d{i}": first, f"o{i}": others}


def holders(i: int, tokens: Sequence[str]) -> str:
    """The SQL of how many items hold the phrase ``%(q{i})s``, counted up to ``%(cap)s`` a table.

    Its parameters are ``_phrase_params``'s (``counts`` runs it). A phrase of one token whose
    text is one lexeme is held by exactly the items its word table lists, so it is counted off
    the btree alone (an index-only scan). Any other phrase walks its driver's rows, keeps those
    whose item the word table lists under every other token too (the btree again), and
    confirms only those item by item: a rare phrase of common words reads few items.
    """
    return " + ".join(_count(table, i, tokens) for table in TERMS)


def _count(table: Source, i: int, tokens: Sequence[str]) -> str:
    walked = f"(SELECT count(*) FROM ({_holding(table, i)} LIMIT %(cap)s) AS {table[0]}{i})"
    if len(tokens) != 1:
        return walked
    listed = (
        f"(SELECT count(*) FROM (SELECT 1 FROM {TERMS[table]} WHERE workspace_id = %(ws)s"
        f" AND lexeme = {_LEXEME.format(text=f'%(d{i})s')} LIMIT %(cap)s) AS {table[0]}{i})"
    )
    one = f"length(to_tsvector('simple', %(d{i})s)) = 1"
    return f"(CASE WHEN {one} THEN {listed} ELSE {walked} END)"


_HELD_BY_ALL = (
    "SELECT x.doc FROM (SELECT t.workspace_id, t.doc FROM {terms} AS t"
    " WHERE t.workspace_id = %(ws)s AND t.lexeme = {lexeme}"
    " AND NOT EXISTS (SELECT 1 FROM unnest(%(o{i})s::text[]) AS w(token) WHERE NOT EXISTS"
    " (SELECT 1 FROM {terms} AS o WHERE o.workspace_id = t.workspace_id"
    " AND o.lexeme = {other} AND o.doc = t.doc)) OFFSET 0) AS t"
    " JOIN {table} AS x ON x.workspace_id = t.workspace_id AND x.doc = t.doc"
    " WHERE x.words @@ to_tsquery('simple', %(q{i})s)"
)
"""The driver's items the word table lists under each other token too, then confirmed: the
fence (``OFFSET 0``) keeps the btree test ahead of reading the item."""


def _holding(table: Source, i: int) -> str:
    return _HELD_BY_ALL.format(
        i=i,
        terms=TERMS[table],
        table=table,
        lexeme=_LEXEME.format(text=f"%(d{i})s"),
        other=_LEXEME.format(text="w.token"),
    )
