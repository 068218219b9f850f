"""What a summariser returns, and the protocol every summariser (model or model-free) meets.

This module imports nothing from the model layer, so model-free code can depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

NOTHING = "(nothing)"


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryAttempt:
    """What one summarisation produced: facts, nothing worth keeping, or a failure reason."""

    ok: bool
    text: str = ""
    reason: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def nothing(self) -> bool:
        """True when the summariser found nothing worth remembering."""
        return self.ok and self.text.strip() in ("", NOTHING)


class Summariser(Protocol):
    """Writes the facts of a transcript."""

    @property
    def label(self) -> str:
        """The model name, or ``model-free``."""
        ...

    @property
    def input_budget(self) -> int:
        """The most tokens a transcript may cost in one call."""
        ...

    def summarise(self, transcript: str, *, session_key: str | None) -> SummaryAttempt:
        """Summarise ``transcript``; never raises for model failures."""
        ...
