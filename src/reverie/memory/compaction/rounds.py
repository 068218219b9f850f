"""The values one compaction call carries from round to round (``compactor``'s bookkeeping).

``Measure``: the prompt compaction measures, in the two ways a result needs; ``Plan``: what a
call compacts toward (the new message and tools of the prompt, the target, to the end or not);
``Step``: what one round did; ``Progress``: the rounds so far, folded into the call's
``CompactionResult`` (the worst outcome wins: ``RANK``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reverie.core.entries import HistoryEntry
from reverie.llm.provider import ToolSchema
from reverie.memory.compaction.result import CompactionResult, Outcome


@dataclass(frozen=True, slots=True, kw_only=True)
class Measure:
    """The prompt compaction measures, two ways.

    ``tokens`` (recall's reserved room included) decides; ``carried`` (what the prompt holds:
    files, summary, pending messages) is what a result reports.
    """

    tokens: int
    carried: int

    def unchanged(self) -> CompactionResult:
        """The result of a call that compacted nothing."""
        return CompactionResult(
            outcome="not_needed", tokens_before=self.carried, tokens_after=self.carried
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What one call compacts toward: its prompt's new message and tools, and the target."""

    user_text: str | None
    tools: tuple[ToolSchema, ...]
    target: int
    until_end: bool = False
    why: str = "token pressure"


@dataclass(frozen=True, slots=True)
class Step:
    """What one round did: its outcome, the entry it wrote or reused, its model calls."""

    outcome: Outcome
    entry: HistoryEntry | None
    calls: int
    reason: str | None


@dataclass(slots=True)
class Progress:
    """The rounds of one call so far, and the measure after the last."""

    now: Measure
    rounds: int = 0
    calls: int = 0
    outcome: Outcome = "no_cut"
    reason: str | None = None
    entries: list[HistoryEntry] = field(default_factory=list)

    def add(self, step: Step) -> None:
        """Count one more round (its entry kept, the worse outcome kept)."""
        self.rounds += 1
        self.calls += step.calls
        if RANK[step.outcome] >= RANK[self.outcome]:
            self.outcome = step.outcome
        self.reason = step.reason or self.reason
        if step.entry is not None:
            self.entries.append(step.entry)

    @property
    def tokens(self) -> int:
        """The deciding measure after the last round."""
        return self.now.tokens

    def result(self, before: Measure) -> CompactionResult:
        """The call's result, from ``before`` to the last measure."""
        return CompactionResult(
            outcome=self.outcome,
            tokens_before=before.carried,
            tokens_after=self.now.carried,
            entries=tuple(self.entries),
            rounds=self.rounds,
            model_calls=self.calls,
            reason=self.reason,
        )


RANK: dict[Outcome, int] = {
    "no_cut": 0,
    "not_needed": 0,
    "busy": 0,
    "nothing_noteworthy": 1,
    "summarised": 2,
    "raw_fallback": 3,
}
