"""The model-free summariser: conversation turns to ``- [mark] fact`` lines, without a model.

It is extractive and deterministic: the same messages always give the same text, nothing
leaves the machine, and nothing is invented. Each user sentence is checked against the rules
of ``reverie.modelfree.rules``; assistant sentences count only when they record an agreement.
A kept sentence becomes one fact line, prefixed with who said it (``User:``, ``User
instruction:``, ``User correction:``, ``Decided:``, ``Assistant agreed:``) so the curator can
route it, and marked:

    correction  → ``[correction]``       instruction → ``[permanent]``
    decision, self, specific → ``[durable]``, or ``[ephemeral]`` when time-bound; an ephemeral
    fact ends with ``(as of YYYY-MM-DD)`` (its message's date) so it can expire later.

Invariants: a sentence that looks like it holds a credential is never kept
(``credentials.contains_secret``); facts are deduplicated on their normalised text; at most
``max_facts`` lines of at most ``max_fact_chars`` characters each (when there are more, the
highest-priority and latest win, printed in conversation order); ``(nothing)`` when no
sentence qualifies. ``summarise`` always returns ``ok=True``: it cannot fail the way a model
does. ``SummaryAttempt`` mirrors the compaction summariser protocol's result type (the lead
keeps the canonical one in ``reverie.compaction``); this module must not import ``reverie.llm``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.compaction.attempt import SummaryAttempt
from reverie.messages import Message
from reverie.modelfree.credentials import contains_secret
from reverie.modelfree.facts import Fact, Mark, render_facts, with_as_of
from reverie.modelfree.rules import Kind, classify_assistant, classify_user, time_bound
from reverie.modelfree.sentences import sentences
from reverie.modelfree.similarity import normalise
from reverie.modelfree.transcript import parse_transcript

LABEL = "model-free"

_PREFIX: dict[Kind, str] = {
    "correction": "User correction: ",
    "instruction": "User instruction: ",
    "decision": "Decided: ",
    "self": "User: ",
    "specific": "User: ",
}
_PRIORITY: dict[Mark, int] = {
    "correction": 0,
    "permanent": 1,
    "durable": 2,
    "ephemeral": 3,
    "skip": 4,
}


def extract_facts(
    messages: Sequence[Message], *, max_facts: int = 30, max_fact_chars: int = 240
) -> list[Fact]:
    """Return the facts stated in ``messages``, deduplicated, capped, in conversation order.

    Args:
        messages: the conversation chunk (tool and system messages are ignored).
        max_facts: the most facts returned.
        max_fact_chars: the longest fact text (longer sentences are cut at a word, with "…").
    """
    found: list[Fact] = []
    seen: set[str] = set()
    for message in messages:
        for fact in _message_facts(message, max_fact_chars):
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

    def summarise(self, transcript: str, *, session_key: str | None = None) -> SummaryAttempt:
        """Summarise a rendered compaction transcript into fact lines (never fails).

        Args:
            transcript: the turns as compaction renders them.
            session_key: the session the turns come from (unused; part of the protocol).
        """
        del session_key
        facts = self.extract(parse_transcript(transcript))
        return SummaryAttempt(ok=True, text=render_facts(facts))


def _message_facts(message: Message, max_chars: int) -> list[Fact]:
    if message.role == "user":
        classify, speaker = classify_user, "user"
    elif message.role == "assistant":
        classify, speaker = classify_assistant, "assistant"
    else:
        return []
    facts: list[Fact] = []
    for sentence in sentences(message.text):
        if contains_secret(sentence):
            continue
        kind = classify(sentence)
        if kind is not None:
            facts.append(_fact(kind, sentence, speaker=speaker, message=message, limit=max_chars))
    return facts


def _fact(kind: Kind, sentence: str, *, speaker: str, message: Message, limit: int) -> Fact:
    prefix = "Assistant agreed: " if speaker == "assistant" else _PREFIX[kind]
    text = _clip(prefix + sentence, limit)
    mark: Mark
    if kind == "correction":
        mark = "correction"
    elif kind == "instruction":
        mark = "permanent"
    elif time_bound(sentence):
        mark = "ephemeral"
        if message.timestamp is not None:
            text = with_as_of(text, message.timestamp.date())
    else:
        mark = "durable"
    return Fact(mark=mark, text=text)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:，；") + "…"
