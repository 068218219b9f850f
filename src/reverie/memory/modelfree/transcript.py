"""Who said what: the utterances the model-free summariser reads, from messages or a raw entry.

An ``Utterance`` is one message reduced to what extraction needs: the role (who is speaking:
the user, the assistant, a tool, the system), the speaker's name when the conversation names
people, the text and the day it was said. ``utterances`` builds them from session messages,
where the role is known for certain; that is the normal path (compaction hands the summariser
messages, never rendered text). Tool calls carry no words of anyone, so they are left out
(and no call id is ever made up).

``parse_transcript`` reads the one kind of history entry that holds rendered text: a raw
transcript kept when a model summariser failed. Blocks look like ``[2026-11-30 14:05] USER:
text`` or ``TOOL RESULT (name): text``; compaction indents every continuation line of a
message, so a line inside a tool result that reads ``USER: ...`` continues the tool's block
and can never pass for the user. Lines before the first header are ignored.

``split_labelled`` reads a pasted chat: an unnamed user message whose every line opens with a
speaker label (``Maria: ...``, ``小林：...``), with at least two different people, or one
Latin-script name and only lines a person says (first person, greetings, thanks), is what
each of them said, one named utterance per line; so no label ever reaches a fact and each fact
names the person who said it. ``split_pasted`` looks at the whole batch first: in a group chat
every message is one person's labelled line, so a batch whose labelled messages (any role)
name two or more people and say something only a person says splits every such user message,
whatever its own lines say. No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from reverie.core.messages import Message, Role
from reverie.core.text import CJK

_HEADER = re.compile(
    r"^(?:\[(?P<stamp>\d{4}-\d{2}-\d{2})[ T]\d{2}:\d{2}(?::\d{2})?\]\s*)?"
    r"(?:(?P<role>USER|ASSISTANT|SYSTEM|TOOL):\s?(?P<text>.*)"
    r"|ASSISTANT called [^\s(]+\(.*\)\s*"
    r"|TOOL RESULT \([^)]*\):\s?(?P<result>.*))$"
)
_ROLES: dict[str, Role] = {
    "USER": "user",
    "ASSISTANT": "assistant",
    "SYSTEM": "system",
    "TOOL": "tool",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Utterance:
    """One thing said: by whom (role and optional name), what, and on which day."""

    role: Role
    text: str
    name: str | None = None
    day: date | None = None


def utterances(messages: Iterable[Message]) -> list[Utterance]:
    """Return the utterances of session messages (tool-call-only messages have none)."""
    found: list[Utterance] = []
    for message in messages:
        if not message.text.strip():
            continue
        day = message.timestamp.date() if message.timestamp is not None else None
        name = message.name if message.role in ("user", "assistant") else None
        found.append(Utterance(role=message.role, text=message.text, name=name, day=day))
    return found


_LABELLED = re.compile(
    rf"^\s*(?P<name>[A-Z][\w'-]{{1,20}}(?: [A-Z][\w'-]{{1,20}})?|[{CJK}]{{2,3}})\s*[:：]\s*"
    r"(?P<text>\S.*)$"
)
# What only a person says: the first person, a greeting or thanks, or asking to be remembered.
_SPOKEN = re.compile(
    r"\b(?:I|I'm|I've|my|me)\b|^我"
    r"|^(?:hi|hey|hello|thanks|thank you|aw+|haha|lol|wow|(?:please )?remember)\b",
    re.IGNORECASE,
)
_NOT_PEOPLE = frozenset(
    """
    User Assistant System Tool Note Notes Update Todo Edit Ps PS Btw BTW Fyi FYI Fwiw Re
    Question Answer Context Summary Reminder Warning Error Important
    """.split()  # noqa: SIM905
)


def split_pasted(said: Iterable[Utterance]) -> list[Utterance]:
    """``split_labelled`` over one batch, which may show it is a pasted chat as a whole.

    A batch whose fully labelled messages name two or more people, and somewhere say what only
    a person says, is a pasted chat: each of its fully labelled user messages is split, even a
    one-name message whose own lines would not show it ("Ava: Took the boat out").
    """
    batch = list(said)
    names: set[str] = set()
    spoken = False
    for utterance in batch:
        found = _labels(utterance)
        if found is not None:
            names |= {m["name"] for m in found}
            spoken = spoken or any(_SPOKEN.search(m["text"]) for m in found)
    chat = len(names) >= 2 and spoken
    return [piece for utterance in batch for piece in split_labelled(utterance, chat=chat)]


def split_labelled(utterance: Utterance, *, chat: bool = False) -> list[Utterance]:
    """Return a pasted chat's lines as named utterances (see the module docstring).

    ``chat``: the batch the message came in is a pasted chat (``split_pasted``), so a message
    of one person's labelled lines is theirs whatever its lines say.
    """
    if utterance.role != "user":
        return [utterance]
    found = _labels(utterance)
    if found is None:
        return [utterance]
    names = {m["name"] for m in found}
    spoken = all(_SPOKEN.search(m["text"]) for m in found)
    if not chat and len(names) < 2 and not (spoken and names.pop().isascii()):
        return [utterance]  # "Backend: Python" and "更正一下：我…" are not someone speaking
    return [
        Utterance(role="user", text=m["text"], name=m["name"], day=utterance.day) for m in found
    ]


def _labels(utterance: Utterance) -> list[re.Match[str]] | None:
    """Each line's label match, when every line of an unnamed message opens with a person's."""
    if utterance.name is not None:
        return None
    lines = [line for line in utterance.text.splitlines() if line.strip()]
    found = [_LABELLED.match(line) for line in lines]
    matched = [m for m in found if m is not None]
    if not lines or len(matched) < len(found) or {m["name"] for m in matched} & _NOT_PEOPLE:
        return None
    return matched


def parse_transcript(transcript: str) -> list[Utterance]:
    """Return the utterances of a raw transcript entry, in order."""
    found: list[Utterance] = []
    lines: list[str] = []
    current: re.Match[str] | None = None
    for line in transcript.splitlines():
        header = _HEADER.match(line)
        if header is None:
            lines.append(line.removeprefix("  "))
            continue
        if current is not None:
            found.extend(_utterance(current, lines))
        current, lines = header, []
    if current is not None:
        found.extend(_utterance(current, lines))
    return found


def _utterance(header: re.Match[str], more: list[str]) -> list[Utterance]:
    day = _day(header["stamp"])
    if header["result"] is not None:
        text = "\n".join([header["result"], *more]).strip()
        return [Utterance(role="tool", text=text, day=day)]
    if header["role"] is None:
        return []
    text = "\n".join([header["text"], *more]).strip()
    return [Utterance(role=_ROLES[header["role"]], text=text, day=day)] if text else []


def _day(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None
