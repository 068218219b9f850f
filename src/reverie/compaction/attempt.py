"""What a summariser returns, and the protocol every summariser (model or model-free) meets.

A summariser receives messages with their roles (user, assistant, tool, system), never a
rendered transcript: who said each thing travels with the thing said, so no summariser has to
read speakers back out of text (where a tool result holding a line ``USER: ...`` would pass
for the user). A model summariser renders the messages itself, for its prompt only. The result
is a typed ``SummaryAttempt``. This module imports nothing from the model layer, so model-free
code can depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from reverie.messages import Message

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
    """Writes the facts of a run of messages."""

    @property
    def label(self) -> str:
        """The model name, or ``model-free``."""
        ...

    @property
    def input_budget(self) -> int:
        """The most tokens the rendered messages of one call may cost."""
        ...

    def summarise(self, messages: Sequence[Message], *, session_key: str | None) -> SummaryAttempt:
        """Summarise ``messages`` (oldest first); never raises for model failures."""
        ...
