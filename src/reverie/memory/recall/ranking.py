"""Ranking recall candidates again, past plain BM25, with no model.

The index returns a pool of candidates by BM25 (own text, plus the previous message's text
at a lower weight). Each is then scored

    score = bm25 / best bm25
          + cover_boost x share of the query's terms it holds, names left out
          + key_boost   x share of the query's key terms it holds (numbers, quotes)
          + date_boost  if it was written on a day the query names ("last Friday")
          + expand_boost x share of the recent turns' terms it holds
          + present_boost x how new it is within the pool (0 oldest, 1 newest), only for a
            question about the present ("where does she live now?"): an update beats the
            fact it replaced
          - question_penalty if the item itself ends with a question mark (a question asks,
            it does not tell: "Anything new at home?" is not what "which animals live in
            her home?" looks for)

and near-duplicates are dropped (an item of similar length whose words are all in a better
item's, but for one in ten beyond the first ten).
Coverage exists because BM25 favours short items: "Morning Felix!" outranks the message that
answers "what is Felix allergic to?" on the name alone. A term is held when a word of the
item starts with it, or (six letters or more) with all but its last three letters, a rough
stem (``core.words.prefix_stem``: "allergic" / "allergies").
Every step can be switched off in ``RecallOptions`` so the benchmark can measure what each
buys. This module does no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from reverie.core.hits import Candidate
from reverie.core.words import prefix_stem
from reverie.memory.recall.dates import DaySpan

_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallOptions:
    """How recall ranks (defaults are what the benchmark showed to pay).

    Attributes:
        pool: candidates fetched from the index per query.
        name_query: look the query's names up in the index too (off: only when it has no
            other terms; names fill the pool with greetings).
        context_weight: weight of a match in the previous message's text (0: ignore context;
            off by default: it did not pay on the dev set and costs one more index query).
        cover_boost: added for holding all the query's terms other than names (0: off).
        key_boost: added for holding all the query's key terms (0: off).
        name_keys: count names among the key terms (a question names the person it is
            about, who is named in every greeting, so this can mislead).
        date_boost: added for being written on a day the query names (0: off).
        expand_boost: added for holding all the terms of the recent turns (0: off).
        present_boost: added to the newest candidate of a question about the present, in
            proportion for older ones (0: off).
        question_penalty: taken from an item that is itself a question (0: off).
        dedup: drop near-duplicates of better items.
        neighbour_top: the turns next to this many best message hits join the ranking
            (``neighbours``; 0: off).
        neighbour_weight: a neighbour's score as a share of its hit's.
        link_top: items sharing a rare word with this many best hits join (0: off).
        link_weight: a linked item's score as a share of its hit's.
        link_rare: a word held by at most this many items is rare enough to link.
        link_names: a hit's names are among the words its links follow ("Ezra got hired"
            links to "my cousin Ezra is staying"), first.
        entity_rare: a question's name held by at most this many items is searched on its
            own and counts as a key term (``entities``; 0: off).
        anchors: "the week after X", "before X": what was written in the span anchored at
            the item that tells of X joins, with the named-day boost (``anchors``).
        history: also recall history entries (else only session messages).
        item_chars: the longest quote of one item; longer sources are excerpted.
    """

    pool: int = 80
    name_query: bool = False
    context_weight: float = 0.0
    cover_boost: float = 0.5
    key_boost: float = 0.5
    name_keys: bool = False
    date_boost: float = 0.5
    expand_boost: float = 0.2
    present_boost: float = 0.3
    question_penalty: float = 0.2
    dedup: bool = True
    neighbour_top: int = 0
    neighbour_weight: float = 0.5
    link_top: int = 3
    link_weight: float = 0.5
    link_rare: int = 6
    link_names: bool = True
    entity_rare: int = 6
    anchors: bool = True
    history: bool = True
    item_chars: int = 1_200


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranked:
    """A candidate with its final score and the reasons for it."""

    candidate: Candidate
    score: float
    why: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Signals:
    """What a query asks about, beyond its words."""

    terms: tuple[str, ...]
    keys: frozenset[str]
    names: frozenset[str] = frozenset()
    spans: tuple[DaySpan, ...] = ()
    expansion: tuple[str, ...] = ()
    now: datetime | None = None
    present: bool = False
    entities: frozenset[str] = frozenset()
    windows: tuple[tuple[datetime, datetime], ...] = ()


def rank(
    candidates: Sequence[Candidate], signals: Signals, options: RecallOptions
) -> Iterator[Ranked]:
    """Yield ``candidates`` scored, best first, near-duplicates of better ones left out.

    Lazy, so a caller that stops once its budget is full pays only for what it took.
    """
    best = max((c.score for c in candidates), default=0.0) or 1.0
    matchers = {term: _matcher(term) for term in (*signals.terms, *signals.expansion)}
    ranked = [_score(c, best, signals, options, matchers) for c in candidates]
    if signals.present and options.present_boost:
        ranked = _newer_first(ranked, options.present_boost)
    ranked.sort(key=lambda r: (-r.score, -(r.candidate.timestamp or _EPOCH).timestamp()))
    return dedup(ranked) if options.dedup else iter(ranked)


Matcher = Callable[[str], bool]


def _score(
    candidate: Candidate,
    best: float,
    signals: Signals,
    options: RecallOptions,
    matchers: dict[str, Matcher],
) -> Ranked:
    lower = candidate.text.lower()
    held = tuple(term for term in signals.terms if matchers[term](lower))
    score = candidate.score / best
    common_names = signals.names - signals.entities  # a rare name is a subject, not a greeting
    topical = [term for term in signals.terms if term not in common_names]
    if topical and options.cover_boost:
        score += options.cover_boost * sum(1 for t in held if t in topical) / len(topical)
    wanted = signals.keys if options.name_keys else signals.keys - signals.names
    wanted |= signals.entities
    if wanted and options.key_boost:
        score += options.key_boost * sum(1 for term in held if term in wanted) / len(wanted)
    why = list(held)
    if options.date_boost and (_on_a_day(candidate, signals) or _in_window(candidate, signals)):
        score += options.date_boost
        why.append("date")
    if options.question_penalty and candidate.text.rstrip().endswith(("?", "？")):
        score -= options.question_penalty
    if signals.expansion and options.expand_boost:
        extra = sum(1 for term in signals.expansion if matchers[term](lower))
        score += options.expand_boost * extra / len(signals.expansion)
    return Ranked(candidate=candidate, score=score, why=tuple(why))


def _newer_first(ranked: list[Ranked], boost: float) -> list[Ranked]:
    """Add ``boost`` in proportion to how new each item is within the pool."""
    times = [r.candidate.timestamp.timestamp() for r in ranked if r.candidate.timestamp]
    if len(times) < 2 or max(times) == min(times):
        return ranked
    low, span = min(times), max(times) - min(times)
    return [
        replace(r, score=r.score + boost * (r.candidate.timestamp.timestamp() - low) / span)
        if r.candidate.timestamp is not None
        else r
        for r in ranked
    ]


def _matcher(term: str) -> Matcher:
    """Whether a lower-cased text holds ``term`` (a word starting with it or its rough stem)."""
    if not term.isascii():
        return lambda lower: term in lower
    pattern = re.compile(rf"\b{re.escape(prefix_stem(term))}")
    return lambda lower: pattern.search(lower) is not None


def _in_window(candidate: Candidate, signals: Signals) -> bool:
    when = candidate.timestamp
    return when is not None and any(start <= when < end for start, end in signals.windows)


def _on_a_day(candidate: Candidate, signals: Signals) -> bool:
    if candidate.timestamp is None or not signals.spans:
        return False
    zone = signals.now.tzinfo if signals.now is not None else None
    day = candidate.timestamp.astimezone(zone).date()
    return any(span.holds(day) for span in signals.spans)


def dedup(ranked: Iterable[Ranked]) -> Iterator[Ranked]:
    """Yield ``ranked`` (best first) without near-duplicates of better items."""
    seen: list[tuple[int, frozenset[str]]] = []
    exact: set[frozenset[str]] = set()
    for item in ranked:
        words = frozenset(_WORDS.findall(item.candidate.text.lower()))
        if words in exact:
            continue
        if words and _near_any(words, seen):
            continue
        exact.add(words)
        seen.append((len(words), words))
        yield item


def _near_any(words: frozenset[str], seen: list[tuple[int, frozenset[str]]]) -> bool:
    """Whether ``words`` is a near-duplicate of any seen item.

    Near-duplicates are of similar length (neither twice the other) and share all words, but
    for one in ten beyond the first ten of the shorter. Short items must match word for word:
    "we called him Ziggy" is not a duplicate of "we called him Biscuit", the one word that
    differs is the point; and a short reply is not a duplicate of a long message that happens
    to hold its words. One loop, no call per pair: this runs for every pair of candidates.
    """
    size = len(words)
    for length, other in seen:
        if size <= length:
            if 2 * size >= length and (
                words <= other if size < _EXACT_BELOW else len(words - other) <= (size - 10) // 10
            ):
                return True
        elif 2 * length >= size and (
            other <= words if length < _EXACT_BELOW else len(other - words) <= (length - 10) // 10
        ):
            return True
    return False


_EXACT_BELOW = 20
"""Below this many words the shorter item must be held whole: a subset test, which stops at
the first missing word and builds no set (most pairs). cProfile of 100 dense prompts at 100k:
``_near_any`` 3.1 -> 1.3 ms a prompt."""


_EPOCH = datetime.fromtimestamp(0).astimezone()
