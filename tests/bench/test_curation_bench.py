"""bench/curation.py on one conversation of its set, so the bench and its annotation cannot rot.

No figure is asserted beyond what the annotation guarantees: every gold and stale annotation
has key terms, and scoring one conversation gives figures in range.
"""

from __future__ import annotations

import curation
from curationset import dev, heldout
from curationset.model import keys


def test_every_annotation_has_key_terms_and_the_set_is_large_enough() -> None:
    conversations = (*dev.CONVERSATIONS, *heldout.CONVERSATIONS)
    assert len(conversations) >= 10
    assert sum(len(c.gold) for c in conversations) >= 150
    for conversation in conversations:
        for annotation in (*conversation.gold, *conversation.stale):
            assert keys(annotation)


def test_scoring_one_conversation_gives_figures_in_range() -> None:
    figures = curation.score((dev.CONVERSATIONS[0],))
    assert figures["conversations"] == 1
    for name in ("precision", "recall", "chatter_share"):
        value = figures[name]
        assert isinstance(value, float)
        assert 0.0 <= value <= 1.0
    assert curation.is_chatter("User: Caroline: Hey Mel!")
    assert not curation.is_chatter("Lives in Porto (since 2026-04-20; before: Lisbon)")
