"""The recall dev set: deterministic, and every question points at real evidence turns."""

from __future__ import annotations

from recalllib.devset import build


def test_the_same_seed_builds_the_same_conversations() -> None:
    first, again = build(3), build(3)

    assert [c.texts for c in first] == [c.texts for c in again]
    assert [c.questions for c in first] == [c.questions for c in again]
    assert [c.texts for c in build(4)] != [c.texts for c in first]


def test_questions_are_paraphrases_with_evidence_in_their_conversation() -> None:
    for convo in build():
        assert {"en", "zh"} >= {convo.language}
        assert len(convo.texts) == len(convo.roles) == len(convo.times)
        assert convo.times == sorted(convo.times)
        assert convo.questions
        for question in convo.questions:
            assert question.evidence
            for index in question.evidence:
                assert 0 <= index < len(convo.texts)
                assert question.text not in convo.texts[index]
    assert {convo.language for convo in build()} == {"en", "zh"}


def test_no_gold_turn_has_a_twin_said_elsewhere_in_its_conversation() -> None:
    for seed in (3, 7, 11):
        for convo in build(seed):
            for question in convo.questions:
                for index in question.evidence:
                    assert convo.texts.count(convo.texts[index]) == 1, (seed, convo.name)
