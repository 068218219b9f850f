"""What a dream run reports: one typed ``DreamResult`` per run, whatever happened.

Outcomes form a closed set. ``completed`` is the only one that publishes, commits and moves the
dream cursor (invariant 7); ``no_pending`` and ``busy`` did no model work; every other outcome
is a failed run that changed no durable file and no cursor, and counts towards the back-off of
the schedule (``FAILED_OUTCOMES``). This module holds values only: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reverie.core.screening import RejectedRule

DreamOutcome = Literal[
    "completed",
    "no_pending",
    "busy",
    "failed",
    "over_budget",
    "step_limit",
    "no_progress",
    "conflict",
]
"""completed: the model gave its final answer within the limits (published unless a dry run);
no_pending: no history entry after the dream cursor; busy: another dream holds the lock;
failed: the model call failed or its reply was unusable, or an interrupted publish could not be
recovered; over_budget: the token budget ran out; step_limit: the model still wanted tools after
the last allowed round; no_progress: the no-progress detector ended the run; conflict: a durable
file changed on disk during the run (``PublishConflictError``), so nothing was published."""

FAILED_OUTCOMES: frozenset[DreamOutcome] = frozenset(
    {"failed", "over_budget", "step_limit", "no_progress", "conflict"}
)

RunMode = Literal["model", "model-free"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DreamResult:
    """How one dream run ended, what it cost, and what it changed.

    Attributes:
        outcome: see ``DreamOutcome``.
        trigger: what started the run (``manual``, ``interval``, ``cron``, ...).
        reason: why the run ended the way it did, for people and the ledger ("" when completed).
        mode: whether a model curated the batch (model-free dream is a later addition).
        dry_run: the run showed its diff and published nothing.
        rounds: tool rounds the model used.
        model_calls: model calls made (each has a ledger line).
        tokens_in: prompt tokens of all calls (reported, or counted when not reported).
        tokens_out: completion tokens of all calls.
        cursor_before: the dream cursor when the run started.
        cursor_after: the dream cursor when it ended (moved only by a completed, real run).
        entries: history entries in the batch.
        files_changed: durable files the run changed (or, in a dry run, would change).
        diff: the unified diff published (or, in a dry run, that would be published).
        commit: the sha of the audit commit holding the files and the cursor, when one was made.
        transcript: the internal session key that keeps the run's messages, when kept.
        recovered: an interrupted earlier publish was finished before this run.
        rejected: candidate SOUL.md rules the publish guard refused (``reverie.core.screening``);
            recorded in ``.reverie/rejected-rules.jsonl`` unless a dry run.
    """

    outcome: DreamOutcome
    trigger: str
    reason: str = ""
    mode: RunMode = "model"
    dry_run: bool = False
    rounds: int = 0
    model_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cursor_before: int = 0
    cursor_after: int = 0
    entries: int = 0
    files_changed: tuple[str, ...] = ()
    diff: str = ""
    commit: str | None = None
    transcript: str | None = None
    recovered: bool = False
    rejected: tuple[RejectedRule, ...] = ()

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens of the whole run."""
        return self.tokens_in + self.tokens_out

    @property
    def failed(self) -> bool:
        """True for the outcomes that count as a failed run (see ``FAILED_OUTCOMES``)."""
        return self.outcome in FAILED_OUTCOMES
