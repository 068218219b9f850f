"""A question's rare names, searched on their own so common words do not drown them.

"What did Odile give Leo?" pins its answer on Odile, a neighbour named once in months of
chat; but names are left out of the index query (``QueryTerms.searched``: in a conversation
the two people's names are in every greeting), so the pool held whatever said "give". A
name few items hold is different: it is the subject, not a greeting. So the question's
names that at most ``RecallOptions.entity_rare`` items of the whole index hold (the index's
capped count, ``IndexPort.rare_terms``) are looked up alone, their holders join the pool
scaled to the pool's best score, and ranking counts them as key terms (``Signals.entities``).
A name held by more items (the people talking, a city everyone names) changes nothing. This
module does no I/O of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from reverie.core.hits import Candidate

if TYPE_CHECKING:
    from reverie.storage.ports import IndexPort

ENTITY_POOL = 12
"""Items one rare-name lookup returns (a rare name is held by few)."""


def rare_names(names: Iterable[str], index: IndexPort, *, at_most: int) -> tuple[str, ...]:
    """The ``names`` at most ``at_most`` items of the index hold, in order (0: none)."""
    wanted = sorted(set(names))
    if at_most <= 0 or not wanted:
        return ()
    return tuple(index.rare_terms(wanted, at_most=at_most))


def with_entities(
    pool: list[Candidate], names: Sequence[str], index: IndexPort, scope: str | None
) -> list[Candidate]:
    """``pool`` with the items holding one of ``names`` (one lookup), best-scaled, no twice."""
    if not names:
        return pool
    found = index.candidates(names, limit=ENTITY_POOL, session_key=scope, context_weight=0)
    if not found:
        return pool
    best = max((c.score for c in pool), default=0.0) or 1.0
    top = max(c.score for c in found) or 1.0
    by_place = {_place(c): c for c in pool}
    for candidate in found:
        scaled = replace(candidate, score=best * candidate.score / top)
        own = by_place.get(_place(candidate))
        if own is None or own.score < scaled.score:
            by_place[_place(candidate)] = scaled
    return list(by_place.values())


def _place(candidate: Candidate) -> tuple[str, str, int]:
    if candidate.kind == "message":
        return ("message", candidate.session_key or "", candidate.message_index or 0)
    return ("history", "", candidate.cursor or 0)
