"""Spans anchored at an event: "the week after the jazz festival", "before moving to Leeds".

A question can name its time by an event instead of a date. ``anchored`` finds such a
phrase ("after", "before" or "since", optionally "the day / week / two weeks / month"
before it), looks the event's words up in the index (one query, ``ANCHOR_POOL`` items) and
takes the item holding most of them (at least half; ties go to the higher score) as the
anchor: the span starts or ends at the time it was written. After and since reach forward
``days`` (1 for "the day", 7 for "the week", 14 for "two weeks", 31 for "the month", else
``OPEN_DAYS``), before reaches back as far. The recaller then asks the index for what was
written in the span (``between``) and ranking gives it the named-day boost
(``Signals.windows``); the anchor joins the pool at its best score (``with_anchors``), and
the question is ranked on its words outside the phrase (``Anchored.rest``). No phrase, an
event no item holds, or no index answer: no span; nor when "after" belongs to a verb ("who
looked after the dog?", "named after her aunt"). This module does no I/O of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from reverie.core.hits import Candidate
from reverie.core.words import prefix_stem
from reverie.memory.recall.terms import QueryTerms

if TYPE_CHECKING:
    from reverie.storage.ports import IndexPort

ANCHOR_POOL = 10
"""Items the event's lookup returns."""
OPEN_DAYS = 21
"""How far a bare "after X" / "before X" reaches."""

_UNITS = {"day": 1, "week": 7, "weekend": 3, "two weeks": 14, "fortnight": 14, "month": 31}
_PHRASE = re.compile(
    r"(?:\b(?:in |during )?the (?P<unit>day|weekend|week|two weeks|fortnight|month) )?"
    r"\b(?P<way>after|before|since)\s+(?P<event>[^?.!,;:]+)",
    re.IGNORECASE,
)

_VERB_BEFORE = re.compile(
    r"\b(?:look|looks|looked|looking|named|ask|asks|asked|asking|take|takes|took|taking"
    r"|went|go|goes|going|ran|run|runs|running|chase|chased|chasing)\s+$",
    re.IGNORECASE,
)
"""A verb that makes "after" part of it ("looked after", "named after"), not a time."""

Window = tuple[datetime, datetime]


@dataclass(frozen=True, slots=True, kw_only=True)
class Anchored:
    """What a query's event phrases anchor.

    Attributes:
        windows: the spans (end excluded).
        anchors: the items telling of the events.
        rest: the query without the phrases (what it asks of the span: "what did Maya get
            done"); the whole query when nothing was anchored.
    """

    windows: tuple[Window, ...] = ()
    anchors: tuple[Candidate, ...] = ()
    rest: str = ""


def anchored(query: str, index: IndexPort, scope: str | None) -> Anchored:
    """The spans ``query`` anchors at events the index holds (none: ``Anchored(rest=query)``)."""
    windows: list[Window] = []
    anchors: list[Candidate] = []
    rest = query
    for found in _PHRASE.finditer(query):
        if _VERB_BEFORE.search(query[: found.start("way")]):
            continue  # "who looked after the dog?" names no time
        event = QueryTerms.of(found.group("event")).terms
        anchor = _anchor(event, index, scope) if event else None
        if anchor is None or anchor.timestamp is None:
            continue
        unit = (found.group("unit") or "").lower()
        reach = timedelta(days=_UNITS.get(unit, OPEN_DAYS))
        at = anchor.timestamp
        before = found.group("way").lower() == "before"
        windows.append((at - reach, at) if before else (at, at + reach))
        anchors.append(anchor)
        rest = rest.replace(found.group(0), " ")
    return Anchored(windows=tuple(windows), anchors=tuple(anchors), rest=rest)


def anchor_windows(query: str, index: IndexPort, scope: str | None) -> tuple[Window, ...]:
    """The time spans ``query`` anchors at events the index holds (end excluded)."""
    return anchored(query, index, scope).windows


def _anchor(event: Sequence[str], index: IndexPort, scope: str | None) -> Candidate | None:
    """The item holding most of the event's words (at least half of them), or None."""
    found = index.candidates(event, limit=ANCHOR_POOL, session_key=scope, context_weight=0)
    holds = [_holds(term) for term in event]
    best, best_key = None, (0, 0.0)
    for candidate in found:
        lower = candidate.text.lower()
        held = sum(1 for term_held in holds if term_held(lower))
        key = (held, candidate.score)
        if 2 * held >= len(event) and key > best_key:
            best, best_key = candidate, key
    return best


def _holds(term: str) -> Callable[[str], bool]:
    """Whether a lower-cased text holds ``term`` (a word starting with its stem; CJK: as is)."""
    if not term.isascii():
        return lambda lower: term in lower
    pattern = re.compile(rf"\b{re.escape(prefix_stem(term))}")
    return lambda lower: pattern.search(lower) is not None


def with_anchors(pool: list[Candidate], anchors: Sequence[Candidate]) -> list[Candidate]:
    """``pool`` with the items telling of the events, at the pool's best score (none twice)."""
    if not anchors:
        return pool
    best = max((c.score for c in pool), default=0.0) or 1.0
    places = {_place(c) for c in anchors}
    kept = [c for c in pool if _place(c) not in places]
    return [*(replace(a, score=best) for a in anchors), *kept]


def _place(candidate: Candidate) -> tuple[str, str, int]:
    if candidate.kind == "message":
        return ("message", candidate.session_key or "", candidate.message_index or 0)
    return ("history", "", candidate.cursor or 0)
