"""``ReverieHistory`` and ``memory_tools``: pydantic-ai's message history and tools over reverie.

A pydantic-ai agent keeps no conversation of its own: each run takes ``message_history`` and
hands back ``result.new_messages()``. ``ReverieHistory(session_id, memory)`` is both ends:
``agent.run_sync(text, message_history=history.messages)``, then
``history.add(result.new_messages())``. A ``ModelMessage`` is recorded as one chat message of
the nearest role (a request holding a user prompt -> user, tool returns -> tool, only the
agent's own parts, its system prompt or retry feedback -> system; a response -> assistant)
with its text, and the message itself is kept beside it (``extra["pydantic_ai_message"]``,
pydantic-ai's own JSON form), so ``messages`` gives back what was added; messages reverie
recorded from elsewhere come back as the plain request or response of their role. History
``name`` is reverie session ``pydantic_ai:{name}``; ``clear`` starts a new generation
(``reverie.adapters.generations``): the old messages stay in memory.

``memory_tools(memory)`` is a ``FunctionToolset`` of the memory operations an agent may call:
``search_memory``, ``recall``, ``read_memory`` and ``remember`` (kept as the agent's own words,
through the same curation, screening and audit as every other write). A refused call (empty
text, a bad file) goes back to the model as a retry, never up as an exception.

Needs the ``pydantic-ai`` extra (``pydantic-ai-slim``); imported only here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from reverie.adapters.generations import current_key, next_key
from reverie.config.extras import install_hint
from reverie.core.durable import FILE_NAMES
from reverie.core.messages import Message
from reverie.engine.results import describe_hit
from reverie.errors import ReverieError

try:
    from pydantic_ai import ModelRetry
    from pydantic_ai.messages import (
        ModelMessage,
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelResponse,
        RetryFeedbackPart,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as missing:  # pragma: no cover (the dev install has it)
    need = f"ReverieHistory needs the 'pydantic-ai-slim' package: {install_hint('pydantic-ai')}"
    raise ImportError(need) from missing

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject, Role
    from reverie.engine.facade import MemoryEngine

T = TypeVar("T")
PREFIX = "pydantic_ai:"
KEPT = "pydantic_ai_message"


class ReverieHistory:
    """One pydantic-ai conversation kept in a reverie workspace."""

    def __init__(self, session_id: str, memory: MemoryEngine) -> None:
        self.session_id = session_id
        self._memory = memory
        self._base = f"{PREFIX}{session_id}"

    @property
    def key(self) -> str:
        """The reverie session that holds the conversation now (its newest generation)."""
        return current_key(self._memory, self._base)

    @property
    def messages(self) -> list[ModelMessage]:
        """The conversation, oldest first: pass it as ``message_history``."""
        key = self.key
        if not self._memory.has_session(key):
            return []
        return [model_message_of(m) for m in self._memory.session(key).messages]

    def add(self, messages: Sequence[ModelMessage]) -> None:
        """Record ``messages`` (a run's ``new_messages()``) at the end, in one write."""
        if messages:
            self._memory.record(self.key, [message_of(m) for m in messages])

    def clear(self) -> None:
        """Start the conversation afresh; the earlier messages stay in memory."""
        self._memory.record(next_key(self._memory, self._base), [])


def memory_tools(memory: MemoryEngine) -> FunctionToolset[Any]:
    """The memory operations as pydantic-ai tools, over ``memory``."""

    def search_memory(query: str, limit: int = 10) -> str:
        """Search past conversations and history for ``query``; best hits first.

        Args:
            query: words to look for.
            limit: at most this many hits.
        """
        hits = _refused_as_retry(lambda: memory.search(query, limit=limit))
        return "\n".join(describe_hit(hit) for hit in hits) or "no matches"

    def recall(query: str) -> str:
        """Recall what memory holds about ``query``: dated quotes with their sources.

        Args:
            query: what to recall.
        """
        return _refused_as_retry(lambda: memory.recall(query)).text or "nothing recalled"

    def read_memory(file: Literal["SOUL.md", "USER.md", "MEMORY.md"]) -> str:
        """Read one durable memory file: SOUL.md, USER.md or MEMORY.md.

        Args:
            file: which file.
        """
        return memory.read_memory(FILE_NAMES[file])  # pydantic-ai refused any other name already

    def remember(text: str) -> str:
        """Keep a fact for later conversations (curated into the durable files now).

        Args:
            text: the fact, in a sentence that stands on its own.
        """
        done = _refused_as_retry(lambda: memory.remember(text, author="assistant"))
        return f"kept (dream: {done.dream.outcome})"

    return FunctionToolset([search_memory, recall, read_memory, remember])


def _refused_as_retry(call: Callable[[], T]) -> T:
    try:
        return call()
    except ReverieError as exc:
        raise ModelRetry(str(exc)) from exc


def message_of(message: ModelMessage) -> Message:
    """The chat message that stands for ``message`` in memory, the original kept beside it."""
    kept = cast("JSONObject", ModelMessagesTypeAdapter.dump_python([message], mode="json")[0])
    extra: JSONObject = {KEPT: kept}
    role, text, call_id = _role_text(message)
    when = message.timestamp
    return Message(
        role=role, content=text or None, tool_call_id=call_id, timestamp=when, extra=extra
    )


def model_message_of(message: Message) -> ModelMessage:
    """The pydantic-ai message ``message`` was recorded from (or the plain one of its role)."""
    kept = message.extra.get(KEPT)
    if isinstance(kept, dict):
        return ModelMessagesTypeAdapter.validate_python([kept])[0]
    if message.role == "user":
        return ModelRequest(parts=[UserPromptPart(content=message.text)])
    if message.role == "system":
        return ModelRequest(parts=[SystemPromptPart(content=message.text)])
    return ModelResponse(parts=[TextPart(content=message.text)])


def _role_text(message: ModelMessage) -> tuple[Role, str, str | None]:
    if isinstance(message, ModelResponse):
        said = [p.content for p in message.parts if isinstance(p, TextPart)]
        calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
        said += [f"called {c.tool_name}({c.args_as_json_str()})" for c in calls]
        return "assistant", "\n".join(said), None
    asked = [p for p in message.parts if isinstance(p, UserPromptPart)]
    if asked:
        return "user", "\n".join(_prompt_text(p.content) for p in asked), None
    returned = [p for p in message.parts if isinstance(p, ToolReturnPart)]
    if returned:  # a refused call too (outcome "retried"): it answers that call
        texts = [p.model_response_str() for p in returned]
        return "tool", "\n".join(texts), returned[0].tool_call_id
    # Only the agent's own parts: its system prompt, the framework's feedback on an answer it
    # could not use. Neither is the person's words, so neither is recorded as theirs.
    notes = [p.content for p in message.parts if isinstance(p, SystemPromptPart)]
    notes += [p.model_response() for p in message.parts if isinstance(p, RetryFeedbackPart)]
    return "system", "\n".join(notes), None


def _prompt_text(content: str | Sequence[object]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p for p in content if isinstance(p, str))  # media parts have no text
