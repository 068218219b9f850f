"""The model call: one request value in, one reply value out, behind the ``Provider`` protocol.

This module owns the values every model adapter speaks (``ChatRequest``, ``ToolSchema``,
``ChatReply``, ``Usage``) and the ``Provider`` protocol itself. It does no I/O and imports no
SDK: adapters (OpenAI-compatible, Anthropic, scripted) translate these values to and from their
wire formats, and translate every failure into ``reverie.errors.ModelError``.

Invariants: values are frozen; a ``ChatReply`` always has a finish reason from the closed set
``FINISH_REASONS`` (unknown provider reasons become ``"other"``); ``complete`` is synchronous
and safe to call from several threads at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from reverie.core.messages import JSONObject, JSONValue, Message, ToolCall

ToolChoice = Literal["auto", "none", "required"]
FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "other"]
FINISH_REASONS: tuple[FinishReason, ...] = (
    "stop",
    "length",
    "tool_calls",
    "content_filter",
    "other",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSchema:
    """A function the model may call: its name, what it does, and a JSON schema of arguments."""

    name: str
    description: str
    parameters: Mapping[str, JSONValue] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def to_json(self) -> JSONObject:
        """Return the chat-completions ``tools`` entry for this function."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }

    def canonical_text(self) -> str:
        """Return a stable JSON text of the schema (what token counting measures)."""
        return json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest:
    """Everything one model call needs; ``None`` means "use the provider's default".

    Attributes:
        messages: the conversation, system messages included, oldest first.
        tools: functions the model may call.
        tool_choice: whether the model may, must not, or must call a tool.
        max_output_tokens: cap on the reply's tokens.
        temperature: sampling temperature.
        reasoning_effort: for reasoning models (e.g. ``"low"``, ``"medium"``, ``"high"``).
        model: overrides the provider's configured model for this call.
        timeout: seconds to wait for one HTTP attempt, overriding the provider's timeout.
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolSchema, ...] = ()
    tool_choice: ToolChoice | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    model: str | None = None
    timeout: float | None = None

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a ChatRequest needs at least one message")
        if self.max_output_tokens is not None and self.max_output_tokens <= 0:
            raise ValueError(f"max_output_tokens must be positive, got {self.max_output_tokens}")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")

    def describe(self) -> str:
        """Return a short description (first message, truncated) for error messages."""
        first = self.messages[0]
        text = first.text.replace("\n", " ")
        if len(text) > 80:
            text = text[:77] + "..."
        return f"{len(self.messages)} message(s), first {first.role}: {text!r}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Tokens a call cost, as the provider reported them."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatReply:
    """The model's answer to one ``ChatRequest``.

    Attributes:
        text: the reply text; empty when the model only called tools.
        tool_calls: the calls the model asked for, in order.
        finish_reason: why generation stopped, normalised to ``FINISH_REASONS``.
        usage: token usage, or None when the provider did not report it.
        model: the model that answered, as the provider named it ("" when unknown).
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason = "stop"
    usage: Usage | None = None
    model: str = ""

    def to_message(self, *, timestamp: datetime | None = None) -> Message:
        """Return the assistant message this reply adds to a conversation."""
        content = self.text if self.text or not self.tool_calls else None
        return Message(
            role="assistant", content=content, tool_calls=self.tool_calls, timestamp=timestamp
        )


class Provider(Protocol):
    """A model endpoint: answers a ``ChatRequest`` or raises a ``ModelError``."""

    def complete(self, request: ChatRequest) -> ChatReply:
        """Send ``request`` and return the model's reply.

        Raises:
            reverie.errors.ModelError: any failure, translated (HTTP status, timeout, malformed
                reply, context length exceeded, ...).
        """
        ...
