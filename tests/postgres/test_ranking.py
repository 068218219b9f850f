"""What PostgreSQL's BM25 reads of a ``tsvector``: an item's length and the query's positions."""

from __future__ import annotations

import pytest

from reverie.core.bm25 import phrase_frequency
from reverie.storage.postgres import ranking, tsearch
from reverie.storage.postgres.database import Tenant


@pytest.mark.parametrize(
    ("text", "tokens", "held"),
    [
        ("the garden garden gate", 4, {"garden": [2, 3]}),
        ("a b a b a", 5, {"a": [1, 3, 5]}),
        ("我每天喝咖啡", 6, {"咖": [5], "啡": [6]}),
        ("nothing to see", 3, {}),
    ],
)
def test_an_items_length_is_its_tokens_and_its_hits_are_the_query_tokens_positions(
    tenant: Tenant, text: str, tokens: int, held: dict[str, list[int]]
) -> None:
    sql = (
        f"SELECT {ranking.length('v')}, {ranking.hits('v')}"
        f" FROM (SELECT {tsearch.words('%(text)s::text')} AS v) AS x"
    )
    phrases = tsearch.phrases(["garden", "a", "咖啡"])
    lexemes = ranking.lexemes(phrases)
    with tenant.transaction() as conn:
        row = conn.execute(sql, {"text": text, "lexemes": lexemes}).fetchone()
    assert row is not None
    assert int(str(row[0])) == tokens
    assert ranking.positions(row[1]) == held
    assert ranking.frequencies(row[1], phrases) == [phrase_frequency(held, p) for p in phrases]


def test_a_common_phrases_count_is_remembered_until_the_items_move_by_a_tenth() -> None:
    memo = ranking.Memo()
    memo.note(("garden",), 1_000, ranking.REMEMBERED_FROM)
    memo.note(("violin",), 1_000, ranking.REMEMBERED_FROM - 1)
    assert memo.known(("garden",), 1_100) == ranking.REMEMBERED_FROM
    assert memo.known(("garden",), 900) == ranking.REMEMBERED_FROM
    assert memo.known(("garden",), 1_101) is None
    assert memo.known(("violin",), 1_000) is None  # a rare phrase is counted every time
    assert memo.known(("absent",), 1_000) is None
