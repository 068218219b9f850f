"""Conversation values shared by sessions, prompts and model providers.

A ``Message`` is one chat message in the OpenAI chat-completions shape (role, content,
tool_calls, tool_call_id, name) plus a timestamp. Fields reverie does not model are kept in
``extra`` and written back verbatim, so a message survives a round trip through any store.
JSON is parsed here, at the edge, into frozen values; nothing downstream handles raw dicts.
This module does no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeAlias, cast

from reverie.errors import InputError

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = dict[str, JSONValue]

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")

_KNOWN_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name", "timestamp"})


class MessageFormatError(InputError):
    """A JSON object is not a valid message; the text says which field and why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One function call requested by an assistant message.

    ``arguments`` is the JSON text exactly as the model produced it (it may be invalid JSON;
    whoever executes the call reports that back to the model).
    """

    id: str
    name: str
    arguments: str = "{}"

    def to_json(self) -> JSONObject:
        """Return the chat-completions form of this call."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_json(cls, obj: JSONValue) -> ToolCall:
        """Parse a chat-completions tool call object."""
        if not isinstance(obj, dict):
            raise MessageFormatError(f"tool call must be an object, got {type(obj).__name__}")
        function = obj.get("function")
        if not isinstance(function, dict):
            raise MessageFormatError("tool call has no 'function' object")
        call_id, name, arguments = obj.get("id"), function.get("name"), function.get("arguments")
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise MessageFormatError("tool call needs string 'id' and 'function.name'")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if not isinstance(arguments, str):
            arguments = "{}" if arguments is None else json.dumps(arguments)
        return cls(id=call_id, name=name, arguments=arguments)


Content: TypeAlias = "str | tuple[JSONObject, ...] | None"


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One chat message.

    ``content`` is plain text, a tuple of content parts (``{"type": "text", ...}`` objects kept
    as parsed JSON), or None (an assistant message that only calls tools).
    """

    role: Role
    content: Content = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    timestamp: datetime | None = None
    extra: Mapping[str, JSONValue] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The message's text: the content string, or its text parts joined by newlines."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        parts = [part.get("text") for part in self.content]
        return "\n".join(p for p in parts if isinstance(p, str))

    def to_json(self) -> JSONObject:
        """Return the chat-completions form, with ``timestamp`` and ``extra`` fields added."""
        obj: JSONObject = dict(self.extra)
        obj["role"] = self.role
        obj["content"] = list(self.content) if isinstance(self.content, tuple) else self.content
        if self.tool_calls:
            obj["tool_calls"] = [call.to_json() for call in self.tool_calls]
        if self.tool_call_id is not None:
            obj["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            obj["name"] = self.name
        if self.timestamp is not None:
            obj["timestamp"] = self.timestamp.isoformat()
        return obj

    def to_wire(self) -> JSONObject:
        """Return the message as a chat-completions request carries it, and nothing else.

        Only ``role``, ``content``, ``tool_calls``, ``tool_call_id`` and ``name``: no
        ``timestamp`` and no ``extra`` field (an imported session's ``reasoning_content``),
        which strict OpenAI-compatible endpoints refuse as unknown inputs.
        """
        obj: JSONObject = {
            "role": self.role,
            "content": list(self.content) if isinstance(self.content, tuple) else self.content,
        }
        if self.tool_calls:
            obj["tool_calls"] = [call.to_json() for call in self.tool_calls]
        if self.tool_call_id is not None:
            obj["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            obj["name"] = self.name
        return obj

    @classmethod
    def from_json(cls, obj: JSONValue) -> Message:
        """Parse a chat-completions message object; unknown fields land in ``extra``."""
        if not isinstance(obj, dict):
            raise MessageFormatError(f"message must be an object, got {type(obj).__name__}")
        role = obj.get("role")
        if role not in ROLES:
            raise MessageFormatError(f"message role must be one of {ROLES}, got {role!r}")
        raw_calls = obj.get("tool_calls")
        raw_calls = [] if raw_calls is None else raw_calls
        if not isinstance(raw_calls, list):
            raise MessageFormatError("'tool_calls' must be a list")
        return cls(
            role=role,
            content=_parse_content(obj.get("content")),
            tool_calls=tuple(ToolCall.from_json(call) for call in raw_calls),
            tool_call_id=_optional_str(obj, "tool_call_id"),
            name=_optional_str(obj, "name"),
            timestamp=_parse_timestamp(obj.get("timestamp")),
            extra={k: v for k, v in obj.items() if k not in _KNOWN_KEYS},
        )


def _parse_content(value: JSONValue) -> Content:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        return tuple(cast("JSONObject", part) for part in value)
    raise MessageFormatError("'content' must be a string, a list of part objects, or null")


def _optional_str(obj: JSONObject, key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise MessageFormatError(f"'{key}' must be a string, got {type(value).__name__}")


def _parse_timestamp(value: JSONValue) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise MessageFormatError(f"'timestamp' must be an ISO 8601 string, got {value!r}")
    try:
        return datetime.fromisoformat(value)
    except ValueError as exc:
        raise MessageFormatError(f"'timestamp' is not ISO 8601: {value!r}") from exc
