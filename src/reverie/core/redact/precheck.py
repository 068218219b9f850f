"""What every rule needs before it can match: its stems and shapes, folded into one pre-check.

Every rule either names substrings one of which any match contains (``Rule.triggers``) or
needs a run of digits or one long whitespace-free word (``min_digits``, ``min_word``).
``Precheck.of(rules)`` folds them into one test: no trigger in the lower-cased text (the
triggers reduced to those no other one contains; the non-ASCII ones tried only on non-ASCII
text) and neither the digits nor the longest word any shape rule needs (a card number 13
digits, a random token 2 digits in a 24-character word), and no rule can match, so
``redact`` returns the text untouched. Its test looks only at the
start and end of each word, so it misses a stem inside one ("mypassword: x"), and it loops over
the words in Python: ``redact`` asks ``prefilter`` instead, which takes its stems and shapes from
here. A rule with no pre-check at all disables both (a test keeps every rule pre-checked). No I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from reverie.core.redact.formats import Rule

_NO_DIGITS = str.maketrans("", "", "0123456789")
_EDGE = "\"'()[]{}<>*`.,;!?¿¡«»“”„#"
_APART = str.maketrans("_-=:/.@", "       ")


def _minimal(stems: Iterable[str]) -> tuple[str, ...]:
    """The stems no other (shorter) stem is a substring of, shortest first."""
    kept: list[str] = []
    for stem in sorted(set(stems), key=len):
        if not any(other in stem for other in kept):
            kept.append(stem)
    return tuple(kept)


def _index(stems: Iterable[str], key: Callable[[str], str]) -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for stem in stems:
        index.setdefault(key(stem), []).append(stem)
    return {head: tuple(found) for head, found in index.items()}


@dataclass(frozen=True, slots=True)
class Precheck:
    """What any rule of a set needs before its regular expression can match.

    Letter stems are looked up by the first and last three letters of each word (a word that
    starts with ``pass`` or ends with ``code``: German compounds end with the keyword); stems
    with punctuation (``://``, ``sk-``) and CJK ones are searched for in the text.
    """

    heads: dict[str, tuple[str, ...]]
    tails: dict[str, tuple[str, ...]]
    marked: tuple[str, ...]
    """ASCII stems with punctuation, searched for only when the text holds one of ``marks``."""
    marks: str
    wide: tuple[str, ...]
    """Stems in CJK scripts, searched for only in non-ASCII text."""
    shapes: tuple[tuple[int, int], ...]
    """(digits, longest word) pairs: a rule without triggers needs both of its pair."""
    always: bool

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> Precheck:
        """Fold the pre-checks of ``rules`` into one."""
        stems: list[str] = []
        shapes: set[tuple[int, int]] = set()
        always = False
        for rule in rules:
            if rule.triggers:
                stems.extend(trigger.lower().split(" ")[0] or trigger for trigger in rule.triggers)
            elif rule.min_digits or rule.min_word:
                shapes.add((rule.min_digits, rule.min_word))
            else:
                always = True
        minimal = _minimal(stems)
        letters = [stem for stem in minimal if stem.isalpha() and max(stem) < "\u3000"]
        marked = [stem for stem in minimal if stem not in letters and stem.isascii()]
        return cls(
            heads=_index(letters, lambda stem: stem[:3]),
            tails=_index((stem for stem in letters if len(stem) >= 3), lambda stem: stem[-3:]),
            marked=tuple(marked),
            marks="".join(sorted({char for stem in marked for char in stem if not char.isalnum()})),
            wide=tuple(stem for stem in minimal if stem not in letters and not stem.isascii()),
            shapes=tuple(sorted(shapes)),
            always=always,
        )

    def may_match(self, text: str) -> bool:
        """False only when no rule of the set can match ``text``."""
        if self.always:
            return True
        lowered = text.lower()
        if self._words_match(lowered) or self._searched(lowered):
            return True
        digits = len(text) - len(text.translate(_NO_DIGITS))
        if not self.shapes or digits < self.shapes[0][0]:
            return False
        longest = max(map(len, text.split()), default=0)
        return any(digits >= need and longest >= word for need, word in self.shapes)

    def _searched(self, lowered: str) -> bool:
        if any(mark in lowered for mark in self.marks) and any(
            stem in lowered for stem in self.marked
        ):
            return True
        return not lowered.isascii() and any(stem in lowered for stem in self.wide)

    def _words_match(self, lowered: str) -> bool:
        heads, tails = self.heads, self.tails
        for piece in set(lowered.translate(_APART).split()):
            word = piece.strip(_EDGE)
            for stem in heads.get(word[:3], ()) + heads.get(word[:2], ()):
                if word.startswith(stem):
                    return True
            for stem in tails.get(word[-3:], ()):
                if word.endswith(stem):
                    return True
        return False
