"""The chat-shaped recall dev set: deterministic, chatty, every answer turn real and unique."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from recalllib.chat import build

KINDS = {"single", "multi", "temporal", "entity", "inference"}


def test_the_same_seed_builds_the_same_conversations() -> None:
    first, again = build(3), build(3)

    assert [c.texts for c in first] == [c.texts for c in again]
    assert [c.times for c in first] == [c.times for c in again]
    assert [c.questions for c in first] == [c.questions for c in again]
    assert [c.texts for c in build(4)] != [c.texts for c in first]


def test_each_question_names_answer_turns_that_exist_once() -> None:
    for seed in (3, 7, 11):
        for convo in build(seed):
            assert len(convo.texts) == len(convo.roles) == len(convo.times)
            assert convo.times == sorted(convo.times)
            for question in convo.questions:
                assert question.kind in KINDS
                assert question.evidence
                for index in question.evidence:
                    assert 0 <= index < len(convo.texts)
                    assert convo.texts.count(convo.texts[index]) == 1, (seed, convo.name)
                    assert question.text not in convo.texts[index]


def test_the_set_has_every_kind_and_looks_like_chat() -> None:
    convos = build()
    kinds = Counter(q.kind for c in convos for q in c.questions)
    assert set(kinds) == KINDS
    assert sum(kinds.values()) >= 100
    assert all(len(q.evidence) > 1 for c in convos for q in c.questions if q.kind == "multi")
    texts = [t for c in convos for t in c.texts]
    assert any(t.startswith("[shares a photo") for t in texts)
    assert any("\n" in t and t.split(":")[0] in convos[2].speakers for t in convos[2].texts)
    assert len({t.split(":")[0] for t in convos[3].texts}) >= 3
    gold = {i for q in convos[0].questions for i in q.evidence}
    assert len(gold) < len(convos[0].texts) / 4


def test_sessions_are_days_apart_and_temporal_questions_follow_the_real_gap() -> None:
    convo = build()[0]
    days = sorted({t.date() for t in convo.times})
    gaps = [(later - earlier).days for earlier, later in pairwise(days)]
    assert min(gaps) >= 2
    assert max(gaps) <= 17
    for question in convo.questions:
        if question.kind == "temporal" and len(question.evidence) == 2:
            first, second = (convo.times[i] for i in question.evidence)
            apart = abs((second - first).days)
            assert ("the week" in question.text) == (apart <= 7), question.text
