"""What a model-free curation run did: each change, each fact left out and why, the new texts.

Values only, built by ``curator.ModelFreeCurator`` and read by dream (which lists every change
in its transcript) and the CLI. ``CuratorSettings`` holds the curator's thresholds and caps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from reverie.core.durable import MemoryFileName

Action = Literal["add", "merge", "replace", "expire"]


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
    ephemeral_days: int = 14
    merge_similarity: float = 0.6
    correction_similarity: float = 0.25
    max_fact_chars: int = 400
