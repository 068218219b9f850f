"""A seeded dev set for recall: long two-person conversations with planted facts and questions.

``build(seed)`` returns conversations (English and Chinese) of many dated sessions between two
people. Facts are planted by either speaker, some after a partner's lead-in question, some
updated later (the question then asks for the newest value, and the gold turn is the
update), some with relative or absolute dates; distractors reuse the facts' topic words
without the answer, and filler chat fills the rest. The two speakers plant the same kinds of
fact with different details, so "what did Nora call the puppy?" has one right turn; a kind
with no detail to vary is planted for one speaker only. Every question is a paraphrase (its
wording is not the evidence turn's) with the indices of its gold evidence messages. Written
for this project from scratch; it contains no public benchmark's data. Same seed, same
conversations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from recalllib.templates import Fact, FactFactory, Language
from recalllib.templates_en import EN
from recalllib.templates_zh import ZH


@dataclass(frozen=True, slots=True, kw_only=True)
class Question:
    """A question about a conversation and the messages that answer it."""

    text: str
    evidence: tuple[int, ...]
    kind: str


@dataclass(slots=True, kw_only=True)
class Conversation:
    """Messages (speaker 0 is the user role, 1 the assistant role), their times, questions."""

    name: str
    language: str
    speakers: tuple[str, ...]
    texts: list[str] = field(default_factory=list)
    roles: list[int] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


SESSIONS = 40
TURNS_PER_SESSION = (18, 28)


def build(seed: int = 7) -> list[Conversation]:
    """Return the dev set: three English conversations and one Chinese, fixed by ``seed``."""
    rng = random.Random(seed)
    plan = [("en-1", EN), ("en-2", EN), ("en-3", EN), ("zh-1", ZH)]
    return [_conversation(name, language, random.Random(rng.random())) for name, language in plan]


def _conversation(name: str, language: Language, rng: random.Random) -> Conversation:
    pair = rng.choice(language.pairs)
    convo = Conversation(name=name, language=language.code, speakers=pair)
    facts = [fact for factory in language.facts for fact in _pair(factory, rng)]
    rng.shuffle(facts)
    slots = _schedule(facts, rng)
    day = datetime(2025, 1, 6, 18, 0, tzinfo=UTC)
    for session in range(SESSIONS):
        day += timedelta(days=rng.randint(2, 9), minutes=rng.randint(-120, 120))
        _session(convo, language, rng, day, slots.get(session, []))
    return convo


def _pair(factory: FactFactory, rng: random.Random) -> list[Fact]:
    """The fact for each speaker, no sentence alike (else planted for one speaker only).

    Both speakers saying the very same sentence would make the gold turn ambiguous: a prompt
    holding the other speaker's twin would count as carrying the evidence.
    """
    first = factory(rng, 0)
    for _ in range(40):
        second = factory(rng, 1)
        if not _texts(second) & _texts(first):
            return [first, second]
    return [first]


def _texts(fact: Fact) -> set[str]:
    return {said.text.format(day="", **fact.slots) for said in fact.steps}


def _schedule(facts: list[Fact], rng: random.Random) -> dict[int, list[tuple[Fact, int]]]:
    """Which session plants which step of which fact (updates come sessions later)."""
    slots: dict[int, list[tuple[Fact, int]]] = {}
    for fact in facts:
        first = rng.randint(0, SESSIONS - 1 - 6 * (len(fact.steps) - 1))
        for step in range(len(fact.steps)):
            slots.setdefault(first + step * rng.randint(3, 6), []).append((fact, step))
    return slots


def _session(
    convo: Conversation,
    language: Language,
    rng: random.Random,
    day: datetime,
    planted: list[tuple[Fact, int]],
) -> None:
    turns = rng.randint(*TURNS_PER_SESSION)
    lines: list[tuple[int, str, Fact | None]] = []
    opener = rng.randrange(2)
    lines.append(
        (opener, rng.choice(language.greetings).format(other=convo.speakers[1 - opener]), None)
    )
    for _ in range(turns - 1):
        if rng.random() < 0.3:
            text = rng.choice(language.distractors)
        else:
            text = language.joiner.join(rng.sample(language.filler, rng.randint(1, 3)))
        lines.append((len(lines) % 2 ^ opener, text, None))
    for fact, step in planted:
        at = rng.randint(1, len(lines))
        said = fact.steps[step]
        text = said.text.format(day=_date_text(day, language), **fact.slots)
        block: list[tuple[int, str, Fact | None]] = [(fact.owner, text, fact)]
        if said.lead_in:
            block.insert(0, (1 - fact.owner, said.lead_in, None))
        lines[at:at] = block
    for speaker, text, planted_fact in lines:
        index = len(convo.texts)
        convo.texts.append(text)
        convo.roles.append(speaker)
        convo.times.append(day)
        day += timedelta(minutes=rng.randint(1, 4))
        if planted_fact is not None:
            planted_fact.said.append(index)
            if len(planted_fact.said) == len(planted_fact.steps):
                convo.questions.extend(_questions(planted_fact, convo, language))


def _questions(fact: Fact, convo: Conversation, language: Language) -> list[Question]:
    owner = convo.speakers[fact.owner]
    gold = tuple(fact.said[i] for i in fact.gold)
    when = _date_text(convo.times[fact.said[-1]], language)
    return [
        Question(text=q.format(owner=owner, when=when, **fact.slots), evidence=gold, kind=fact.kind)
        for q in fact.questions
    ]


def _date_text(day: datetime, language: Language) -> str:
    if language.code == "zh":
        return f"{day.month}月{day.day}日"
    return f"{day:%B} {day.day}"
