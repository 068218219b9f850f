"""Reciprocal rank fusion of recall's lexical ranking with dense (by meaning) candidates.

Each item scores ``sum(weight / (k + rank))`` over the lists it appears in (rank from 1), the
usual k = 60: no score scales need matching, and an item both lists rank well beats one that
only one list ranks first. Items only the dense list holds join with ``why = ("dense",)``;
one whose text is the same as a kept item's (ignoring case and spaces) is left out, since the
lexical list was already freed of near-duplicates. This module does no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import islice
from typing import Protocol

from reverie.recall.ranking import Ranked
from reverie.search import Candidate

RRF_K = 60.0


class DenseSource(Protocol):
    """Items nearest to a query in meaning (``reverie.dense.DenseRetriever``)."""

    weight: float
    """Weight of the dense list against 1 for the lexical one."""

    def nearest(self, query: str, *, limit: int, session_key: str | None) -> list[Candidate]:
        """Up to ``limit`` items of the scope, best first."""
        ...


def fuse(
    lexical: Iterable[Ranked],
    dense: Sequence[Candidate],
    *,
    depth: int,
    dense_weight: float = 1.0,
) -> list[Ranked]:
    """Return the first ``depth`` lexical items and the dense ones, fused, best first."""
    scores: dict[tuple[object, ...], float] = {}
    entries: dict[tuple[object, ...], Ranked] = {}
    texts: set[str] = set()
    for place, entry in enumerate(islice(lexical, depth), start=1):
        key = _key(entry.candidate)
        scores[key] = 1.0 / (RRF_K + place)
        entries[key] = entry
        texts.add(_plain(entry.candidate.text))
    for place, candidate in enumerate(dense, start=1):
        key = _key(candidate)
        if key not in entries:
            if _plain(candidate.text) in texts:
                continue
            texts.add(_plain(candidate.text))
            entries[key] = Ranked(candidate=candidate, score=0.0, why=())
        scores[key] = scores.get(key, 0.0) + dense_weight / (RRF_K + place)
        entries[key] = replace(entries[key], why=(*entries[key].why, "dense"))
    order = sorted(scores, key=lambda key: -scores[key])
    return [replace(entries[key], score=scores[key]) for key in order]


def _key(candidate: Candidate) -> tuple[object, ...]:
    if candidate.kind == "history":
        return ("history", candidate.cursor)
    return ("message", candidate.session_key, candidate.message_index)


def _plain(text: str) -> str:
    return " ".join(text.lower().split())
