"""The fast path of redaction: a few C-level scans that clear text no rule can change.

Every rule names substrings one of which any match contains (``Rule.triggers``) or needs a
run of digits and one long whitespace-free word (``min_digits``, ``min_word``); a rule runs
only when ``Rule.may_match`` says so. ``Prefilter.of(Precheck.of(rules))`` folds those gates
into one test that costs a few microseconds on a history entry: ``redact`` runs no rule at all
on text it clears.

Invariant (conservative): ``Prefilter.may_match(text)`` is False only when no rule's
``may_match`` is True for ``text`` (hence for any of its lines), so the rules could not change
it. Each gate has a looser twin here, on the text lower-cased as the rules see it:

- a trigger: its first word (the pre-check's stem, ``Precheck``) is in the text. A stem of
  letters lies inside one run of letters, so on ASCII text the runs of letters
  (``bytes.translate`` and ``split``) are searched for the letter stems, one compiled pattern
  over the runs not seen before (runs found clean are remembered: prose repeats its words, so
  most appends search no run at all: one ``set.issuperset``); stems with punctuation are
  searched for in the text when it holds their punctuation (one ``bytes.translate`` tells).
  Text that is not ASCII is searched for every stem;
- a shape: the text has at least the digits and the longest word some shape rule needs
  (white space as ``str.split`` sees it).

Unlike ``Precheck.may_match``, which looks only at the start and the end of each word, no
stem is missed inside a word ("mypassword: x"). ``tests/test_redaction_prefilter.py`` checks
the invariant against the generated corpus (``tests/redaction_corpus.py``) and arbitrary
text. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reverie.core.redact.precheck import Precheck

_LETTERS_ONLY = bytes(code if 97 <= code <= 122 else 32 for code in range(256))
"""Every byte but ``a``-``z`` becomes a space (applied after lower-casing)."""
_WORD_BYTES = bytes(10 if chr(code).isspace() else 120 for code in range(256))
"""White space (as ``str.split`` sees it in ASCII text) becomes a newline, the rest ``x``: a
word of ``n`` characters or more is then ``n`` times ``x`` in a row."""
_DIGITS = b"0123456789"
_NO_DIGITS = str.maketrans("", "", "0123456789")
_CLEAN_RUNS_KEPT = 50_000
"""How many runs of letters known to hold no stem are remembered (then forgotten at once)."""


@dataclass(frozen=True, slots=True, eq=False)
class Prefilter:
    """Whether any rule of a set may match a text, answered by a few C-level scans."""

    letters: re.Pattern[bytes] | None
    """The ASCII letter stems, any of them."""
    marks: bytes
    """The punctuation of the marked stems (``bytes.translate`` deletes them: one C pass)."""
    marked: tuple[bytes, ...]
    """The ASCII stems with punctuation; each holds one of ``marks``."""
    stems: tuple[str, ...]
    """Every stem, for text that is not ASCII."""
    shapes: tuple[tuple[int, int], ...]
    always: bool
    runs: tuple[tuple[int, bytes], ...] = ()
    """``shapes`` as (digits needed, ``x`` times the word length): what ``_shaped`` looks for."""
    clean: set[bytes] = field(default_factory=set)
    """Runs of letters already found to hold no stem (a cache of facts, never of guesses)."""

    @classmethod
    def of(cls, precheck: Precheck) -> Prefilter:
        """The prefilter of the rules ``precheck`` was folded from (built once, with them)."""
        letters = {stem for found in precheck.heads.values() for stem in found}
        ascii_letters = sorted((s.encode() for s in letters if s.isascii()), key=lambda s: -len(s))
        marks = precheck.marks.encode()
        return cls(
            letters=re.compile(b"|".join(map(re.escape, ascii_letters))) if ascii_letters else None,
            marks=marks,
            marked=tuple(stem.encode() for stem in precheck.marked),
            stems=tuple(sorted(letters)) + precheck.marked + precheck.wide,
            shapes=precheck.shapes,
            always=precheck.always,
            runs=tuple((need, b"x" * word) for need, word in precheck.shapes),
        )

    def may_match(self, text: str) -> bool:
        """False only when no rule can match ``text`` (see the module's invariant)."""
        if self.always:
            return True
        if not text.isascii():
            lowered = text.lower()
            if any(stem in lowered for stem in self.stems):
                return True
            return self._shaped_text(text)
        raw = text.encode("ascii").lower()
        if self._lettered(raw):
            return True
        marked = bool(self.marks) and len(raw.translate(None, self.marks)) < len(raw)
        if marked and any(stem in raw for stem in self.marked):
            return True
        return self._shaped(raw)

    def _lettered(self, raw: bytes) -> bool:
        """True when a run of letters not known to be clean holds a letter stem."""
        runs = raw.translate(_LETTERS_ONLY).split()
        if self.letters is None or self.clean.issuperset(runs):  # the usual case: no new set
            return False
        fresh = set(runs) - self.clean
        if self.letters.search(b" ".join(fresh)):
            return True
        if len(self.clean) + len(fresh) > _CLEAN_RUNS_KEPT:
            self.clean.clear()
        self.clean.update(fresh)
        return False

    def _shaped(self, raw: bytes) -> bool:
        if not self.shapes:
            return False
        digits = len(raw) - len(raw.translate(None, _DIGITS))
        if digits < self.shapes[0][0]:
            return False
        words = raw.translate(_WORD_BYTES)
        return any(digits >= need and run in words for need, run in self.runs)

    def _shaped_text(self, text: str) -> bool:
        digits = len(text) - len(text.translate(_NO_DIGITS))
        longest = max(map(len, text.split()), default=0)
        return any(digits >= need and longest >= word for need, word in self.shapes)
