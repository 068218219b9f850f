"""The model-free curator: history entries to edits of the durable files, without a model.

``ModelFreeCurator.curate`` is pure: it takes the current texts of SOUL.md, USER.md and
memory/MEMORY.md and a batch of history entries, and returns the new texts plus an account of
every change. The caller runs it under dream's contract (staging, a commit built from the real
diff, the dream cursor advanced only once the result is published, tagged model-free).

For each fact of each entry (``- [mark] fact`` lines; plain lines are durable facts; an entry
that is a raw transcript is first put through the model-free summariser), dated by its entry:

- ``intake.admit`` decides whether it may be written at all (no ``[skip]``, credential,
  chatter, unresolved pronoun, assistant's own words or expired ephemeral fact), which file it
  goes to, and its bullet text; an ephemeral fact keeps an ``(as of YYYY-MM-DD)`` tag;
- a fact that fills a single-valued slot (``slots``: where someone lives, how they commute,
  ...) that a bullet of its file already fills with another value **supersedes** it: the
  bullet is replaced by the new fact ending ``(since YYYY-MM-DD; before: old value)``, unless
  the bullet is itself newer (its ``since`` date is later), and then the older fact is skipped;
- a ``[correction]`` replaces the most similar bullet of any file (token-set similarity at
  least ``correction_similarity``) the same way, or is added when nothing is similar enough;
- any other fact that is a near-duplicate (``merge_similarity``) of a bullet of its file is
  merged (never a bullet about another named person: ``similarity.subject_of``): nothing
  changes when the bullet already says it all, else the newer wording replaces the bullet;
  otherwise the fact is appended;
- ephemeral bullets older than ``ephemeral_days`` are dropped on every run; a fact that would
  not fit under ``file_chars`` is skipped.

Invariants: only top-level bullets are ever changed (``FactFile``); text a person wrote
elsewhere is kept as it is; a file with no change comes back exactly as it was given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, timedelta

from reverie.core.durable import MEMORY_FILE_NAMES, MemoryFileName
from reverie.core.entries import HistoryEntry
from reverie.memory.modelfree.changes import (
    CurationResult,
    CuratorChange,
    CuratorSettings,
    SkippedFact,
)
from reverie.memory.modelfree.corrections import corrected_value
from reverie.memory.modelfree.fact_file import Bullet, FactFile
from reverie.memory.modelfree.facts import (
    Fact,
    as_of_date,
    parse_facts,
    since_tag,
    with_since,
    without_tags,
)
from reverie.memory.modelfree.intake import Candidate, admit
from reverie.memory.modelfree.similarity import fact_tokens, jaccard, normalise, subject_of
from reverie.memory.modelfree.slots import slot_of
from reverie.memory.modelfree.summariser import extract_from
from reverie.memory.modelfree.transcript import parse_transcript

# The settings and result types live in ``changes``; callers may import them from here too.
__all__ = [
    "CurationResult",
    "CuratorChange",
    "CuratorSettings",
    "ModelFreeCurator",
    "SkippedFact",
    "entry_facts",
]

_TRANSCRIPT_LINE = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] (?:USER|ASSISTANT):", re.M)


class ModelFreeCurator:
    """Curates the durable files from history entries without a model (see module docstring)."""

    def __init__(self, settings: CuratorSettings | None = None) -> None:
        self.settings = settings or CuratorSettings()

    def curate(
        self,
        files: Mapping[MemoryFileName, str],
        entries: Sequence[HistoryEntry],
        *,
        today: date,
    ) -> CurationResult:
        """Return the durable files with the facts of ``entries`` applied.

        Args:
            files: the current text of each durable file (a missing name counts as empty).
            entries: the history entries to consume, oldest first.
            today: the date ephemeral facts expire against.
        """
        run = _Run(self.settings, {n: FactFile(n, files.get(n, "")) for n in MEMORY_FILE_NAMES})
        for name in MEMORY_FILE_NAMES:
            run.expire(name, today)
        for entry in entries:
            for fact in entry_facts(entry):
                run.apply(fact, entry=entry, today=today)
        texts = {n: run.docs[n].text() if run.docs[n].dirty else files.get(n, "") for n in run.docs}
        changed = tuple(n for n in MEMORY_FILE_NAMES if texts[n] != files.get(n, ""))
        return CurationResult(
            new_texts=texts,
            applied=tuple(run.applied),
            skipped=tuple(run.skipped),
            changed=changed,
        )


def entry_facts(entry: HistoryEntry, *, max_chars: int = 240) -> Iterator[Fact]:
    """Yield the facts of one history entry (a raw transcript goes through the summariser)."""
    if entry.kind == "raw" or _TRANSCRIPT_LINE.search(entry.content):
        yield from extract_from(parse_transcript(entry.content), max_fact_chars=max_chars)
        return
    yield from parse_facts(entry.content)


class _Run:
    """The mutable state of one ``curate`` call."""

    def __init__(self, settings: CuratorSettings, docs: dict[MemoryFileName, FactFile]) -> None:
        self.settings = settings
        self.docs = docs
        self.applied: list[CuratorChange] = []
        self.skipped: list[SkippedFact] = []
        # When each bullet written in this run was said: a batch need not be in time order.
        self.said: dict[str, date] = {}
        self.day: date | None = None

    def apply(self, fact: Fact, *, entry: HistoryEntry, today: date) -> None:
        day = self.day = _entry_date(entry) or today
        found = admit(fact, day=day, today=today, ephemeral_days=self.settings.ephemeral_days)
        if isinstance(found, str):
            self._skip(fact.text, entry, found)
            return
        if len(found.text) > self.settings.max_fact_chars:
            self._skip(found.text, entry, f"longer than {self.settings.max_fact_chars} characters")
            return
        if found.mark == "correction" and found.before and self._substitute(found, day=day):
            return
        if self._supersede(found, entry=entry, day=day):
            return
        if found.mark == "correction":
            self._correct(found, entry=entry, day=day)
        else:
            self._merge_or_add(found.text, found.target, entry=entry)

    def _supersede(self, found: Candidate, *, entry: HistoryEntry, day: date) -> bool:
        """Replace the bullet filling the same single-valued slot; True when handled."""
        slot = slot_of(without_tags(found.text))
        if slot is None or found.target == "SOUL":
            return False
        for bullet in self.docs[found.target].bullets():
            old = slot_of(without_tags(bullet.text))
            if old is None or not old.same_slot(slot):
                continue
            if old.value.casefold() == slot.value.casefold():
                self._skip(found.text, entry, f"already in {found.target} as {bullet.text!r}")
                return True
            tag = since_tag(bullet.text)
            said = (
                tag.day if tag is not None and tag.day is not None else self.said.get(bullet.text)
            )
            if said is not None and said > day:
                self._skip(found.text, entry, f"superseded by the newer {bullet.text!r}")
                if tag is None:  # the newer fact learns what it replaced
                    self._replace(found.target, bullet, with_since(bullet.text, said, slot.value))
                return True
            self._replace(found.target, bullet, with_since(found.text, day, old.value))
            return True
        return False

    def _substitute(self, found: Candidate, *, day: date) -> bool:
        """Put the corrected value in place of the old one in the bullet that holds it."""
        before = found.before or ""
        new = corrected_value(found.text, before)
        if new is None or new.casefold() == before.casefold():
            return False
        edge = r"\b" if before[:1].isascii() else ""
        old = re.compile(f"{edge}{re.escape(before)}{edge}", re.IGNORECASE)
        tokens = fact_tokens(found.text)
        best: tuple[float, MemoryFileName, Bullet] | None = None
        for name in MEMORY_FILE_NAMES:
            for bullet in self.docs[name].bullets():
                if old.search(without_tags(bullet.text)) is None:
                    continue
                score = jaccard(tokens, fact_tokens(bullet.text))
                if best is None or score > best[0]:
                    best = (score, name, bullet)
        if best is None:
            return False
        _, name, bullet = best
        text = old.sub(new, without_tags(bullet.text), count=1)
        self._replace(name, bullet, with_since(text, day, before))
        return True

    def _correct(self, found: Candidate, *, entry: HistoryEntry, day: date) -> None:
        hit = self._most_similar(found.text, MEMORY_FILE_NAMES, self.settings.correction_similarity)
        if hit is None:
            text = with_since(found.text, day, found.before) if found.before else found.text
            self._add(text, found.target, entry=entry)
            return
        name, bullet = hit
        if normalise(without_tags(bullet.text)) == normalise(without_tags(found.text)):
            self._skip(found.text, entry, f"correction already in {name}")
            return
        before = found.before or without_tags(bullet.text)
        self._replace(name, bullet, with_since(found.text, day, before))

    def _replace(self, name: MemoryFileName, bullet: Bullet, text: str) -> None:
        self.docs[name].replace(bullet, text)
        self._note(text)
        self.applied.append(
            CuratorChange(action="replace", file=name, fact=text, previous=bullet.text)
        )

    def _merge_or_add(self, text: str, target: MemoryFileName, *, entry: HistoryEntry) -> None:
        found = self._most_similar(text, (target,), self.settings.merge_similarity)
        if found is None:
            self._add(text, target, entry=entry)
            return
        _, bullet = found
        if normalise(bullet.text) == normalise(text) or fact_tokens(text) <= fact_tokens(
            bullet.text
        ):
            self._skip(text, entry, f"already in {target} as {bullet.text!r}")
            return
        self.docs[target].replace(bullet, text)
        self.applied.append(
            CuratorChange(action="merge", file=target, fact=text, previous=bullet.text)
        )

    def _add(self, text: str, target: MemoryFileName, *, entry: HistoryEntry) -> None:
        doc = self.docs[target]
        if doc.size_with(text) > self.settings.file_chars:
            self._skip(text, entry, f"{target} is at its {self.settings.file_chars}-character cap")
            return
        doc.append(text)
        self._note(text)
        self.applied.append(CuratorChange(action="add", file=target, fact=text))

    def expire(self, name: MemoryFileName, today: date) -> None:
        """Drop the file's ephemeral bullets older than ``ephemeral_days``."""
        horizon = timedelta(days=self.settings.ephemeral_days)
        expired = [
            bullet
            for bullet in self.docs[name].bullets()
            if (day := as_of_date(bullet.text)) is not None and day + horizon < today
        ]
        self.docs[name].remove(expired)
        self.applied.extend(
            CuratorChange(action="expire", file=name, fact=bullet.text) for bullet in expired
        )

    def _most_similar(
        self, text: str, names: Sequence[MemoryFileName], threshold: float
    ) -> tuple[MemoryFileName, Bullet] | None:
        tokens, subject = fact_tokens(text), subject_of(text)
        best: tuple[float, MemoryFileName, Bullet] | None = None
        for name in names:
            for bullet in self.docs[name].bullets():
                other = subject_of(bullet.text)
                if subject and other and subject != other:
                    continue  # alike words about two people are two facts
                score = jaccard(tokens, fact_tokens(bullet.text))
                if score >= threshold and (best is None or score > best[0]):
                    best = (score, name, bullet)
        return None if best is None else (best[1], best[2])

    def _note(self, text: str) -> None:
        if self.day is not None:
            self.said[text] = self.day

    def _skip(self, text: str, entry: HistoryEntry, reason: str) -> None:
        self.skipped.append(SkippedFact(fact=text, cursor=entry.cursor, reason=reason))


def _entry_date(entry: HistoryEntry) -> date | None:
    # ``timestamp`` is the local wall-clock date a person sees; ``time`` is UTC.
    try:
        return date.fromisoformat(entry.timestamp[:10])
    except ValueError:
        return entry.time.date() if entry.time is not None else None
