"""Fusing recall's lexical ranking with other rankers' lists by reciprocal rank (RRF).

A ranker other than BM25 (the optional dense-embeddings extra, for one) implements
``RankedSource``: given the query, it returns its own best candidates, best first. Recall
fuses every list with its own ranking,

    score(item) = sum over lists of weight / (k + rank in that list),   rank from 1,

so an item high in either list rises, and an item in both rises most; scores of different
rankers are never compared, only ranks. An item only another list found joins the pool (it
is checked against the same isolation and carried-text rules as the lexical ones by the
caller). ``k`` (60, the usual choice) damps the head of each list. This module does no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from reverie.core.hits import Candidate
from reverie.memory.recall.ranking import Ranked

RRF_K = 60
"""The reciprocal-rank constant: larger values flatten the difference between top ranks."""


class RankedSource(Protocol):
    """A ranker recall can fuse with its own: its best candidates for a query, best first."""

    name: str
    """What the items it found say in ``why`` (e.g. ``dense``)."""

    weight: float
    """This list's weight in the fusion, against 1 for recall's own ranking."""

    def ranked(self, query: str, *, limit: int, scope: str | None) -> list[Candidate]:
        """Return at most ``limit`` candidates for ``query`` (``scope``: one session's only)."""
        ...


def identity(candidate: Candidate) -> tuple[str, int | None, str | None, int | None]:
    """What makes two candidates the same item, whichever ranker found them."""
    return (candidate.kind, candidate.cursor, candidate.session_key, candidate.message_index)


def fuse(
    lexical: Sequence[Ranked],
    others: Sequence[Sequence[Candidate]],
    *,
    k: int = RRF_K,
    weights: Sequence[float] = (),
    names: Sequence[str] = (),
) -> list[Ranked]:
    """Return the items of ``lexical`` and ``others`` ranked by reciprocal rank, best first.

    Args:
        lexical: recall's own ranking (its reasons are kept).
        others: each other ranker's list, best first.
        k: the RRF constant.
        weights: one per list, ``lexical`` first (default 1 each).
        names: one per other list: added to the ``why`` of each item it holds (without
            names, an item only another list found says ``fused``).
    """
    lists: list[Sequence[Candidate]] = [[r.candidate for r in lexical], *others]
    reasons = {identity(r.candidate): r.why for r in lexical}
    scores: dict[tuple[str, int | None, str | None, int | None], float] = {}
    found: dict[tuple[str, int | None, str | None, int | None], Candidate] = {}
    named: dict[tuple[str, int | None, str | None, int | None], tuple[str, ...]] = {}
    for number, ranked in enumerate(lists):
        weight = weights[number] if number < len(weights) else 1.0
        name = names[number - 1] if 0 < number <= len(names) else None
        for position, candidate in enumerate(ranked, start=1):
            key = identity(candidate)
            found.setdefault(key, candidate)
            scores[key] = scores.get(key, 0.0) + weight / (k + position)
            if name is not None:
                named[key] = (*named.get(key, ()), name)
    order = sorted(scores, key=lambda key: -scores[key])
    return [
        Ranked(
            candidate=found[key],
            score=scores[key],
            why=(*reasons.get(key, ()), *named.get(key, ())) or ("fused",),
        )
        for key in order
    ]
