"""Making imported messages safe to replay: every tool call answered, every result called.

Chat APIs reject a prompt in which an assistant's tool call has no result, or a tool result
has no call. Exports do not always keep both halves (a ChatGPT tool run without its output, a
log cut mid-turn), so imported messages are paired up: a call still unanswered when the next
non-tool message (or the end) arrives gets a placeholder result, and a result without a call
gets a synthetic call just before it. Nothing is removed or reordered. No I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from reverie.core.messages import Message, ToolCall

NO_RESULT = "(no result was recorded)"


def pair_tool_calls(messages: Sequence[Message]) -> tuple[Message, ...]:
    """Return ``messages`` with placeholder results and synthetic calls added where missing."""
    paired: list[Message] = []
    waiting: dict[str, str] = {}  # call id -> tool name, for calls without a result yet
    for message in messages:
        if message.role == "tool" and message.tool_call_id in waiting:
            del waiting[message.tool_call_id]
            paired.append(message)
            continue
        # Anything else ends the pending calls' turn: answer them before it.
        paired.extend(_placeholders(waiting, _last_time(paired)))
        waiting.clear()
        if message.role == "tool":
            paired.extend(_called(message, len(paired)))
            continue
        paired.append(message)
        if message.role == "assistant":
            waiting.update((call.id, call.name) for call in message.tool_calls)
    paired.extend(_placeholders(waiting, _last_time(paired)))
    return tuple(paired)


def _called(result: Message, position: int) -> list[Message]:
    call_id = result.tool_call_id or f"import-call-{position}"
    call = ToolCall(id=call_id, name=result.name or "tool")
    synthetic = Message(role="assistant", tool_calls=(call,), timestamp=result.timestamp)
    return [synthetic, replace(result, tool_call_id=call_id)]


def _placeholders(waiting: dict[str, str], moment: datetime | None) -> list[Message]:
    return [
        Message(role="tool", tool_call_id=call_id, name=name, content=NO_RESULT, timestamp=moment)
        for call_id, name in waiting.items()
    ]


def _last_time(messages: list[Message]) -> datetime | None:
    return messages[-1].timestamp if messages else None
