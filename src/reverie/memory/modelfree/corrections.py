"""Corrections: what a correcting sentence says now, and what it says was wrong.

``strip_correction`` takes the cues off a correction ("Actually, ...", "No, I meant ...",
"X now, not Y", "not Y but X", "其实...", "不是Y而是X") and returns the sentence as a plain
statement plus the value it replaces, when the sentence names one. ``corrected_value`` finds,
in the corrected fact, the value that takes the old one's place: the last one of the same
shape (a number for a number, a capitalised name for a name, as many CJK characters for CJK),
so the curator can put it into the bullet that held the old value. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from reverie.core.text import CJK, CJK_CHAR
from reverie.memory.modelfree.facts import without_tags

_CORRECTION_CUE = re.compile(
    r"^(?:(?:actually|in fact|correction|to correct (?:that|myself)|let me correct (?:that|myself)|"
    r"sorry|oops|wait|no|nope|scratch that)\b[\s,.:;!—-]*)?"
    r"(?:(?:i meant|what i meant (?:was|is)|i misspoke|i was wrong)\b[\s,:;—-]*(?:that\s+)?)?",
    re.IGNORECASE,
)
# The old value: up to 40 characters, no sentence punctuation except a decimal point ("0.12").
_OLD = r"(?P<old>(?:[^,.;!?]|(?<=\d)[.,](?=\d)){1,40}?)"
_NOT_TAIL = re.compile(r"[,;]?\s+(?:now,?\s+)?(?:and\s+)?not\s+" + _OLD + r"\s*[.!。]?$")
_NOT_BUT = re.compile(r"\bnot\s+" + _OLD + r",?\s+but\s+(?P<new>\S)", re.IGNORECASE)
_CJK_NOT = re.compile(r"不是(?P<old>.{1,30}?)[，,]?而是")
_CJK_CUE = re.compile(r"^(?:其实|我是说|更正一下|更正|纠正一下|说错了|搞错了|记错了)[，,：:]?")
_NOW = re.compile(r"\s+now\b(?=[\s,.;!]|$)")


def strip_correction(sentence: str) -> tuple[str, str | None]:
    """Return the sentence without correction cues, and the value it corrects, when said."""
    text = _CJK_CUE.sub("", _CORRECTION_CUE.sub("", sentence.strip())).strip()
    old: str | None = None
    if (found := _NOT_BUT.search(text)) is not None:
        old = found["old"].strip()
        text = text[: found.start()] + text[found.start("new") :]
    elif (found := _NOT_TAIL.search(text)) is not None:
        old, text = found["old"].strip(), text[: found.start()]
    elif (found := _CJK_NOT.search(text)) is not None:
        old = found["old"].strip()
        text = text[: found.start()] + text[found.end() :]
    text = _NOW.sub("", text).strip(" ,")
    return (text[:1].upper() + text[1:] if text else sentence), old


def corrected_value(text: str, before: str) -> str | None:
    """Return the value in ``text`` that replaces ``before``: the last one of the same shape.

    "Postgres 16" corrects "15" with "16"; "Lives in Porto" corrects "Lisbon" with "Porto";
    the shape is a number, a capitalised word, or (for CJK) the last CJK run.
    """
    text = without_tags(text)
    if re.fullmatch(r"[\d.,]+", before):
        numbers = re.findall(r"\d+(?:[.,]\d+)*", text)
        return numbers[-1] if numbers else None
    if re.fullmatch(r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)*", before):
        names = re.findall(r"(?<!^)\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)*", text)
        return names[-1] if names else None
    if CJK_CHAR.search(before):
        runs = re.findall(rf"[{CJK}\d]+", text)
        return runs[-1][-len(before) :] if runs else None
    return None
