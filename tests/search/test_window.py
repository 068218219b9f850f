"""A query made only of common words ranks the newest ``WINDOW`` matches, as it always did.

The window's edge is found before anything is scored (``candidates.window_edge``); these tests
compare what ``SearchIndex.candidates`` returns with the plain reading of the rule, computed
here with straightforward SQL on the same index file: BM25 of the newest ``WINDOW`` matches of
the whole index, then the filters, then the best ``limit`` (newer first on a tie).
"""

from __future__ import annotations

import random
import sqlite3

import pytest

from reverie import Message
from reverie.core.hits import Candidate
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.index.candidates import COMMON, WINDOW, window_edge
from reverie.storage.folder.workspace import Workspace

WORDS = ("weather", "report", "rain", "sun", "wind", "cloud", "morning", "porto", "train")
KEYS = ("cli:a", "cli:b", "telegram:c", "dream:d")
Item = tuple[str, str | None, int | None, int | None]
"""kind, session key, message index, history cursor."""


def _text(rng: random.Random) -> str:
    words = [rng.choice(WORDS[2:]) for _ in range(rng.randint(0, 12))]
    words += ["weather"] * rng.randint(1, 3) + ["report"] * rng.randint(0, 2)
    rng.shuffle(words)
    return " ".join(words)


@pytest.fixture
def filled(workspace: Workspace) -> Workspace:
    """About 2.5 windows of items holding "weather", in four sessions and the history log.

    Written in rounds, the index caught up after each, so every session has items on both
    sides of the window's edge. Many items share a text (so BM25 ties) and the internal
    ``dream:`` session holds some.
    """
    rng = random.Random(7)
    texts = [_text(rng) for _ in range(400)]
    index = SearchIndex(workspace)
    try:
        for _ in range(5):
            for key in KEYS:
                batch = [
                    Message(role="user" if n % 2 else "assistant", content=rng.choice(texts))
                    for n in range(WINDOW // 8)
                ]
                workspace.sessions.append_many(key, batch)
            for n in range(60):
                workspace.history.append(rng.choice(texts), session_key=KEYS[n % 3])
            index.refresh()
    finally:
        index.close()
    return workspace


def _items(conn: sqlite3.Connection) -> dict[int, tuple[Item, str | None]]:
    rows = conn.execute("SELECT id, kind, session_key, position, cursor FROM docs")
    return {doc: ((kind, key, pos, cur), key) for doc, kind, key, pos, cur in rows}


def _window(
    conn: sqlite3.Connection, table: str, expression: str, keep: set[int], limit: int
) -> dict[int, float]:
    """The old rule, spelled out: score the newest WINDOW matches, filter, keep the best."""
    sql = (
        f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ?"
        " ORDER BY rowid DESC LIMIT ?"
    )
    scored = [(doc, -rank) for doc, rank in conn.execute(sql, (expression, WINDOW)) if doc in keep]
    scored.sort(key=lambda pair: (-pair[1], -pair[0]))
    return dict(scored[:limit])


def _expected(
    index: SearchIndex,
    expression: str,
    limit: int,
    *,
    session_key: str | None,
    include_internal: bool,
    context_weight: float,
) -> list[tuple[Item, float]]:
    conn = sqlite3.connect(f"{index.path.as_uri()}?mode=ro", uri=True)
    try:
        items = _items(conn)
        keep = {
            doc
            for doc, (item, key) in items.items()
            if (session_key is None or key == session_key)
            and (
                session_key is not None
                or include_internal
                or item[0] == "history"
                or not (key or "").startswith(("dream:", "cron:"))
            )
        }
        scores = _window(conn, "fts", expression, keep, limit)
        if context_weight > 0:
            for doc, extra in _window(conn, "ctx", expression, keep, limit).items():
                scores[doc] = scores.get(doc, 0.0) + context_weight * extra
    finally:
        conn.close()
    best = sorted(scores, key=lambda doc: (-scores[doc], -doc))[:limit]
    return [(items[doc][0], scores[doc]) for doc in best]


def _got(found: list[Candidate]) -> list[tuple[Item, float]]:
    return [((c.kind, c.session_key, c.message_index, c.cursor), c.score) for c in found]


@pytest.mark.parametrize(
    ("session_key", "include_internal", "context_weight", "limit"),
    [
        (None, False, 0.0, 40),
        (None, True, 0.0, 40),
        ("cli:b", False, 0.0, 25),
        ("dream:d", False, 0.3, 25),
        (None, False, 0.3, 80),
        ("telegram:c", False, 0.3, 400),
    ],
)
def test_common_words_rank_the_newest_window_as_plain_sql_does(
    filled: Workspace,
    session_key: str | None,
    include_internal: bool,
    context_weight: float,
    limit: int,
) -> None:
    index = SearchIndex(filled)
    try:
        found = index.candidates(
            ["weather", "report"],
            limit=limit,
            session_key=session_key,
            include_internal=include_internal,
            context_weight=context_weight,
        )
        expected = _expected(
            index,
            '"weather" OR "report"',
            limit,
            session_key=session_key,
            include_internal=include_internal,
            context_weight=context_weight,
        )
    finally:
        index.close()

    assert len(expected) == min(limit, len(expected)) > 0
    assert [item for item, _ in _got(found)] == [item for item, _ in expected]
    assert [score for _, score in _got(found)] == pytest.approx([s for _, s in expected])


def test_the_edge_is_the_oldest_of_the_newest_window_matches(filled: Workspace) -> None:
    index = SearchIndex(filled)
    try:
        index.refresh()
        conn = sqlite3.connect(f"{index.path.as_uri()}?mode=ro", uri=True)
        try:
            edge = window_edge(conn, "fts", '"weather"')
            newer = conn.execute(
                "SELECT count(*) FROM fts WHERE fts MATCH 'weather' AND rowid >= ?", (edge,)
            ).fetchone()[0]
            every = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'weather'").fetchone()
            rare = window_edge(conn, "fts", '"nothing"')
        finally:
            conn.close()
    finally:
        index.close()

    assert every[0] > WINDOW >= COMMON
    assert edge > 1
    assert newer == WINDOW
    assert rare == 0  # fewer matches than a window: every one of them counts
