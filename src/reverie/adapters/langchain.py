"""``ReverieChatHistory``: a LangChain ``BaseChatMessageHistory`` over ``MemoryEngine``.

Anything LangChain that takes a chat history (``ReverieChatHistory(session_id, memory)``)
keeps its conversation in reverie. A LangChain message is recorded as the chat message of its role
(human -> user, ai -> assistant, system, tool) with its text, and the message itself is kept
beside it (``extra["langchain_message"]``, LangChain's own dict form), so ``messages`` gives
back what was added; messages reverie recorded from elsewhere come back as the plain message
of their role. Chat history ``name`` is reverie session ``langchain:{name}``; ``clear``
starts a new generation (``reverie.adapters.generations``): the old messages stay in memory.

Needs the ``langchain`` extra (``langchain-core``); imported only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from reverie.adapters.generations import current_key, next_key
from reverie.config.extras import install_hint
from reverie.core.messages import Message

try:
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
        message_to_dict,
        messages_from_dict,
    )
except ImportError as missing:  # pragma: no cover (the dev install has it)
    need = f"ReverieChatHistory needs the 'langchain-core' package: {install_hint('langchain')}"
    raise ImportError(need) from missing

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject, Role
    from reverie.engine.facade import MemoryEngine

PREFIX = "langchain:"
KEPT = "langchain_message"
_ROLES: dict[str, Role] = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


class ReverieChatHistory(BaseChatMessageHistory):
    """One LangChain chat history kept in a reverie workspace."""

    def __init__(self, session_id: str, memory: MemoryEngine) -> None:
        self.session_id = session_id
        self._memory = memory
        self._base = f"{PREFIX}{session_id}"

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The conversation, oldest first."""
        key = current_key(self._memory, self._base)
        if not self._memory.has_session(key):
            return []
        return [langchain_of(m) for m in self._memory.session(key).messages]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Record ``messages`` at the end of the conversation, in one write."""
        if messages:
            key = current_key(self._memory, self._base)
            self._memory.record(key, [message_of(m) for m in messages])

    def clear(self) -> None:
        """Start the conversation afresh; the earlier messages stay in memory."""
        self._memory.record(next_key(self._memory, self._base), [])


def message_of(message: BaseMessage) -> Message:
    """The chat message that stands for ``message`` in memory, the original kept beside it."""
    role = _ROLES.get(message.type, "assistant")
    text = _text(message.content)
    call_id = message.tool_call_id if isinstance(message, ToolMessage) else None
    extra: JSONObject = {KEPT: cast("JSONObject", message_to_dict(message))}
    return Message(role=role, content=text or None, tool_call_id=call_id, extra=extra)


def langchain_of(message: Message) -> BaseMessage:
    """The LangChain message ``message`` was recorded from (or the plain one of its role)."""
    kept = message.extra.get(KEPT)
    if isinstance(kept, dict):
        return messages_from_dict([cast("dict[str, Any]", kept)])[0]
    if message.role == "user":
        return HumanMessage(content=message.text)
    if message.role == "system":
        return SystemMessage(content=message.text)
    if message.role == "tool":
        return ToolMessage(content=message.text, tool_call_id=message.tool_call_id or "")
    return AIMessage(content=message.text)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text") for p in content]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""
