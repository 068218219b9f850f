"""``core.bm25`` is FTS5's ``bm25()``: the same scores on a real SQLite FTS5 table."""

from __future__ import annotations

import sqlite3

import pytest

from reverie.core.bm25 import Corpus, idf, phrase_frequency, score

DOCS = (
    "the violin lesson moved to friday",
    "the garden the garden the tomatoes",
    "coffee in the garden with the violin teacher",
    "the market sells old maps",
    "green tea and coffee every morning the tea",
    "the the the",
)
QUERIES = (
    ("violin",),
    ("the", "violin"),
    ("garden", "coffee", "tea"),
    ("the garden", "maps"),
    ("green tea", "the"),
)


def _positions(text: str) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for place, token in enumerate(text.split()):
        found.setdefault(token, []).append(place)
    return found


def _ours(query: tuple[str, ...]) -> dict[str, float]:
    phrases = [term.split() for term in query]
    held = [_positions(doc) for doc in DOCS]
    corpus = Corpus(
        items=len(DOCS),
        average_length=sum(len(doc.split()) for doc in DOCS) / len(DOCS),
        holding=tuple(sum(phrase_frequency(h, p) > 0 for h in held) for p in phrases),
    )
    scores = {
        doc: score([phrase_frequency(h, p) for p in phrases], len(doc.split()), corpus)
        for doc, h in zip(DOCS, held, strict=True)
    }
    return {doc: value for doc, value in scores.items() if value > 0}


@pytest.mark.parametrize("query", QUERIES)
def test_the_core_score_is_fts5_bm25_negated(query: tuple[str, ...]) -> None:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'unicode61')")
        conn.executemany("INSERT INTO t(body) VALUES (?)", [(doc,) for doc in DOCS])
        expression = " OR ".join(f'"{term}"' for term in query)
        rows = conn.execute("SELECT body, bm25(t) FROM t WHERE t MATCH ?", (expression,))
        theirs = {body: -rank for body, rank in rows}
    finally:
        conn.close()
    ours = _ours(query)
    assert set(ours) == set(theirs)
    for doc, value in theirs.items():
        assert ours[doc] == pytest.approx(value, rel=1e-9, abs=1e-15)


def test_a_phrase_held_by_half_the_items_or_more_weighs_fts5s_floor() -> None:
    assert idf(6, 3) == pytest.approx(1e-6)
    assert idf(6, 5) == pytest.approx(1e-6)
    assert idf(6, 1) > idf(6, 2) > 0.1
    assert idf(0, 0) == pytest.approx(1e-6)


def test_a_phrase_counts_only_its_tokens_side_by_side_in_order() -> None:
    held = _positions("green tea then tea green then green tea")
    assert phrase_frequency(held, ("green", "tea")) == 2
    assert phrase_frequency(held, ("tea", "green")) == 1
    assert phrase_frequency(held, ("green",)) == 3
    assert phrase_frequency(held, ("absent", "tea")) == 0
    assert phrase_frequency(held, ()) == 0
