"""The model-free curator: history entries to edits of the durable files, without a model.

``ModelFreeCurator.curate`` is pure: it takes the current texts of SOUL.md, USER.md and
memory/MEMORY.md and a batch of history entries, and returns the new texts plus an account of
every change. The caller runs it under dream's contract (staging, a commit built from the real
diff, the dream cursor advanced only once the result is published, tagged model-free).

For each fact of each entry (``- [mark] fact`` lines; plain lines are durable facts; an entry
that is a raw transcript is first put through the model-free summariser):

- ``[skip]`` facts, and facts that look like credentials, are skipped;
- the fact is routed (``routing.route``) and its ``[mark]`` dropped; an ephemeral fact keeps an
  ``(as of YYYY-MM-DD)`` tag (its entry's date when it had none) so that it can expire;
- a ``[correction]`` replaces the most similar bullet of any file (token-set similarity at
  least ``correction_similarity``), or is added when nothing is similar enough;
- any other fact that is a near-duplicate (``merge_similarity``) of a bullet of its file is
  merged: nothing changes when the bullet already says it all, else the newer wording replaces
  the bullet; otherwise the fact is appended;
- before a file would pass ``near_cap`` of ``file_chars``, its expired ephemeral bullets
  (older than ``ephemeral_days``) are dropped; a fact that still would not fit is skipped.

Invariants: only top-level bullets are ever changed (``FactFile``); text a person wrote
elsewhere is kept as it is; a file with no change comes back exactly as it was given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

from reverie.modelfree.credentials import contains_secret
from reverie.modelfree.fact_file import Bullet, FactFile
from reverie.modelfree.facts import Fact, as_of_date, parse_facts, with_as_of
from reverie.modelfree.routing import route
from reverie.modelfree.similarity import fact_tokens, jaccard, normalise
from reverie.modelfree.summariser import extract_facts
from reverie.modelfree.transcript import parse_transcript
from reverie.store.entries import HistoryEntry
from reverie.store.memory_files import MEMORY_FILE_NAMES, MemoryFileName

Action = Literal["add", "merge", "replace", "expire"]

_TRANSCRIPT_LINE = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] (?:USER|ASSISTANT):", re.M)
_CORRECTION_PREFIX = re.compile(r"^user correction\s*[:：]\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class CuratorChange:
    """One change the curator made: ``fact`` is the bullet text written (or dropped)."""

    action: Action
    file: MemoryFileName
    fact: str
    previous: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedFact:
    """A fact the curator did not write, the entry it came from, and why."""

    fact: str
    cursor: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CurationResult:
    """The files after curation (all three, changed or not) and what happened."""

    new_texts: dict[MemoryFileName, str]
    applied: tuple[CuratorChange, ...] = ()
    skipped: tuple[SkippedFact, ...] = ()
    changed: tuple[MemoryFileName, ...] = field(default=())


@dataclass(frozen=True, slots=True, kw_only=True)
class CuratorSettings:
    """The curator's thresholds and caps."""

    file_chars: int = 8_000
    near_cap: float = 0.9
    ephemeral_days: int = 14
    merge_similarity: float = 0.6
    correction_similarity: float = 0.25
    max_fact_chars: int = 400


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
        yield from extract_facts(parse_transcript(entry.content), max_fact_chars=max_chars)
        return
    yield from parse_facts(entry.content)


class _Run:
    """The mutable state of one ``curate`` call."""

    def __init__(self, settings: CuratorSettings, docs: dict[MemoryFileName, FactFile]) -> None:
        self.settings = settings
        self.docs = docs
        self.applied: list[CuratorChange] = []
        self.skipped: list[SkippedFact] = []

    def apply(self, fact: Fact, *, entry: HistoryEntry, today: date) -> None:
        if fact.mark == "skip":
            self._skip(fact.text, entry, "marked [skip]")
            return
        if contains_secret(fact.text):
            self._skip(fact.text, entry, "looks like a credential")
            return
        if len(fact.text) > self.settings.max_fact_chars:
            self._skip(fact.text, entry, f"longer than {self.settings.max_fact_chars} characters")
            return
        text = _CORRECTION_PREFIX.sub("User: ", fact.text.strip())
        if fact.mark == "ephemeral" and as_of_date(text) is None:
            text = with_as_of(text, _entry_date(entry) or today)
        target = route(text)
        if fact.mark == "correction":
            self._correct(text, target, entry=entry, today=today)
        else:
            self._merge_or_add(text, target, entry=entry, today=today)

    def _correct(
        self, text: str, target: MemoryFileName, *, entry: HistoryEntry, today: date
    ) -> None:
        found = self._most_similar(text, MEMORY_FILE_NAMES, self.settings.correction_similarity)
        if found is None:
            self._add(text, target, entry=entry, today=today)
            return
        name, bullet = found
        if normalise(bullet.text) == normalise(text):
            self._skip(text, entry, f"correction already in {name}")
            return
        self.docs[name].replace(bullet, text)
        self.applied.append(
            CuratorChange(action="replace", file=name, fact=text, previous=bullet.text)
        )

    def _merge_or_add(
        self, text: str, target: MemoryFileName, *, entry: HistoryEntry, today: date
    ) -> None:
        found = self._most_similar(text, (target,), self.settings.merge_similarity)
        if found is None:
            self._add(text, target, entry=entry, today=today)
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

    def _add(self, text: str, target: MemoryFileName, *, entry: HistoryEntry, today: date) -> None:
        doc = self.docs[target]
        if doc.size_with(text) > self.settings.near_cap * self.settings.file_chars:
            self._expire(target, today)
        if doc.size_with(text) > self.settings.file_chars:
            self._skip(text, entry, f"{target} is at its {self.settings.file_chars}-character cap")
            return
        doc.append(text)
        self.applied.append(CuratorChange(action="add", file=target, fact=text))

    def _expire(self, name: MemoryFileName, today: date) -> None:
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
        tokens = fact_tokens(text)
        best: tuple[float, MemoryFileName, Bullet] | None = None
        for name in names:
            for bullet in self.docs[name].bullets():
                score = jaccard(tokens, fact_tokens(bullet.text))
                if score >= threshold and (best is None or score > best[0]):
                    best = (score, name, bullet)
        return None if best is None else (best[1], best[2])

    def _skip(self, text: str, entry: HistoryEntry, reason: str) -> None:
        self.skipped.append(SkippedFact(fact=text, cursor=entry.cursor, reason=reason))


def _entry_date(entry: HistoryEntry) -> date | None:
    # ``timestamp`` is the local wall-clock date a person sees; ``time`` is UTC.
    try:
        return date.fromisoformat(entry.timestamp[:10])
    except ValueError:
        return entry.time.date() if entry.time is not None else None
