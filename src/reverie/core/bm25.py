"""BM25 as SQLite FTS5's ``bm25()`` computes it: the one lexical ranking of both backends.

The folder index ranks in SQL with FTS5's built-in ``bm25()``; PostgreSQL has no BM25, so its
index fetches the statistics and the matching items' positions and ranks them here, by the
same formula (``fts5_aux.c``; checked against a real FTS5 table by a test):

    score(D) = sum over the query's phrases p of
               idf(p) * f(p, D) * (K1 + 1) / (f(p, D) + K1 * (1 - B + B * |D| / avgdl))
    idf(p)   = ln((N - n(p) + 0.5) / (n(p) + 0.5)), and 1e-6 where that is not positive

where ``N`` is the number of items, ``n(p)`` how many hold the phrase, ``f(p, D)`` how many
times ``D`` holds it, ``|D|`` its length in tokens and ``avgdl`` the mean length. Note the
floor: a phrase held by half the items or more weighs almost nothing (FTS5 does not use the
``+ 1`` inside the logarithm that Lucene adds). Higher is better here (FTS5 returns the
negation). This module does no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

K1 = 1.2
"""Term-frequency saturation (FTS5's constant)."""

B = 0.75
"""Length normalisation (FTS5's constant)."""

_MIN_IDF = 1e-6
"""FTS5's floor for a phrase held by half the items or more."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Corpus:
    """What BM25 needs to know of the whole collection for one query."""

    items: int
    """``N``: how many items there are."""
    average_length: float
    """``avgdl``: their mean length in tokens."""
    holding: tuple[int, ...]
    """``n(p)`` for each phrase of the query, in the query's order."""


def idf(items: int, holding: int) -> float:
    """The inverse document frequency of a phrase ``holding`` of ``items`` items hold."""
    value = math.log((items - holding + 0.5) / (holding + 0.5)) if items > 0 else 0.0
    return value if value > 0 else _MIN_IDF


def score(frequencies: Sequence[int], length: int, corpus: Corpus) -> float:
    """The BM25 score of an item of ``length`` tokens holding each phrase ``frequencies`` times.

    ``frequencies`` follows the order of ``corpus.holding``; an item holding none scores 0.
    """
    return Scorer.of(corpus)(frequencies, length)


@dataclass(frozen=True, slots=True)
class Scorer:
    """``score`` for one query's ``Corpus``, its idf computed once (for many items)."""

    weights: tuple[float, ...]
    average_length: float

    @classmethod
    def of(cls, corpus: Corpus) -> Scorer:
        """The scorer of ``corpus``."""
        average = corpus.average_length if corpus.average_length > 0 else 1.0
        return cls(tuple(idf(corpus.items, n) for n in corpus.holding), average)

    def __call__(self, frequencies: Sequence[int], length: int) -> float:
        """The score of an item of ``length`` tokens holding each phrase ``frequencies`` times."""
        norm = K1 * (1 - B + B * length / self.average_length)
        total = 0.0
        for frequency, weight in zip(frequencies, self.weights, strict=True):
            if frequency > 0:
                total += weight * frequency * (K1 + 1) / (frequency + norm)
        return total


def phrase_frequency(positions: Mapping[str, Sequence[int]], tokens: Sequence[str]) -> int:
    """How many times an item holds the phrase ``tokens``: its tokens side by side, in order.

    ``positions`` maps each token the item holds (of those asked about) to its positions.
    """
    if not tokens:
        return 0
    first = positions.get(tokens[0], ())
    if len(tokens) == 1:
        return len(first)
    rest = [set(positions.get(token, ())) for token in tokens[1:]]
    return sum(
        all(start + offset in later for offset, later in enumerate(rest, 1)) for start in first
    )
