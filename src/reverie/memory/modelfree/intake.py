"""Deciding whether a summary line may become a bullet, and if so, which and where.

``admit`` takes one fact of a history entry and returns either a ``Candidate`` (the bullet
text, its file, its mark and what it replaced, when the line says so) or the reason it is not
written. Nothing is promoted that is marked ``[skip]``, looks like a credential, is chatter
(``chatter.is_chatter``), has an unresolved subject ("They upgraded it in August."), is an
ephemeral fact already past its expiry, or comes from the assistant's own words (older
summaries' ``Assistant agreed:`` lines). Lines that older versions of the model-free
summariser wrote ("User: I live in Lisbon.") are read again through today's sentence rules,
as the user's words they were, so old history is curated the same way as new. A line that
reads as a copied message is read again the same way: one that opens with a speaker label
("Maria: I moved to Lyon", "Sam: aw thanks Rafael") as that person's words, and "Remember
that ..." as the statement inside; a request that says it is one ("Deploy on Thursday
please") is never written as a fact.

The prefix decides the file (``routing.route``); it is dropped from the bullet except
``Decided:``, which says what the line is. Pure; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from reverie.core.durable import MemoryFileName
from reverie.core.marks import Mark
from reverie.core.redact import contains_secret
from reverie.memory.modelfree.chatter import content_words, is_social
from reverie.memory.modelfree.facts import (
    Fact,
    as_of_date,
    since_tag,
    with_as_of,
    without_tags,
)
from reverie.memory.modelfree.phrasing import unresolved
from reverie.memory.modelfree.routing import route
from reverie.memory.modelfree.rules import is_request, remembered
from reverie.memory.modelfree.summariser import sentence_fact, user_speaker

_PREFIX = re.compile(
    r"^(?P<who>user instruction|user correction|user rule|user|noted|decided|decision|"
    r"assistant agreed)\s*[:：]\s*(?P<body>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_LEGACY_FIRST_PERSON = re.compile(r"^(?:I\b|I'|My\b|my\b|我(?!们)|no\b|actually\b)|\bI\b")
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
_KEEP_LABEL = ("decided", "decision")
# "User: Caroline: Hey Mel!": older summaries stacked a speaker's name on the label.
_STACKED = re.compile(r"^(?P<name>[A-Z][\w'-]{1,30}):\s+(?P<rest>\S.*)$", re.DOTALL)


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A fact admitted for writing: bullet text, file, mark, and the value it replaced."""

    text: str
    target: MemoryFileName
    mark: Mark
    before: str | None = None


def admit(fact: Fact, *, day: date, today: date, ephemeral_days: int) -> Candidate | str:
    """Return the bullet ``fact`` becomes, or why it does not become one."""
    refused = _refused(fact)
    if refused is not None:
        return refused
    fact_or_reason = _modernised(fact, day)
    if isinstance(fact_or_reason, str):
        return fact_or_reason
    fact = fact_or_reason
    prefix = _PREFIX.match(fact.text.strip())
    body = prefix["body"] if prefix else fact.text.strip()
    plain = without_tags(body)
    not_a_fact = _not_a_fact(plain, fact.mark, labelled=prefix is not None)
    if not_a_fact is not None:
        return not_a_fact
    target = route(fact.text)
    text = fact.text.strip() if prefix is None or prefix["who"].lower() in _KEEP_LABEL else body
    if fact.mark == "ephemeral":
        text = text if as_of_date(text) is not None else with_as_of(text, day)
        expires = as_of_date(text)
        if expires is not None and expires + timedelta(days=ephemeral_days) < today:
            return f"ephemeral, and older than {ephemeral_days} days"
    tag = since_tag(text)
    return Candidate(text=text, target=target, mark=fact.mark, before=tag.before if tag else None)


def _not_a_fact(plain: str, mark: Mark, *, labelled: bool) -> str | None:
    """Why a line's text is not a fact to write (a request, chatter, a bare pronoun), or None.

    A labelled line ("User: ...") was written by the summariser, which has already told
    requests from facts on the sentence as said ("I'm vegetarian, so ... please").
    """
    if mark != "permanent" and not labelled and is_request(plain):
        return "a request, not a fact"
    # A rule may be short and still mean something ("Be concise."); other facts may not.
    if is_social(plain) or (mark != "permanent" and content_words(plain) < 2):
        return "chatter: no lasting information"
    if unresolved(plain):
        return "its subject is a pronoun with no referent; left in history"
    return None


def _refused(fact: Fact) -> str | None:
    if fact.mark == "skip":
        return "marked [skip]"
    if contains_secret(fact.text):
        return "looks like a credential"
    return None


def _modernised(fact: Fact, day: date) -> Fact | str:
    """Read an older summary line again through today's rules (see the module docstring)."""
    prefix = _PREFIX.match(fact.text.strip())
    if prefix is None:
        return _copied_message(fact, day)
    who, body = prefix["who"].lower(), prefix["body"]
    if who == "assistant agreed":
        return "the assistant's words, not the user's"
    if who not in ("user", "user instruction", "user correction"):
        return fact
    stacked = _STACKED.match(body)
    name = stacked["name"] if stacked else None
    body = stacked["rest"] if stacked else body
    # Today's facts have no first person and no closing full stop; older lines had either.
    legacy = _LEGACY_FIRST_PERSON.search(body) or _SENTENCE_END.search(without_tags(body))
    if who == "user" and name is None and not legacy:
        return fact
    renewed = sentence_fact(body, speaker=user_speaker(name), day=day)
    if renewed is None:
        return "not a lasting fact (chatter, a question or a passing remark)"
    mark = "correction" if fact.mark == "correction" else renewed.mark
    return Fact(mark=mark, text=renewed.text)


def _copied_message(fact: Fact, day: date) -> Fact | str:
    """A plain line that is a message copied with its label, or a "Remember that ..."."""
    text = fact.text.strip()
    stacked = _STACKED.match(text)
    name = stacked["name"] if stacked and stacked["name"] not in _NOT_SPEAKERS else None
    body = stacked["rest"] if stacked and name else text
    inner = remembered(without_tags(body))
    if name is None and inner is None:
        return fact
    if name is not None and not (is_social(body) or _LEGACY_FIRST_PERSON.search(body)):
        return fact  # "Backend: Python" is a fact written with a colon, not a message
    renewed = sentence_fact(inner or body, speaker=user_speaker(name), day=day)
    if renewed is None:
        return "not a lasting fact (chatter, a question or a passing remark)"
    return Fact(mark="correction" if fact.mark == "correction" else renewed.mark, text=renewed.text)


_NOT_SPEAKERS = frozenset({"Rule", "Note", "Notes", "Update", "Fact", "Todo", "Reminder"})
