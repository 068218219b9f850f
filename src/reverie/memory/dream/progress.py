"""The no-progress detector: ends a dream run that edits in circles or stops changing files.

Fed once per tool round with that round's ``ToolOutcome``s, it answers with a typed
``ProgressVerdict``. It owns three rules (invariant 11), checked edit by edit in call order:

- ``undo``: an edit changes a file back to a text it already had in this run (its text before
  the first edit, or the result of any earlier edit), so edits are undoing each other.
- ``repeated_edit``: an edit leaves a file unchanged at a text an earlier edit of this run
  already produced, i.e. the same edit (same path, same resulting content) was made again. A
  first no-op edit (rewriting a file with the text it had on disk) is not yet a repeat.
- ``stalled``: ``stall_rounds`` consecutive rounds changed no file (rounds of reads, failed
  edits and no-op edits all count), default 3.

Content is compared by the SHA-256 hashes in each ``EditRecord``; the detector keeps only
hashes. It does no I/O and never raises for model behaviour; once it said stop it keeps
saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from reverie.memory.dream.tools import EditRecord, ToolOutcome

ProgressOutcome = Literal["continue", "repeated_edit", "undo", "stalled"]
DEFAULT_STALL_ROUNDS = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressVerdict:
    """Whether the run may go on, and if not, which rule ended it and why."""

    outcome: ProgressOutcome
    detail: str = ""

    @property
    def stop(self) -> bool:
        """True when the run must end."""
        return self.outcome != "continue"


CONTINUE = ProgressVerdict(outcome="continue")


class ProgressDetector:
    """Tracks one dream run's edits round by round (create one per run)."""

    def __init__(self, *, stall_rounds: int = DEFAULT_STALL_ROUNDS) -> None:
        """Create a detector.

        Args:
            stall_rounds: consecutive rounds without a changed file that end the run (>= 1).

        Raises:
            ValueError: ``stall_rounds`` is below 1.
        """
        if stall_rounds < 1:
            raise ValueError(f"stall_rounds must be at least 1, got {stall_rounds}")
        self.stall_rounds = stall_rounds
        self._seen: dict[str, set[str]] = {}
        self._produced: dict[str, set[str]] = {}
        self._idle_rounds = 0
        self._verdict = CONTINUE

    def observe(self, outcomes: Sequence[ToolOutcome]) -> ProgressVerdict:
        """Record one round of tool outcomes and say whether the run may continue."""
        if self._verdict.stop:
            return self._verdict
        changed = False
        for outcome in outcomes:
            if outcome.edit is None:
                continue
            verdict = self._record(outcome.edit)
            if verdict.stop:
                self._verdict = verdict
                return verdict
            changed = changed or outcome.edit.changed
        self._idle_rounds = 0 if changed else self._idle_rounds + 1
        if self._idle_rounds >= self.stall_rounds:
            self._verdict = ProgressVerdict(
                outcome="stalled",
                detail=f"no file changed in the last {self._idle_rounds} tool rounds",
            )
        return self._verdict

    def _record(self, edit: EditRecord) -> ProgressVerdict:
        seen = self._seen.setdefault(edit.path, {edit.before_sha256})
        produced = self._produced.setdefault(edit.path, set())
        verdict = CONTINUE
        if edit.changed and edit.after_sha256 in seen:
            verdict = ProgressVerdict(
                outcome="undo",
                detail=f"an edit returned {edit.path} to a text it already had in this run",
            )
        elif not edit.changed and edit.after_sha256 in produced:
            verdict = ProgressVerdict(
                outcome="repeated_edit",
                detail=f"the same edit of {edit.path} was made again, changing nothing",
            )
        seen.add(edit.after_sha256)
        produced.add(edit.after_sha256)
        return verdict
