"""How alike two facts are: normalised token sets and their Jaccard similarity.

A fact's tokens are its Latin-script words (lowercased, a plural ``s`` dropped, stop words
and correction cues such as "actually" left out: ``core.words``) plus the overlapping
character pairs of each CJK run (Chinese has no spaces, so pairs stand in for words). The
speaker prefixes the model-free summariser writes ("User:", "Decided:", ...) and
``(as of ...)`` tags are not part of the meaning and are removed first. ``normalise`` gives
the exact-duplicate key. ``subject_of`` finds the person a fact names first ("Maria grew up
in Cusco" → "Maria"), so two lines about different people are never taken for the same line
however alike their words. No I/O.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache

from reverie.core.text import CJK_RUN
from reverie.core.words import FACT_CJK_STOP, FACT_STOP_WORDS, plural_stem
from reverie.memory.modelfree.facts import without_as_of

_PREFIX = re.compile(
    r"^(?:user(?: instruction| correction| rule)?|assistant(?: agreed)?|decided|decision|noted|"
    r"the user|用户)\s*[:：]\s*",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+(?:'[a-z]+)?|\d+(?:[.:]\d+)*")
_CJK_RUN = CJK_RUN
_CJK_CUES = ("其实", "不是", "而是", "我是说", "更正", "纠正")


def normalise(text: str) -> str:
    """Return the comparison form of a fact: prefix and tag removed, case and spacing folded."""
    text = unicodedata.normalize("NFKC", without_as_of(text)).strip()
    text = _PREFIX.sub("", text)
    return " ".join(text.lower().split()).strip(" .。!！")


@lru_cache(maxsize=8192)
def fact_tokens(text: str) -> frozenset[str]:
    """Return the token set of a fact (words and CJK character pairs)."""
    folded = normalise(text)
    for cue in _CJK_CUES:
        folded = folded.replace(cue, " ")
    tokens: set[str] = set()
    for word in _WORD.findall(_CJK_RUN.sub(" ", folded)):
        if word not in FACT_STOP_WORDS:
            tokens.add(plural_stem(word))
    for run in _CJK_RUN.findall(folded):
        chars = [char for char in run if char not in FACT_CJK_STOP]
        if len(chars) == 1:
            tokens.add(chars[0])
        tokens.update(a + b for a, b in itertools.pairwise(chars))
    return frozenset(tokens)


_SUBJECT = re.compile(r"^(?P<name>[A-Z][a-z]{1,20})(?:'s)?\s+[a-z]")
_NOT_A_NAME = re.compile(r"(?:s|ed|ly|ing)$")


def subject_of(text: str) -> str | None:
    """The name a fact opens with ("Tom's sister ..." → "Tom"), or None ("Lives in ...")."""
    found = _SUBJECT.match(_PREFIX.sub("", without_as_of(text).strip()))
    if found is None or _NOT_A_NAME.search(found["name"]) or found["name"] in _NOT_NAMES:
        return None
    return found["name"]


_NOT_NAMES = frozenset({"The", "A", "An", "Our", "Their", "His", "Her", "Name", "Prefers"})


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    """Return |left ∩ right| / |left ∪ right|, 0.0 when both are empty."""
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def similarity(left: str, right: str) -> float:
    """Return the Jaccard similarity of two facts' token sets."""
    return jaccard(fact_tokens(left), fact_tokens(right))
