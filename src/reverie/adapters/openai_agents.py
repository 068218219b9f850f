"""``ReverieSession``: the OpenAI Agents SDK ``Session`` protocol over ``MemoryEngine``.

``Runner.run(agent, text, session=ReverieSession("chat-1", memory))`` reads the conversation
from reverie and records every new item there, so compaction, recall and dream work on it
like on any other session. An item (a Responses-API input item: a message, a function call,
its output) is recorded as a chat message of the nearest role with its text, and the item
itself is kept beside it (``extra["agents_item"]``), so ``get_items`` gives back exactly what
was added. Framework session ``name`` is reverie session ``agents:{name}`` (see
``reverie.adapters.generations`` for what ``pop_item`` and ``clear_session`` do: they start a
new generation and the old items stay in memory).

Needs the ``agents`` extra (``openai-agents``); imported only here. The engine calls are
synchronous (the SDK awaits them; each is a local write or read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from reverie.adapters.generations import current_key, next_key
from reverie.config.extras import install_hint
from reverie.core.messages import Message

try:
    from agents.memory.session import SessionABC
except ImportError as missing:  # pragma: no cover (the dev install has it)
    need = f"ReverieSession needs the 'openai-agents' package: {install_hint('agents')}"
    raise ImportError(need) from missing

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

    from reverie.core.messages import JSONObject, Role
    from reverie.engine.facade import MemoryEngine

PREFIX = "agents:"
ITEM = "agents_item"
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "system": "system"}
_ROLES |= {"developer": "system"}
_TYPES: dict[str, Role] = {"function_call_output": "tool"}


class ReverieSession(SessionABC):
    """One Agents SDK session kept in a reverie workspace."""

    def __init__(self, session_id: str, memory: MemoryEngine) -> None:
        self.session_id = session_id
        self._memory = memory
        self._base = f"{PREFIX}{session_id}"

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first; the latest ``limit`` when given."""
        items = self._items()
        return items if limit is None else items[-limit:] if limit > 0 else []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Record ``items`` at the end of the session."""
        if items:
            key = current_key(self._memory, self._base)
            self._memory.record(key, [message_of(cast("Mapping[str, Any]", i)) for i in items])

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the latest item from the session's view and return it (None when empty)."""
        items = self._items()
        if not items:
            return None
        key = next_key(self._memory, self._base)
        self._memory.record(key, [message_of(cast("Mapping[str, Any]", i)) for i in items[:-1]])
        return items[-1]

    async def clear_session(self) -> None:
        """Start the session afresh; the earlier items stay in memory (recall still finds them)."""
        self._memory.record(next_key(self._memory, self._base), [])

    def _items(self) -> list[TResponseInputItem]:
        key = current_key(self._memory, self._base)
        if not self._memory.has_session(key):
            return []
        return [item_of(m) for m in self._memory.session(key).messages]


def message_of(item: Mapping[str, Any]) -> Message:
    """The chat message that stands for ``item`` in memory, the item kept beside it."""
    kind = str(item.get("type", "message"))
    role = _ROLES.get(str(item.get("role")), _TYPES.get(kind, "assistant"))
    text = _text(item.get("content")) or _text(item.get("output")) or _call_text(item)
    extra: JSONObject = {ITEM: cast("JSONObject", dict(item))}
    call_id = item.get("call_id") if role == "tool" else None
    return Message(role=role, content=text or None, tool_call_id=call_id, extra=extra)


def item_of(message: Message) -> TResponseInputItem:
    """The item ``message`` was recorded from (a plain message item for other messages)."""
    kept = message.extra.get(ITEM)
    if isinstance(kept, dict):
        return cast("TResponseInputItem", kept)
    role = "assistant" if message.role == "tool" else message.role
    return cast("TResponseInputItem", {"role": role, "content": message.text})


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _call_text(item: Mapping[str, Any]) -> str:
    if item.get("type") == "function_call":
        return f"called {item.get('name')}({item.get('arguments')})"
    return ""
