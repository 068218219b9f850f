"""The model-free summariser: messages to ``- [mark] fact`` lines, without a model.

It is extractive and deterministic: the same messages always give the same text, nothing
leaves the machine, and nothing is invented. It reads messages with their roles (never a
rendered transcript), so who said each sentence is known, and that decides what it may become:

- the **user's own words** may become rules for the assistant (``User rule:``, SOUL.md),
  facts about the user (``User:``, USER.md), decisions (``Decided:``) and facts about the
  world (``Noted:``, MEMORY.md);
- a **named person** the assistant role speaks for (a conversation between two people) may
  state facts about themselves or the world (``Noted:``, MEMORY.md), never rules;
- the **assistant's** own text, **tool results** and system text become nothing: an agreement
  ("Agreed: ...") only repeats a decision the user made, and text inside a tool result is not
  the user speaking, whatever it says.

In a conversation between named people (two named users, or a user and a named assistant)
every fact names its subject ("Caroline lives in Porto"); in a plain chat facts about the user
leave the subject out ("Lives in Porto"). Chatter (``chatter.is_chatter``) never becomes a
fact. A sentence whose subject is a bare pronoun ("They upgraded it in August.") is kept in the
summary marked ``[skip]``: it stays in history, and dream never promotes it. A correction says
what it replaced when the sentence does ("Lives in Utrecht (before: Rotterdam)"). Marks:

    correction → ``[correction]``    rule → ``[permanent]``    one-off or time-bound fact or
    decision (a trip, a purchase) → ``[ephemeral]`` ending ``(as of YYYY-MM-DD)``; else
    ``[durable]``.

Invariants: a sentence that holds a secret (``reverie.core.redact.contains_secret``) is never
kept; facts are deduplicated on their normalised text; at most ``max_facts`` lines of at most
``max_fact_chars`` characters each (the highest-priority and latest win); ``(nothing)`` when
no sentence qualifies. ``summarise`` always returns a ``Summary`` (it cannot fail). No I/O;
this module must not import ``reverie.llm``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from reverie.core.marks import Mark
from reverie.core.messages import Message
from reverie.core.redact import contains_secret
from reverie.memory.compaction.attempt import Summary
from reverie.memory.modelfree.chatter import content_words, is_social
from reverie.memory.modelfree.corrections import strip_correction
from reverie.memory.modelfree.facts import Fact, render_facts, with_as_of
from reverie.memory.modelfree.phrasing import as_decision, as_fact, as_rule, unresolved
from reverie.memory.modelfree.rules import classify_user, is_one_off, remembered, time_bound
from reverie.memory.modelfree.sentences import sentences
from reverie.memory.modelfree.similarity import normalise
from reverie.memory.modelfree.transcript import Utterance, split_pasted, utterances

LABEL = "model-free"

_PRIORITY: dict[Mark, int] = {
    "correction": 0,
    "permanent": 1,
    "durable": 2,
    "ephemeral": 3,
    "skip": 4,
}
_FIRST_PERSON = re.compile(r"^(?:I\b|my\b)|^我(?!们)|\b(?:I|my|me|I'm|I've)\b", re.IGNORECASE)
_NAME_WISH = re.compile(
    r"^(?:please\s+)?(?:call me|address me as)\s+(?P<rest>.+)$|^(?:请)?(?:叫我|称呼我)(?P<zh>.+)$",
    re.IGNORECASE,
)
_RELATIVE_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|last (?:week|weekend|month|year|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)
_DAY_SHIFT = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}


@dataclass(frozen=True, slots=True, kw_only=True)
class Speaker:
    """Who is talking: the subject their facts name, and what their words may become.

    ``subject`` is None for the one user of a plain chat; ``group`` is True in a conversation
    between named people.
    """

    subject: str | None
    is_user: bool
    group: bool


def extract_facts(
    messages: Sequence[Message], *, max_facts: int = 30, max_fact_chars: int = 240
) -> list[Fact]:
    """Return the facts stated in ``messages``, deduplicated, capped, in conversation order.

    Args:
        messages: the conversation chunk, with roles (only user words and named people count).
        max_facts: the most facts returned.
        max_fact_chars: the longest fact text (longer ones are cut at a word, with "…").
    """
    return extract_from(utterances(messages), max_facts=max_facts, max_fact_chars=max_fact_chars)


def extract_from(
    said: Sequence[Utterance], *, max_facts: int = 30, max_fact_chars: int = 240
) -> list[Fact]:
    """Return the facts of ``said`` (see ``extract_facts``)."""
    pieces = split_pasted(said)
    # A pasted chat names its speakers, so it is a conversation between named people.
    group = _is_group(pieces) or any(p.name and p not in said for p in pieces)
    said = pieces
    found: list[Fact] = []
    seen: set[str] = set()
    for utterance in said:
        speaker = _speaker(utterance, group=group)
        if speaker is None:
            continue
        for sentence in sentences(utterance.text):
            fact = sentence_fact(sentence, speaker=speaker, day=utterance.day)
            if fact is None:
                continue
            fact = Fact(mark=fact.mark, text=_clip(fact.text, max_fact_chars))
            key = normalise(fact.text)
            if key not in seen:
                seen.add(key)
                found.append(fact)
    if len(found) <= max_facts:
        return found
    ranked = sorted(range(len(found)), key=lambda i: (_PRIORITY[found[i].mark], -i))
    return [found[i] for i in sorted(ranked[:max_facts])]


class ModelFreeSummariser:
    """A summariser for compaction that needs no model (see the module docstring)."""

    def __init__(self, *, max_facts: int = 30, max_fact_chars: int = 240) -> None:
        if max_facts < 1 or max_fact_chars < 40:
            raise ValueError("max_facts must be >= 1 and max_fact_chars >= 40")
        self._max_facts = max_facts
        self._max_fact_chars = max_fact_chars

    @property
    def label(self) -> str:
        """How ledger lines, commits and the CLI name this summariser: ``model-free``."""
        return LABEL

    @property
    def input_budget(self) -> int:
        """Tokens one call may take: large, since no context window limits it."""
        return 1_000_000

    def extract(self, messages: Sequence[Message]) -> list[Fact]:
        """Return the facts of ``messages`` with this summariser's caps."""
        return extract_facts(
            messages, max_facts=self._max_facts, max_fact_chars=self._max_fact_chars
        )

    def summarise(self, messages: Sequence[Message], *, session_key: str | None = None) -> Summary:
        """Summarise compaction's messages into fact lines (never fails).

        Args:
            messages: the turns to summarise, with their roles.
            session_key: the session the turns come from (unused; part of the protocol).
        """
        del session_key
        return Summary(text=render_facts(self.extract(messages)))


