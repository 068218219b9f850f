"""Reciprocal rank fusion of recall's lexical ranking with dense candidates (no I/O)."""

from __future__ import annotations

from reverie.recall.fusion import RRF_K, fuse
from reverie.recall.ranking import Ranked
from reverie.search import Candidate


def _message(index: int, text: str) -> Candidate:
    return Candidate(
        kind="message",
        score=1.0,
        text=text,
        timestamp=None,
        session_key="cli:a",
        cursor=None,
        message_index=index,
        role="user",
    )


def _ranked(index: int, text: str) -> Ranked:
    return Ranked(candidate=_message(index, text), score=1.0, why=("word",))


def test_an_item_both_lists_hold_beats_items_only_one_list_ranks_first() -> None:
    lexical = [_ranked(1, "alpha"), _ranked(2, "beta")]
    dense = [_message(3, "gamma"), _message(2, "beta")]

    fused = fuse(lexical, dense, depth=10)

    assert [r.candidate.message_index for r in fused] == [2, 1, 3]
    assert fused[0].why == ("word", "dense")
    assert fused[0].score == 1 / (RRF_K + 2) + 1 / (RRF_K + 2)
    assert fused[2].why == ("dense",)


def test_a_dense_item_with_the_text_of_a_kept_one_is_left_out() -> None:
    fused = fuse([_ranked(1, "See you  at Noon")], [_message(9, "see you at noon")], depth=10)

    assert [r.candidate.message_index for r in fused] == [1]


def test_only_the_first_depth_lexical_items_are_fused() -> None:
    lexical = (_ranked(n, f"text {n}") for n in range(100))

    fused = fuse(lexical, [], depth=5)

    assert [r.candidate.message_index for r in fused] == [0, 1, 2, 3, 4]


def test_with_no_dense_items_the_lexical_order_is_kept() -> None:
    lexical = [_ranked(n, f"text {n}") for n in (4, 2, 7)]

    assert [r.candidate.message_index for r in fuse(lexical, [], depth=80)] == [4, 2, 7]
