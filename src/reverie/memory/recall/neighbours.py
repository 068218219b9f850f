"""Neighbouring and linked turns: what sits next to a strong hit, or names what it names.

An answer is often not where the question's words are: "Anything new at home?" holds the
words, the reply after it holds the answer ("We adopted a beagle!"); "How did the interviews
go?" and then "I got the job". So for each of the best ``top`` message hits, the messages
right after and right before it in its session join the ranking with ``weight`` times the
hit's score (or keep their own score, if that is higher), marked ``next to #m12@key`` in
``why``. What an answer needs beyond one turn (``RecallOptions.neighbour_top``; 0: off).

Linked turns (``with_links``; ``RecallOptions.link_top``, 0: off): an answer spread over
turns shares its subject, not the question's words ("I twisted my knee playing football" and
later "the knee is fully healed" for "has she recovered from the football injury?"). For
each of the best ``link_top`` hits, its own words that the query lacks are looked up in one
query; a word held by at most ``link_rare`` of the items it returns is rare (a name, a place,
a thing, not a common word), and the items holding it join with ``link_weight`` times the
hit's score, marked ``linked by <word>``. One index query per hit bounds the cost.

The neighbours come from the index's ``items_named`` (an index without it, such as the
PostgreSQL one, gets no neighbours) and pass the same eligibility as every candidate
(isolation, what the prompt already carries). This module does no I/O of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from reverie.core.hits import Candidate
from reverie.core.marks import without_marks
from reverie.core.refs import SourceRef, message_ref
from reverie.core.words import prefix_stem
from reverie.memory.recall.ranking import Ranked, RecallOptions
from reverie.memory.recall.terms import QueryTerms

if TYPE_CHECKING:
    from reverie.storage.ports import IndexPort

Fetch = Callable[[Sequence[SourceRef]], list[Candidate]]
Eligible = Callable[[Candidate], bool]


def expand(
    ranked: Iterable[Ranked],
    index: IndexPort,
    options: RecallOptions,
    asked: frozenset[str],
    scope: str | None,
    eligible: Eligible,
) -> Iterable[Ranked]:
    """``ranked`` with the neighbours and links ``options`` ask for (unchanged when none)."""
    fetch = getattr(index, "items_named", None)
    if options.neighbour_top and fetch is not None:
        ranked = with_neighbours(
            ranked,
            lambda refs: list(fetch(refs, session_key=scope)),
            eligible,
            top=options.neighbour_top,
            weight=options.neighbour_weight,
        )
    if not options.link_top:
        return ranked
    return with_links(
        ranked,
        lambda words, limit: index.candidates(
            words, limit=limit, session_key=scope, context_weight=0
        ),
        eligible,
        asked,
        top=options.link_top,
        weight=options.link_weight,
        rare=options.link_rare,
        only_rare=partial(index.rare_terms, at_most=options.link_rare),
        names=options.link_names,
    )


def with_neighbours(
    ranked: Iterable[Ranked], fetch: Fetch, eligible: Eligible, *, top: int, weight: float
) -> list[Ranked]:
    """``ranked`` (best first) with the neighbours of its best ``top`` message hits, re-sorted."""
    items = list(ranked)
    hits = [r for r in items if r.candidate.kind == "message"][:top]
    if not hits:
        return items
    wanted: dict[tuple[str, str, int], Ranked] = {}
    for hit in hits:
        key, index = hit.candidate.session_key or "", hit.candidate.message_index or 0
        for near in (index + 1, index - 1):
            if near >= 0 and ("message", key, near) not in wanted:
                wanted[("message", key, near)] = hit
    by_key = {_place(r.candidate): r for r in items}
    refs = [message_ref(key, index) for _kind, key, index in wanted]
    for found in fetch(refs):
        place = _place(found)
        parent = wanted.get(place)
        if parent is None or not eligible(found):
            continue
        score = parent.score * weight
        _kind, key, index = _place(parent.candidate)
        mark = f"next to {message_ref(key, index)}"
        own = by_key.get(place)
        if own is None:
            by_key[place] = Ranked(candidate=found, score=score, why=(mark,))
        elif own.score < score:
            by_key[place] = replace(own, score=score, why=(*own.why, mark))
    return sorted(by_key.values(), key=lambda r: -r.score)


def _place(candidate: Candidate) -> tuple[str, str, int]:
    """Which item a candidate is: a message by session and index, a history entry by cursor."""
    if candidate.kind == "message":
        return ("message", candidate.session_key or "", candidate.message_index or 0)
    return ("history", "", candidate.cursor or 0)


Search = Callable[[Sequence[str], int], list[Candidate]]


def with_links(  # noqa: PLR0913 (keyword-only options)
    ranked: Iterable[Ranked],
    search: Search,
    eligible: Eligible,
    asked: frozenset[str],
    *,
    top: int,
    weight: float,
    rare: int,
    only_rare: Callable[[Sequence[str]], list[str]] | None = None,
    names: bool = False,
) -> list[Ranked]:
    """``ranked`` (best first) with the items sharing a rare word with its best ``top`` hits.

    One index query per hit, for all its words at once (``LINK_POOL`` items): a word held by
    more than ``rare`` of them is common, and links nothing. ``only_rare`` (the index's
    capped count, when it has one) drops the common words before that query, so the query
    scores only short posting lists. With ``names`` a hit's names come first among its words
    (``QueryTerms.searched`` leaves names out, and a name is what turns of one subject share).
    """
    items = list(ranked)
    by_place = {_place(r.candidate): r for r in items}
    for hit in items[:top]:
        words = [t for t in _link_words(hit.candidate.text, names=names) if t not in asked]
        words = words[:LINK_WORDS] if only_rare is None else only_rare(words[:LINK_WORDS])
        found = search(words, LINK_POOL) if words else []
        for word in words:
            holds = _holds(word)
            holders = [c for c in found if holds(c.text.lower())]
            if len(holders) > rare:
                continue  # a common word links everything to everything
            for candidate in holders:
                _link(by_place, candidate, hit.score * weight, word, eligible)
    return sorted(by_place.values(), key=lambda r: -r.score)


def _link_words(text: str, *, names: bool) -> tuple[str, ...]:
    """A hit's words to follow: its searched terms, after its names when ``names``.

    With ``names`` a hit's curation marks ("[ephemeral]") and bare numbers (a summary's
    "as of 2025-02-19" gives "02" and "19") are not followed: they link summaries to
    summaries, not turns of one subject.
    """
    if not names:
        return QueryTerms.of(text).searched
    terms = QueryTerms.of(without_marks(text))
    named = [t for t in terms.terms if t in terms.names]
    return tuple(t for t in dict.fromkeys([*named, *terms.searched]) if not t.isdigit())


def _link(
    by_place: dict[tuple[str, str, int], Ranked],
    candidate: Candidate,
    score: float,
    word: str,
    eligible: Eligible,
) -> None:
    place = _place(candidate)
    own = by_place.get(place)
    if not eligible(candidate) or (own is not None and own.score >= score):
        return
    why = (*own.why, f"linked by {word}") if own else (f"linked by {word}",)
    by_place[place] = Ranked(candidate=candidate, score=score, why=why)


def _holds(word: str) -> Callable[[str], bool]:
    """Whether a lower-cased text holds ``word`` (a word starting with it or its stem)."""
    if not word.isascii():
        return lambda lower: word in lower
    pattern = re.compile(rf"\b{re.escape(prefix_stem(word))}")
    return lambda lower: pattern.search(lower) is not None


LINK_POOL = 40
"""Items one hit's link query returns."""
LINK_WORDS = 8
"""Words of one hit looked up for links (its first: key terms first)."""
