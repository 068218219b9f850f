"""The real-looking chat set: a deterministic generator, and no generated chatter in memory.

The property: whatever mix of the generator's chatter (greetings, vocatives, encouragement,
photo shares, small talk, leave-takings, requests; English and Chinese; named pairs, pasted
``Name:`` transcripts, plain chat) a conversation holds, the model-free path (summariser,
then curator) writes no durable bullet at all; with facts mixed in, every bullet it writes
is free of every chatter kind the bench judges.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from curationset import realchat, realchat_pools
from curationset.judge import chatter_kind
from curationset.model import Conversation
from reverie.core.durable import MEMORY_FILE_NAMES
from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message, Role
from reverie.memory.modelfree import ModelFreeCurator, ModelFreeSummariser, render_facts

WHEN = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
_KINDS = {**realchat_pools.EN_CHATTER, "request": realchat_pools.REQUESTS}
_ZH_KINDS = {**realchat_pools.ZH_CHATTER, "request": realchat_pools.ZH_REQUESTS}
_VALUES = {slot: values[0] for slot, values in realchat_pools.VALUES.items()}


def _line(zh: bool) -> st.SearchStrategy[str]:
    kinds = _ZH_KINDS if zh else _KINDS
    names = realchat_pools.ZH_NAMES if zh else realchat_pools.EN_NAMES
    return st.builds(
        lambda template, other: template.format(other=other, **_VALUES),
        st.sampled_from([t for templates in kinds.values() for t in templates]),
        st.sampled_from(names),
    )


_CHATTER = st.one_of(_line(False), _line(True))
_SHAPES = st.sampled_from(("pair", "transcript", "plain"))


def _messages(shape: str, lines: list[str], names: tuple[str, str]) -> list[Message]:
    if shape == "transcript":
        text = "\n".join(f"{names[i % 2]}: {line}" for i, line in enumerate(lines))
        return [Message(role="user", content=text, timestamp=WHEN)]
    messages = []
    for index, line in enumerate(lines):
        named = shape == "pair"
        role: Role = "user" if index % 2 == 0 or not named else "assistant"
        name = names[index % 2] if named else None
        messages.append(Message(role=role, content=line, timestamp=WHEN, name=name))
    return messages


def _bullets(messages: list[Message]) -> list[str]:
    summary = render_facts(ModelFreeSummariser().extract(messages))
    entry = HistoryEntry(cursor=1, timestamp="2026-11-30 10:00", content=summary)
    result = ModelFreeCurator().curate({}, [entry], today=date(2026, 12, 1))
    return [
        line[2:]
        for name in MEMORY_FILE_NAMES
        for line in result.new_texts[name].splitlines()
        if line.startswith("- ")
    ]


@settings(max_examples=150, deadline=None)
@given(shape=_SHAPES, lines=st.lists(_CHATTER, min_size=1, max_size=8))
# Found by this property: one labelled line asking to remember someone else's preference.
@example(shape="transcript", lines=["Remember that they prefer Celsius"])
def test_no_generated_chatter_reaches_a_durable_file(shape: str, lines: list[str]) -> None:
    assert _bullets(_messages(shape, lines, ("Maria", "Tom"))) == []


@settings(max_examples=80, deadline=None)
@given(
    shape=_SHAPES,
    lines=st.lists(_CHATTER, min_size=1, max_size=6),
    facts=st.lists(st.sampled_from(realchat_pools.EN_FACTS), min_size=1, max_size=3),
    joined=st.booleans(),
)
def test_facts_among_chatter_are_written_without_chatter(
    shape: str, lines: list[str], facts: list[realchat_pools.FactTemplate], joined: bool
) -> None:
    said = [template.format(**_VALUES) for template, _ in facts]
    mixed = [f"{c} {f}" if joined else f for c, f in zip(lines, said, strict=False)]
    talk = [*lines, *mixed] if not joined else [*mixed, *lines[len(mixed) :]]
    names = ("Maria", "Tom")
    judged = Conversation(id="p", sessions=(), gold=(), chatter=(), names=names)
    for bullet in _bullets(_messages(shape, talk, names)):
        assert chatter_kind(bullet, judged) is None, bullet


def test_the_generator_is_deterministic_and_carries_its_ground_truth() -> None:
    again = realchat.generate(29)
    assert again == realchat.CONVERSATIONS
    assert realchat.generate(30) != again
    shapes = {c.id.split("-", 2)[2] for c in again}
    assert shapes == {"pair", "transcript", "group", "assistant", "zh-pair"}
    assert sum(len(c.gold) for c in again) >= 100
    kinds = {kind for c in again for kind, _ in c.chatter}
    assert kinds >= {"greeting", "vocative", "encouragement", "photo", "smalltalk", "request"}
    texts = " ".join(t for c in again for s in c.sessions for _, _, t in s.turns)
    assert "[image]" in texts
    assert "\n" in texts  # a pasted transcript
    assert "，" in texts  # Chinese
    assert any(len(c.sessions) >= 5 for c in again)
