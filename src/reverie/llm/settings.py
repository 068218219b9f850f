"""Model settings: which model, how large its window is, and what each call may spend.

``ModelSettings`` describes one model (name, context window, output cap, sampling); it turns a
list of messages into a ``ChatRequest`` with those defaults. ``ModelRoles`` pairs the model the
agent chats with and an optional cheaper one for memory jobs (compaction and dream). This module
reads no environment and no files: the surface loads config and builds these values.

Invariants: the context window is larger than the output cap, so an input budget exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.llm.provider import ChatRequest, ToolChoice, ToolSchema

if TYPE_CHECKING:
    from reverie.messages import Message

DEFAULT_SAFETY_MARGIN = 1024
"""Tokens kept free below the context window beyond the output cap (DESIGN.md defaults)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSettings:
    """One model and the limits of a call to it.

    Attributes:
        model: the model name the endpoint knows.
        context_window: tokens the model accepts, prompt and reply together.
        max_output_tokens: cap on a reply's tokens.
        temperature: sampling temperature, or None for the endpoint's default.
        reasoning_effort: for reasoning models, or None.
    """

    model: str
    context_window: int
    max_output_tokens: int
    temperature: float | None = None
    reasoning_effort: str | None = None

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("ModelSettings needs a model name")
        if self.max_output_tokens <= 0:
            raise ValueError(f"max_output_tokens must be positive, got {self.max_output_tokens}")
        if self.context_window <= self.max_output_tokens:
            raise ValueError(
                f"context_window ({self.context_window}) must exceed "
                f"max_output_tokens ({self.max_output_tokens})"
            )

    def input_budget(self, safety_margin: int = DEFAULT_SAFETY_MARGIN) -> int:
        """Return the prompt tokens a call may use: window - output cap - margin (at least 1)."""
        return max(1, self.context_window - self.max_output_tokens - safety_margin)

    def request(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSchema] = (),
        tool_choice: ToolChoice | None = None,
        timeout: float | None = None,
    ) -> ChatRequest:
        """Return a ``ChatRequest`` for ``messages`` carrying these settings."""
        return ChatRequest(
            messages=tuple(messages),
            tools=tuple(tools),
            tool_choice=tool_choice,
            max_output_tokens=self.max_output_tokens,
            temperature=self.temperature,
            reasoning_effort=self.reasoning_effort,
            model=self.model,
            timeout=timeout,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRoles:
    """The model for each job: ``chat`` for the agent, ``memory`` for compaction and dream.

    When ``memory`` is None the memory jobs use the chat model.
    """

    chat: ModelSettings
    memory: ModelSettings | None = None

    @property
    def for_memory(self) -> ModelSettings:
        """The settings compaction and dream use."""
        return self.memory if self.memory is not None else self.chat
