"""Near-duplicates: the subset shortcut decides every pair as the rule written out does."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.core.hits import Candidate
from reverie.memory.recall.ranking import Ranked, _near_any, dedup

_VOCABULARY = [f"w{n}" for n in range(40)]
_SETS = st.frozensets(st.sampled_from(_VOCABULARY), min_size=1, max_size=40)


def _near_by_the_rule(words: frozenset[str], seen: list[tuple[int, frozenset[str]]]) -> bool:
    """The rule as the docstring states it, one pair at a time."""
    for _, other in seen:
        shorter, longer = (words, other) if len(words) <= len(other) else (other, words)
        allowed = max(0, len(shorter) - 10) // 10
        if 2 * len(shorter) >= len(longer) and len(shorter - longer) <= allowed:
            return True
    return False


@settings(max_examples=600, deadline=None)
@given(words=_SETS, others=st.lists(_SETS, max_size=8))
def test_near_any_is_the_rule(words: frozenset[str], others: list[frozenset[str]]) -> None:
    seen = [(len(other), other) for other in others]
    assert _near_any(words, seen) is _near_by_the_rule(words, seen)


def _ranked(text: str, index: int) -> Ranked:
    candidate = Candidate(
        kind="message",
        score=1.0,
        text=text,
        timestamp=datetime(2026, 5, 1, tzinfo=UTC),
        session_key="cli:a",
        cursor=None,
        message_index=index,
        role="user",
    )
    return Ranked(candidate=candidate, score=1.0, why=())


def test_a_short_item_is_a_duplicate_only_word_for_word_and_a_long_one_within_a_tenth() -> None:
    long_words = " ".join(f"word{n}" for n in range(30))
    items = [
        _ranked("we called him Ziggy", 0),
        _ranked("we called him Biscuit", 1),  # one word differs: kept
        _ranked("We called him ziggy!", 2),  # the same words: dropped
        _ranked(long_words, 3),
        _ranked(long_words.replace("word7", "other"), 4),  # 1 of 30 differs: dropped
        _ranked(long_words.replace("word7", "x").replace("word8", "y").replace("word9", "z"), 5),
    ]
    assert [r.candidate.message_index for r in dedup(items)] == [0, 1, 3, 5]
