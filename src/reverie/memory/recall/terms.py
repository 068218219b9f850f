"""What a recall query looks for: content words, key terms, and Chinese bigrams.

``QueryTerms.of(text)`` drops function words (``core.words``: "what", "did", "the"; 的, 了,
吗) so a question matches the content it asks about, not every message that says "did".
Key terms are the words a question pins its answer on: names (a capitalised word that does
not open the sentence), numbers, and phrases the user quoted; ranking boosts items that hold
them. A question about the present ("now", "currently", 现在) is marked, so ranking can
prefer the newest of facts that were updated. A run of Chinese or Japanese characters is
searched as its overlapping two-character words (most Chinese words are two characters),
minus those made only of function characters, since the index holds every character as its
own token and a whole-run phrase would almost never match a question's wording. This module
does no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reverie.core.text import CJK_RUN
from reverie.core.words import QUERY_CJK_STOP, QUERY_STOP_WORDS

_CJK_RUN = CJK_RUN
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')
_WORD = re.compile("[^\\W_]+(?:['\u2019][^\\W_]+)?")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？]\s*)$")
_NUMBER = re.compile(r"\d")

_PRESENT = re.compile(
    r"\b(?:now|currently|current|nowadays|these days|latest|anymore|still)\b|现在|目前|如今|最近"
)

MAX_TERMS = 24
"""Terms kept from one query, key terms first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryTerms:
    """The searchable terms of one text.

    Attributes:
        terms: words and phrases to search for (key terms first), lower-case.
        keys: the key terms among them (names, numbers, quoted phrases).
        names: the names among the keys.
        present: the text asks about the present ("now", "currently", 现在).
    """

    terms: tuple[str, ...]
    keys: frozenset[str]
    names: frozenset[str] = frozenset()
    present: bool = False

    @classmethod
    def of(cls, text: str) -> QueryTerms:
        """Return the terms of ``text`` (empty when it holds none worth searching)."""
        keys: list[str] = [
            next(group for group in found.groups() if group).lower()
            for found in _QUOTED.finditer(text)
        ]
        plain: list[str] = []
        names: list[str] = []
        for found in _WORD.finditer(_CJK_RUN.sub(" ", text)):
            word = found.group().replace("\u2019", "'")
            lower = word.lower().split("'")[0]
            if lower in QUERY_STOP_WORDS or (len(lower) < 2 and not lower.isdigit()):
                continue
            if _NUMBER.search(word):
                keys.append(lower)
            elif _is_name(text, found.start(), word):
                keys.append(lower)
                names.append(lower)
            else:
                plain.append(lower)
        plain.extend(cjk_bigrams(text))
        ordered = list(dict.fromkeys([*keys, *plain]))[:MAX_TERMS]
        kept = frozenset(ordered)
        return cls(
            terms=tuple(ordered),
            keys=frozenset(keys) & kept,
            names=frozenset(names) & kept,
            present=_PRESENT.search(text.lower()) is not None,
        )

    @property
    def searched(self) -> tuple[str, ...]:
        """The terms to look up in the index: names left out when other terms remain.

        In a conversation the people's names are everywhere ("Morning Felix!"), so a question
        naming who it is about would fill the pool with greetings; the name still counts in
        ranking as a key term only when ``RecallOptions.name_keys`` says so.
        """
        topical = tuple(term for term in self.terms if term not in self.names)
        return topical or self.terms


def cjk_bigrams(text: str) -> list[str]:
    """Return the overlapping two-character words of every CJK run (a lone character alone)."""
    found: list[str] = []
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            found.extend([run] if run not in QUERY_CJK_STOP else [])
            continue
        for start in range(len(run) - 1):
            pair = run[start : start + 2]
            if not set(pair) <= QUERY_CJK_STOP:
                found.append(pair)
    return found


def _is_name(text: str, start: int, word: str) -> bool:
    """A capitalised word that does not open a sentence (or an all-capitals word) is a name."""
    if not word[:1].isupper():
        return False
    if word.isupper() and len(word) > 1:
        return True
    return _SENTENCE_START.search(text[:start]) is None
