"""What ``MemoryEngine``'s operations return: the next prompt, where recorded messages landed.

Values only (frozen dataclasses), plus the one-line rendering of a search hit the built-in
agent's ``search_memory`` tool answers with. Nothing here touches a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.core.clock import wall_clock
from reverie.core.messages import JSONValue, Message

if TYPE_CHECKING:
    # Types only: importing the prompt, recall and search modules is for the code using them.
    from reverie.core.hits import SearchHit
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.dream.result import DreamResult
    from reverie.memory.prompt import AssembledPrompt
    from reverie.memory.recall import RecalledItem

MessageLike = Message | Mapping[str, JSONValue]
"""A ``Message``, or its chat-completions JSON form (as most agent frameworks hold it)."""

NO_MODEL_HINT = (
    "no chat model is configured: set REVERIE_MODEL (and REVERIE_BASE_URL, REVERIE_API_KEY), "
    "or [model] in reverie.toml; see `reverie init`"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptResult:
    """The next prompt for a session, the compaction that made room for it, and the budget."""

    prompt: AssembledPrompt
    compaction: CompactionResult
    budget: int

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages to send."""
        return self.prompt.messages

    def wire(self) -> list[JSONValue]:
        """The messages as a chat-completions request sends them (``Message.to_wire``).

        ``client.chat.completions.create(model=..., messages=prompt.wire())``.
        """
        return [message.to_wire() for message in self.prompt.messages]

    @property
    def tokens(self) -> int:
        """The prompt's tokens."""
        return self.prompt.tokens

    @property
    def recalled(self) -> tuple[RecalledItem, ...]:
        """What the "Recalled" section quotes, each with its source, score and matched terms."""
        return self.prompt.recall.items if self.prompt.recall is not None else ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordResult:
    """Where recorded messages landed and whether compaction ran."""

    indices: range
    compaction: CompactionResult
    replaced: int = 0
    """Lone surrogates (invalid halves of a character) replaced with U+FFFD before storing."""


REMEMBER_SESSION = "api:default"
"""The session ``MemoryEngine.remember`` records a note in unless it is given one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RememberResult:
    """What ``remember`` did: the recorded note, its compaction and the dream that read it."""

    recorded: RecordResult
    compaction: CompactionResult
    dream: DreamResult


def describe_hit(hit: SearchHit) -> str:
    """One line for the built-in agent's ``search_memory`` tool: when, where, the snippet."""
    when = f"{wall_clock(hit.timestamp, local=False)} " if hit.timestamp is not None else ""
    if hit.kind == "history":
        return f"[{when}history #{hit.cursor}] {hit.snippet}"
    return f"[{when}{hit.session_key} message {hit.message_index} {hit.role}] {hit.snippet}"
