"""What a summariser returns, and the protocol every summariser (model or model-free) meets.

A summariser receives messages with their roles (user, assistant, tool, system), never a
rendered transcript: who said each thing travels with the thing said, so no summariser has to
read speakers back out of text (where a tool result holding a line ``USER: ...`` would pass
for the user). A model summariser renders the messages itself, for its prompt only.

The outcome is typed: a ``Summary`` (fact lines, or ``NOTHING`` when nothing is worth
keeping) or a ``SummaryFailure`` with its reason, never an exception and never a flag beside
text that may or may not be there. Compaction keeps the raw transcript on a failure. This
module imports nothing from the model layer, so model-free code can depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from reverie.core.messages import Message

NOTHING = "(nothing)"
"""What a summariser writes when no fact in the messages is worth keeping."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """The facts of the messages (``- [mark] fact`` lines), or ``NOTHING``."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def nothing(self) -> bool:
        """True when the summariser found nothing worth remembering."""
        return self.text.strip() in ("", NOTHING)


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryFailure:
    """Why no summary came back (provider error, cut-off or empty reply, call cap, ...)."""

    reason: str
    tokens_in: int = 0
    tokens_out: int = 0


SummaryOutcome = Summary | SummaryFailure
"""What one summarisation produced."""


class Summariser(Protocol):
    """Writes the facts of a run of messages."""

    @property
    def label(self) -> str:
        """The model name, or ``model-free``."""
        ...

    @property
    def input_budget(self) -> int:
        """The most tokens the rendered messages of one call may cost."""
        ...

    def summarise(self, messages: Sequence[Message], *, session_key: str | None) -> SummaryOutcome:
        """Summarise ``messages`` (oldest first); never raises for model failures."""
        ...