def user_speaker(name: str | None = None) -> Speaker:
    """The user as a speaker (named: one of several people), for lines of older history."""
    return Speaker(subject=name, is_user=True, group=name is not None)


def sentence_fact(sentence: str, *, speaker: Speaker, day: date | None) -> Fact | None:
    """Return the fact one sentence states for ``speaker``, or None when it states none."""
    if contains_secret(sentence) or is_social(sentence):
        return None
    sentence = remembered(sentence) or sentence  # "Remember that I prefer X": "I prefer X"
    kind = classify_user(sentence)
    if kind is None:
        return None
    if kind == "instruction":
        return _instruction(sentence, speaker)
    if kind == "decision":
        if not speaker.is_user or speaker.group:
            return None
        mark: Mark = "ephemeral" if is_one_off(sentence) or time_bound(sentence) else "durable"
        return _dated(Fact(mark=mark, text=f"Decided: {as_decision(sentence)}"), day)
    before: str | None = None
    if kind == "correction":
        sentence, before = strip_correction(sentence)
    return _statement(sentence, speaker, day, correction=kind == "correction", before=before)


def _statement(
    sentence: str, speaker: Speaker, day: date | None, *, correction: bool, before: str | None
) -> Fact | None:
    about_self = _FIRST_PERSON.search(sentence) is not None
    label = "User" if speaker.is_user and about_self else "Noted"
    text = as_fact(_resolve_days(sentence, day), speaker.subject)
    if content_words(text) < 2:
        return None
    if unresolved(sentence):
        return Fact(mark="skip", text=f"{label}: {text}")
    if correction:
        tag = f" (before: {before})" if before else ""
        return Fact(mark="correction", text=f"{label}: {text}{tag}")
    mark: Mark = "ephemeral" if time_bound(sentence) or is_one_off(sentence) else "durable"
    return _dated(Fact(mark=mark, text=f"{label}: {text}"), day)


def _instruction(sentence: str, speaker: Speaker) -> Fact | None:
    if not speaker.is_user or speaker.group:
        return None
    wish = _NAME_WISH.match(sentence.strip())
    if wish is not None:
        name = wish["rest"] or wish["zh"] or ""
        text = as_fact(f"I want to be called {name}", None)
        return Fact(mark="durable", text=f"User: {text}")
    rule = as_rule(sentence)
    return Fact(mark="permanent", text=f"User rule: {rule[:1].upper()}{rule[1:]}")


def _dated(fact: Fact, day: date | None) -> Fact:
    if fact.mark != "ephemeral" or day is None:
        return fact
    return Fact(mark="ephemeral", text=with_as_of(fact.text, day))


def _resolve_days(sentence: str, day: date | None) -> str:
    if day is None:
        return sentence
    return _RELATIVE_DAY.sub(lambda m: _when(m.group().lower(), day), sentence)


def _when(words: str, day: date) -> str:
    """Write a relative time as dates: "tomorrow" → "on 2026-10-22"."""
    if words in _DAY_SHIFT:
        return f"on {day + timedelta(days=_DAY_SHIFT[words])}"
    if words == "last month":
        return f"in the month before {day}"
    if words == "last year":
        return f"in {day.year - 1}"
    return f"in the week before {day}"


def _is_group(said: Sequence[Utterance]) -> bool:
    users = {u.name for u in said if u.role == "user" and u.name}
    return len(users) >= 2 or any(u.role == "assistant" and u.name for u in said)


def _speaker(utterance: Utterance, *, group: bool) -> Speaker | None:
    if utterance.role == "user":
        subject = (utterance.name or "The user") if group else None
        return Speaker(subject=subject, is_user=True, group=group)
    if utterance.role == "assistant" and group and utterance.name:
        return Speaker(subject=utterance.name, is_user=False, group=True)
    return None


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:，；") + "…"
