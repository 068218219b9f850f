"""Text similarity for attribution: which entries and messages support a durable line.

Deliberately small and deterministic: content words (case folded, a crude suffix strip so
"lives" meets "live", stop words dropped, digits kept) and single CJK characters, compared as
sets. ``support`` asks how much of a line's content an entry covers (the line is short, the
entry long); ``likeness`` is symmetric, for pairing an edited line with the line it replaced.
``pick`` keeps the candidates whose support is close to the best one, so a line cites the
entries that say it, not every entry that shares a word. This module does no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from reverie.core.text import CJK_CHAR
from reverie.core.words import ATTRIBUTION_STOP_WORDS, suffix_stem

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = CJK_CHAR
MIN_SUPPORT = 0.2
"""Below this, no candidate supports the line (the caller falls back)."""
NEAR_BEST = 0.6
"""Candidates scoring at least this share of the best one are kept too."""


def content_tokens(text: str) -> frozenset[str]:
    """The content words and CJK characters of ``text``."""
    tokens = set(_CJK.findall(text))
    for word in _WORD.findall(_CJK.sub(" ", text.casefold())):
        if word in ATTRIBUTION_STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        tokens.add(suffix_stem(word))
    return frozenset(tokens)


def support(line: frozenset[str], candidate: frozenset[str]) -> float:
    """The share of the line's tokens the candidate holds (0 when the line has none)."""
    if not line:
        return 0.0
    return len(line & candidate) / len(line)


def likeness(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two token sets (0 when both are empty)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def pick(line: str, candidates: Sequence[str]) -> list[int]:
    """Indices of the candidates that support ``line`` best; [] when none reaches MIN_SUPPORT."""
    return pick_tokens(content_tokens(line), [content_tokens(text) for text in candidates])


def pick_tokens(line: frozenset[str], candidates: Sequence[frozenset[str]]) -> list[int]:
    """``pick`` on token sets already computed (the caller tokenises each candidate once).

    Each of the line's tokens weighs by how rare it is among the candidates (inverse document
    frequency), so a name or a number that one candidate shares outweighs template words
    ("keeps", "likes") that every candidate shares.
    """
    if not line or not candidates:
        return []
    frequency = {token: sum(token in c for c in candidates) for token in line}
    weight = {t: math.log(1 + len(candidates) / (1 + n)) for t, n in frequency.items()}
    total = sum(weight.values())
    scores = [sum(weight[t] for t in line & tokens) / total for tokens in candidates]
    best = max(scores)
    if best < MIN_SUPPORT:
        return []
    return [i for i, score in enumerate(scores) if score >= best * NEAR_BEST and score > 0]
