"""The typed outcome of a compaction call (no log line or None stands in for a result)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reverie.core.entries import HistoryEntry
from reverie.core.session import Session

Outcome = Literal[
    "not_needed", "no_cut", "nothing_noteworthy", "summarised", "raw_fallback", "busy"
]
"""What happened:

- ``not_needed``: the prompt was under budget (or nothing was pending).
- ``no_cut``: over the target, but no safe cut lies after the mark (nothing compactable).
- ``nothing_noteworthy``: the summariser found nothing to keep; the mark moved, no entry.
- ``summarised``: at least one summary entry was written (or found after a crash).
- ``raw_fallback``: the summariser failed; the capped raw transcript was kept instead.
- ``busy``: another compaction of this session was running (idle scans skip it).
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionResult:
    """What one compaction call did, with prompt tokens before and after.

    ``tokens_before``/``tokens_after`` are what the prompt compaction measures carries (the
    durable files, recent history, the summary, the pending messages, the new message and
    tools), without the room reserved for recall, which is room, not content. After a
    compaction the pending messages are gone and the summary takes their place, so a
    summary longer than the short exchange it replaced shows as more tokens after.
    """

    outcome: Outcome
    tokens_before: int
    tokens_after: int
    entries: tuple[HistoryEntry, ...] = ()
    rounds: int = 0
    model_calls: int = 0
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Fitted:
    """A ``Compactor.fit``: what it did, and the session as it last read it under its lock.

    ``session`` is None when the prompt the caller built was under budget (nothing read);
    else the caller builds its prompt again on it instead of reading the session once more.
    """

    result: CompactionResult
    session: Session | None = None
