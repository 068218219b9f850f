"""The shape of planted facts and of a language's material for the dev set generator."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Said:
    """One planted statement, optionally preceded by the partner's lead-in question."""

    text: str
    lead_in: str | None = None


@dataclass(slots=True, kw_only=True)
class Fact:
    """A fact one speaker plants in one or more steps (later steps update earlier ones)."""

    kind: str
    owner: int
    slots: dict[str, str]
    steps: tuple[Said, ...]
    questions: tuple[str, ...]
    gold: tuple[int, ...] = (-1,)
    said: list[int] = field(default_factory=list)


FactFactory = Callable[[random.Random, int], Fact]


@dataclass(frozen=True, slots=True, kw_only=True)
class Language:
    """Everything the generator needs to write conversations in one language."""

    code: str
    pairs: tuple[tuple[str, str], ...]
    greetings: tuple[str, ...]
    filler: tuple[str, ...]
    distractors: tuple[str, ...]
    facts: tuple[FactFactory, ...]
    joiner: str = " "
