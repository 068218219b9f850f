"""A second recall dev set, shaped like real chat: ``build(seed)`` (``bench/recall.py --set chat``).

Our first set (``recalllib.devset``) is tidy: one fact per message, little small talk. Real
chat is not, so this one is built to look like what people send, from our own words
(``recalllib.chat_en``; no public benchmark was fetched or read to make it):

- four conversations of ``SESSIONS`` dated sessions, 3 to 16 days apart: two direct-message
  chats whose two people address each other by name ("Hey Maya, ..."), one imported as a
  speaker-labelled transcript (each message holds two to four "Nora: ..." lines), and one
  group chat of four people, each message "Ava: ...";
- about half of the lines are chatter with no fact: greetings and vocatives ("Congrats,
  Leo!"), photo shares ("[shares a photo of ...]"), requests ("Can you remind me to ..."),
  subject-less encouragement ("Keep it up!"); most of the rest is small talk that reuses
  the facts' topic words (cats, trips, festivals, allergies) without their answer;
- facts (16 templates, each planted for up to two people with different details) in one to
  three steps in different sessions, with questions of five kinds: ``single`` (one turn
  answers), ``multi`` (the answer is spread over turns of different sessions, linked by a
  name: "my brother Ezra is staying" ... "Ezra got hired at the bike shop"), ``temporal``
  (needs a session's date: "what did Maya get done the week after the jazz festival in
  Ghent?", the wording drawn from the real gap between the sessions), ``entity`` (about a
  person, place or café named once: "Who is Odile?") and ``inference`` (the answer must be
  combined or inferred from what was said: "would Leo enjoy a steakhouse?").

Each question names its answer-bearing messages (``Question.evidence``), as the first set's
do, so ``bench/recall.py`` measures context recall and search R@k the same way. Same seed,
same conversations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from recalllib import chat_en
from recalllib.chat_en import Planted
from recalllib.devset import Conversation, Question

SESSIONS = 36
LINES_PER_SESSION = (30, 50)
STYLES = ("dm", "dm", "transcript", "group")


@dataclass(slots=True)
class _Line:
    speaker: int
    text: str
    mark: tuple[int, int] | None = None
    """(fact number, step number) of a planted line."""


def build(seed: int = 7) -> list[Conversation]:
    """Return the chat-shaped dev set: four English conversations, fixed by ``seed``."""
    rng = random.Random(seed)
    return [
        _conversation(f"chat-{n + 1}", style, people, random.Random(rng.random()))
        for n, (style, people) in enumerate(zip(STYLES, chat_en.PEOPLE, strict=True))
    ]


def _conversation(
    name: str, style: str, people: tuple[str, ...], rng: random.Random
) -> Conversation:
    facts = _facts(people, rng)
    plan = _schedule(facts, rng)
    days = _days(rng)
    sessions = [_session(people, rng, plan.get(s, []), facts) for s in range(SESSIONS)]
    convo = Conversation(name=name, language="en", speakers=people)
    placed: dict[tuple[int, int], int] = {}
    for day, lines in zip(days, sessions, strict=True):
        when = day
        for role, text, marks in _render(style, people, lines, rng):
            for mark in marks:
                placed[mark] = len(convo.texts)
            convo.texts.append(text)
            convo.roles.append(role)
            convo.times.append(when)
            when += timedelta(minutes=rng.randint(1, 5))
    for number, fact in enumerate(facts):
        convo.questions.extend(_questions(number, fact, people, placed, convo))
    return convo


def _facts(people: tuple[str, ...], rng: random.Random) -> list[Planted]:
    """Every template for one person, and for a second one when no line comes out alike."""
    facts: list[Planted] = []
    for template in chat_en.FACTS:
        owners = rng.sample(range(len(people)), 2)
        first = template(rng, owners[0])
        facts.append(first)
        for _ in range(20):
            second = template(rng, owners[1])
            if not _said(second) & _said(first) and not _names(second) & _names(first):
                facts.append(second)
                break
    rng.shuffle(facts)
    return facts


def _said(fact: Planted) -> set[str]:
    return {step.text.format(**fact.slots) for step in fact.steps}


def _names(fact: Planted) -> set[str]:
    return {v for v in fact.slots.values() if v[:1].isupper()}


def _schedule(facts: list[Planted], rng: random.Random) -> dict[int, list[tuple[int, int]]]:
    """Which session says which step of which fact (a step's ``gap`` sessions after the last)."""
    plan: dict[int, list[tuple[int, int]]] = {}
    for number, fact in enumerate(facts):
        span = sum(abs(step.gap) + (abs(step.gap) > 1) for step in fact.steps)
        session = rng.randint(1, SESSIONS - 2 - span)
        for index, step in enumerate(fact.steps):
            if step.gap > 1:
                session += rng.randint(step.gap, step.gap + 1)
            elif step.gap:
                session += step.gap
            plan.setdefault(session, []).append((number, index))
    return plan


def _days(rng: random.Random) -> list[datetime]:
    day, days = datetime(2025, 2, 3, 19, 0, tzinfo=UTC), []
    for _ in range(SESSIONS):
        day += timedelta(days=rng.randint(3, 16), minutes=rng.randint(-180, 180))
        days.append(day)
    return days


def _session(
    people: tuple[str, ...],
    rng: random.Random,
    planted: list[tuple[int, int]],
    facts: list[Planted],
) -> list[_Line]:
    count = rng.randint(*LINES_PER_SESSION)
    opener = rng.randrange(len(people))
    lines = [_Line(opener, rng.choice(chat_en.GREETINGS).format(other=_other(people, opener, rng)))]
    for _ in range(count - 1):
        speaker = rng.randrange(len(people))
        if rng.random() < 0.5:
            text = rng.choice(chat_en.CHATTER).format(other=_other(people, speaker, rng))
        else:
            text = rng.choice(chat_en.SMALL_TALK)
        lines.append(_Line(speaker, text))
    for number, step in planted:
        fact = facts[number]
        text = fact.steps[step].text.format(**fact.slots)
        lines.insert(rng.randint(1, len(lines)), _Line(fact.owner, text, (number, step)))
    return lines


def _other(people: tuple[str, ...], speaker: int, rng: random.Random) -> str:
    return rng.choice([p for n, p in enumerate(people) if n != speaker])


def _render(
    style: str, people: tuple[str, ...], lines: list[_Line], rng: random.Random
) -> list[tuple[int, str, list[tuple[int, int]]]]:
    """Messages (role, text, planted marks): one a line, or labelled transcript chunks."""
    if style == "dm":
        return [(line.speaker, line.text, _marks(line)) for line in lines]
    if style == "group":
        return [
            (0 if line.speaker == 0 else 1, f"{people[line.speaker]}: {line.text}", _marks(line))
            for line in lines
        ]
    messages: list[tuple[int, str, list[tuple[int, int]]]] = []
    at = 0
    while at < len(lines):
        chunk = lines[at : at + rng.randint(2, 4)]
        at += len(chunk)
        text = "\n".join(f"{people[line.speaker]}: {line.text}" for line in chunk)
        messages.append((0, text, [m for line in chunk for m in _marks(line)]))
    return messages


def _marks(line: _Line) -> list[tuple[int, int]]:
    return [] if line.mark is None else [line.mark]


def _questions(
    number: int,
    fact: Planted,
    people: tuple[str, ...],
    placed: dict[tuple[int, int], int],
    convo: Conversation,
) -> list[Question]:
    said = [placed[(number, step)] for step in range(len(fact.steps))]
    gap = abs((convo.times[said[-1]] - convo.times[said[0]]).days) if len(said) > 1 else 0
    words = {"after": _span(gap, "after"), "before": _span(gap, "before")}
    asked = []
    for ask in fact.asks:
        text = ask.text.format(owner=people[fact.owner], **words, **fact.slots)
        evidence = tuple(dict.fromkeys(said[step] for step in ask.steps))
        asked.append(Question(text=text, evidence=evidence, kind=ask.kind))
    return asked


def _span(days: int, word: str) -> str:
    """How a person would name a gap of ``days`` between two sessions."""
    if days <= 7:
        return f"the week {word}"
    if days <= 14:
        return f"in the two weeks {word}"
    return word
