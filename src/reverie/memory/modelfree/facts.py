"""Fact lines: the ``- [mark] fact`` form summaries use, as values, rendered and parsed.

A summary (from a model or from ``ModelFreeSummariser``) is a list of lines such as
``- [durable] User: I live in Lisbon.``. The mark says how long the fact matters and how dream
should treat it: ``permanent`` (rules and instructions that hold until revoked), ``durable``
(stable facts), ``ephemeral`` (true for a short while; carries an ``(as of YYYY-MM-DD)`` tag so
it can expire), ``correction`` (replaces an earlier fact) and ``skip`` (not worth keeping).
A fact that replaced an older one says so at its end: ``(since YYYY-MM-DD; before: old)``
(``since_tag``); a summary line may carry just ``(before: old)``, dated when it is curated.
``(nothing)`` is the whole text of a summary with no facts.

Parsing is tolerant: a plain line (with or without a bullet) is a durable fact, an unknown mark
is kept as part of the text's meaning but read as durable. This module does no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date

from reverie.core.marks import MARKS, Mark
from reverie.memory.compaction.attempt import NOTHING  # one sentinel, owned by the summary types

_BY_NAME: dict[str, Mark] = {mark: mark for mark in MARKS}


_LINE = re.compile(r"^\s*(?:[-*•]\s+)?(?:\[(?P<mark>[A-Za-z_-]{1,20})\]\s*)?(?P<text>.*?)\s*$")
_AS_OF = re.compile(r"\s*\(as of (?P<day>\d{4}-\d{2}-\d{2})\)\s*$")
_SINCE = re.compile(
    r"\s*\((?:since (?P<day>\d{4}-\d{2}-\d{2}))?(?:;\s*)?(?:before: (?P<before>[^()]+?))?\)\s*$"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """One fact of a summary: its mark and its text (without bullet or mark)."""

    mark: Mark
    text: str

    @property
    def line(self) -> str:
        """The fact as a summary line: ``- [mark] text``."""
        return f"- [{self.mark}] {self.text}"

    @property
    def as_of(self) -> date | None:
        """The date of an ``(as of YYYY-MM-DD)`` tag at the end of the text, if any."""
        return as_of_date(self.text)


def as_of_date(text: str) -> date | None:
    """Return the date of a trailing ``(as of YYYY-MM-DD)`` tag, or None (absent or invalid)."""
    found = _AS_OF.search(text)
    if found is None:
        return None
    try:
        return date.fromisoformat(found["day"])
    except ValueError:
        return None


def with_as_of(text: str, day: date) -> str:
    """Return ``text`` ending with an ``(as of day)`` tag (replacing any tag it had)."""
    return f"{_AS_OF.sub('', text).rstrip(' .。')} (as of {day.isoformat()})"


def without_as_of(text: str) -> str:
    """Return ``text`` without its trailing ``(as of ...)`` tag."""
    return _AS_OF.sub("", text)


@dataclass(frozen=True, slots=True, kw_only=True)
class SinceTag:
    """The ``(since day; before: old)`` end of a fact that replaced an older one."""

    day: date | None
    before: str | None


def since_tag(text: str) -> SinceTag | None:
    """Return the fact's trailing ``(since ...; before: ...)`` tag, or None."""
    found = _SINCE.search(text)
    if found is None or (found["day"] is None and found["before"] is None):
        return None
    try:
        day = date.fromisoformat(found["day"]) if found["day"] else None
    except ValueError:
        day = None
    return SinceTag(day=day, before=found["before"])


def without_tags(text: str) -> str:
    """Return ``text`` without its trailing ``(as of ...)`` and ``(since ...)`` tags."""
    text = without_as_of(text)
    return _SINCE.sub("", text) if since_tag(text) is not None else text


def with_since(text: str, day: date | None, before: str | None) -> str:
    """Return ``text`` (tags removed) ending with ``(since day; before: old)``."""
    parts = [f"since {day.isoformat()}"] if day is not None else []
    parts += [f"before: {before}"] if before else []
    base = without_tags(text).rstrip(" .。")
    return f"{base} ({'; '.join(parts)})" if parts else base


def parse_fact_line(line: str) -> Fact | None:
    """Parse one summary line into a Fact; None for a blank line or ``(nothing)``.

    A line without a known mark is a durable fact; a heading (``# ...``) is not a fact.
    """
    found = _LINE.match(line)
    if found is None:  # pragma: no cover - the pattern matches every single line
        return None
    text = found["text"]
    if not text or text.startswith("#") or text.strip("() ").lower() == "nothing":
        return None
    known = _BY_NAME.get((found["mark"] or "durable").lower())
    if known is not None:
        return Fact(mark=known, text=text)
    return Fact(mark="durable", text=text if found["mark"] is None else f"[{found['mark']}] {text}")


def parse_facts(text: str) -> Iterator[Fact]:
    """Yield the facts of a summary text, line by line."""
    for line in text.splitlines():
        fact = parse_fact_line(line)
        if fact is not None:
            yield fact


def render_facts(facts: Iterable[Fact]) -> str:
    """Return the summary text for ``facts``: one line each, or ``(nothing)`` when empty."""
    lines = [fact.line for fact in facts]
    return "\n".join(lines) if lines else NOTHING
