"""The evaluation set's values and its matching rule.

A ``Conversation`` is one or more dated ``Session``s (each ingested as one conversation, in
time order) and its annotation: ``gold`` facts a careful person would keep in the durable
files, and ``stale`` values that later sessions replaced. Both are written with their key
terms in brackets: "Lives in [Porto]" has the key ``porto``.

Matching rule (documented in bench/curation.py too): a bullet matches a gold fact when every
key term of the fact occurs in the bullet, case-folded. A stale value is "stated as current"
when every key of it occurs in a bullet's text outside its trailing ``(since ...; before:
...)`` tag.

The ``realchat`` part also carries ``chatter``: every line it generated that must never reach
a durable file, with its kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Turn = tuple[str, str | None, str]
"""(role, speaker name or None, text)."""

_KEY = re.compile(r"\[([^\]]+)\]")


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """One conversation sitting: its start (ISO, with offset) and its turns, minutes apart."""

    start: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversation:
    """A conversation of one or more sessions, with its annotation."""

    id: str
    sessions: tuple[Session, ...]
    gold: tuple[str, ...]
    stale: tuple[str, ...] = ()
    chatter: tuple[tuple[str, str], ...] = ()
    """(kind, text) of every line said that must not reach a durable file (``realchat``)."""
    names: tuple[str, ...] = ()
    """The people who talk, so a vocative can be told from a subject (``realchat``)."""


def keys(annotation: str) -> tuple[str, ...]:
    """Return the bracketed key terms of a gold or stale annotation, case-folded."""
    found = tuple(k.casefold() for k in _KEY.findall(annotation))
    if not found:
        raise ValueError(f"annotation without [key] terms: {annotation!r}")
    return found


def u(text: str, name: str | None = None) -> Turn:
    """A user turn."""
    return ("user", name, text)


def a(text: str, name: str | None = None) -> Turn:
    """An assistant turn."""
    return ("assistant", name, text)


def t(text: str, name: str = "web_fetch") -> Turn:
    """A tool result turn (the tool's name in the name slot)."""
    return ("tool", name, text)
