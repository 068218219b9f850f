"""Splitting message text into the sentences the extraction rules look at.

Fenced code blocks, quoted lines (``> ...``) and bare URLs are not conversation and are left
out. Sentences end at ``. ! ?`` followed by a space, at Chinese ``。！？；`` and at line
breaks, and a clause joined by "and I" (or "，我") is a sentence of its own; list bullets and
leading interjections ("Great, ...", "Yes: ...", "好，...") are stripped. Fragments too short
to state a fact (under three words, or under four characters of CJK text) are dropped. No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；!?])|\n+")
# Clauses joined to a new "I ..." are separate facts, so a later correction of one of them
# does not take the other with it.
_CLAUSE = re.compile(r",?\s+and\s+(?=I\s)|[，,]\s*(?=我(?!们))")
# Interjections before the point of a sentence ("Great, let's...", "Yes: don't...", "好，...").
_LEAD = re.compile(
    r"^(?:(?:great|ok|okay|yes|yeah|sure|right|quick update|update|by the way|btw|so|also|and|"
    r"well|hi|hello|hey|thanks|fair point|好|好的|嗯|对|那)\s*[,:!，：！]?\s+"
    r"|(?:好|好的|嗯|对)[，,]\s*)+",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_URL_ONLY = re.compile(r"^\W*(?:https?://|www\.)\S+\W*$", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORDS = re.compile(r"[^\W_]+")


def sentences(text: str) -> Iterator[str]:
    """Yield the sentences of a message text worth checking for facts, in order."""
    text = _FENCE.sub("\n", text)
    for line in text.splitlines():
        if line.lstrip().startswith(">"):
            continue
        for piece in _BOUNDARY.split(_BULLET.sub("", line)):
            for clause in _CLAUSE.split(piece):
                sentence = _capitalised(_LEAD.sub("", clause.strip()))
                if sentence and not _URL_ONLY.match(sentence) and _long_enough(sentence):
                    yield sentence


def _long_enough(sentence: str) -> bool:
    if len(_CJK.findall(sentence)) >= 4:
        return True
    return len(_WORDS.findall(sentence)) >= 3


def _capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:] if sentence[:1].isascii() else sentence
