"""Splitting message text into the sentences the extraction rules look at.

Fenced code blocks, quoted lines (``> ...``) and bare URLs are not conversation and are left
out. Sentences end at ``. ! ?`` followed by a space (not after "Dr." and the like), at Chinese
``。！？；`` and at line breaks. A clause that starts a new "I ..." after a comma or "and",
"so", "but", "because" (or "，我") is a sentence of its own, and so is a second verb of an
"I ..." sentence ("I moved and commute by train" → "I moved", "I commute by train"). List
bullets and leading interjections ("Great, ...", "Big news: ...", "Oh and ...", "好，...",
"另外...") are stripped, and a leading time phrase moves to the end ("Next month I start ..."
→ "I start ... next month"). Fragments too short to state a fact (under three words, or under
four characters of CJK text) are dropped. No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reverie.core.text import CJK, CJK_CHAR

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
# Chat leaves out full stops, so more ends a sentence: an emoji before a space ("You got this
# 💪 I moved ..."), a space after a Chinese character before more Chinese or an English
# sentence ("坚持下去 我搬到了…"; not "主要用 React"), a capitalised "My" run on after a
# lowercase word, and "I" run on after praise or a request ("that's amazing I got…",
# "deploy on Thursday please I moved…").
_PRAISE = "|".join(
    rf"(?<=\b{word})"
    for word in "best amazing great awesome stunning cool nice lovely cute fun please pls".split()  # noqa: SIM905
)
_BOUNDARY = re.compile(
    r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；!?])|\n+"
    r"|(?<=[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f])\s+(?=\S)|(?<=[a-z])\s+(?=My\s)"
    rf"|(?<=[{CJK}])\s+(?=[{CJK}]|(?:I|My|I'm)\b|[A-Z][a-z]+ [a-z])"
    rf"|(?:{_PRAISE})\s+(?=I(?:'m|'ve| am| have| just| got)?\s)"
)
# Clauses joined to a new "I ..." are separate facts, so a later correction of one of them
# does not take the other with it.
# "I moved last month and commute by train": the second verb's clause gets its "I" back.
_VERBS = (
    r"(?:live|work|commute|prefer|like|love|enjoy|hate|use|speak|study|teach|own|have|play|"
    r"run|drive|cycle|walk|cook|eat|drink|read|travel|volunteer|go|take|ride)"
)
_CLAUSE = re.compile(
    r",?\s+(?:and|so|but|because|since)\s+(?=I(?:\s|'))|,\s+(?=I(?:\s|'[a-z]))|[，,]\s*(?=我(?!们))"
)
_VERB_CLAUSE = re.compile(rf",?\s+and\s+(?=(?:now\s+)?{_VERBS}\b)")
# Interjections before the point of a sentence ("Great, let's...", "Yes: don't...", "好，...").
_LEAD = re.compile(
    r"^(?:(?:great|ok|okay|yes|yeah|sure|right|quick update|update|by the way|btw|so|also|and|"
    r"well|hi|hello|hey|thanks|fair point|oh|ah|wow|omg|haha|lol|aww|yay|big news|guess what|"
    r"fun fact|anyway|plus|好|好的|嗯|对|那)\s*[,:!，：！]?\s+"
    r"|(?:好|好的|嗯|对|另外|还有|对了|顺便说一下|跟你说个事)[，,：:]?\s*)+",
    re.IGNORECASE,
)
# A leading time phrase moves to the end, so the sentence starts with its subject:
# "Next month I'm starting a course" reads as "I'm starting a course next month".
_TIME_LEAD = re.compile(
    r"^(?P<time>(?:next|last|this) (?:week|weekend|month|year|summer|winter|spring|autumn|fall)"
    r"|in (?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|\d{4})|yesterday|tomorrow|today),?\s+(?P<rest>I\b.*?)(?P<end>[.!]?)$",
    re.IGNORECASE,
)
_ABBREVIATION = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|Mt|vs|etc|approx|e\.g|i\.e)\.$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_URL_ONLY = re.compile(r"^\W*(?:https?://|www\.)\S+\W*$", re.IGNORECASE)
_CJK = CJK_CHAR
_WORDS = re.compile(r"[^\W_]+")


def sentences(text: str) -> Iterator[str]:
    """Yield the sentences of a message text worth checking for facts, in order."""
    text = _FENCE.sub("\n", text)
    for line in text.splitlines():
        if line.lstrip().startswith(">"):
            continue
        for piece in _pieces(_BULLET.sub("", line)):
            for clause in _clauses(piece):
                sentence = _capitalised(_time_last(_LEAD.sub("", clause.strip())))
                if sentence and not _URL_ONLY.match(sentence) and _long_enough(sentence):
                    yield sentence


def _pieces(line: str) -> list[str]:
    """Split a line at sentence ends, but not after "Dr." and the like."""
    pieces: list[str] = []
    for piece in _BOUNDARY.split(line):
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


def _time_last(sentence: str) -> str:
    found = _TIME_LEAD.match(sentence)
    if found is None:
        return sentence
    return f"{found['rest']} {found['time'].lower()}{found['end']}"


def _clauses(piece: str) -> list[str]:
    found: list[str] = []
    for clause in _CLAUSE.split(piece):
        first, *more = _VERB_CLAUSE.split(clause)
        found.append(first)
        if first.lstrip().startswith("I "):
            found.extend("I " + verb.strip() for verb in more)
        elif more:
            found[-1] = clause
    return found


def _long_enough(sentence: str) -> bool:
    if len(_CJK.findall(sentence)) >= 4:
        return True
    return len(_WORDS.findall(sentence)) >= 3


def _capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:] if sentence[:1].isascii() else sentence
