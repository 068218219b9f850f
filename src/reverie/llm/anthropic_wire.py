"""The Anthropic Messages wire format: reverie values to request JSON, reply JSON to values.

reverie's conversation is in the chat-completions shape; the Messages API differs, and this
module owns the mapping: system messages become the top-level ``system`` text; assistant tool
calls become ``tool_use`` blocks; tool results become ``tool_result`` blocks inside a user
message; consecutive messages that land on the same role are merged (the API wants turns to
alternate); ``stop_reason`` maps onto reverie's finish reasons; cached input tokens count as
prompt tokens. Pure functions: no SDK, no I/O.

Invariants: no empty text block is ever sent (the API rejects them); a reply that cannot be
read raises ``MalformedReplyError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from reverie.core.messages import JSONObject, JSONValue, Message, ToolCall
from reverie.errors import MalformedReplyError
from reverie.llm.provider import ChatReply, FinishReason, ToolChoice, ToolSchema, Usage

if TYPE_CHECKING:
    from collections.abc import Sequence

_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
_TOOL_CHOICE: dict[ToolChoice, JSONObject] = {
    "auto": {"type": "auto"},
    "required": {"type": "any"},
    "none": {"type": "none"},
}
EFFORTS = frozenset({"low", "medium", "high", "xhigh", "max"})


@dataclass(frozen=True, slots=True, kw_only=True)
class WireConversation:
    """A conversation in Messages API form: the system text and the alternating turns."""

    system: str
    messages: list[JSONObject]


def wire_conversation(messages: Sequence[Message]) -> WireConversation:
    """Map chat-completions-shaped messages onto the Messages API."""
    system = [m.text for m in messages if m.role == "system" and m.text]
    turns: list[JSONObject] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            cast("list[JSONValue]", turns[-1]["content"]).extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return WireConversation(system="\n\n".join(system), messages=turns)


def _blocks(message: Message) -> list[JSONValue]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.text,
            }
        ]
    blocks: list[JSONValue] = []
    if isinstance(message.content, tuple):
        blocks.extend(_part(part) for part in message.content)
    elif message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks.extend(_tool_use(call) for call in message.tool_calls)
    return [b for b in blocks if not (isinstance(b, dict) and b.get("text") == "")]


def _part(part: JSONObject) -> JSONValue:
    if part.get("type") == "text":
        return {"type": "text", "text": part.get("text")}
    return dict(part)  # other part types (images, documents) are the caller's to shape


def _tool_use(call: ToolCall) -> JSONObject:
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        # tool_use input must be an object; keep what the model wrote so nothing is lost
        arguments = {"_unparsed_arguments": call.arguments}
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments}


def wire_tool(schema: ToolSchema) -> JSONObject:
    """Return the Messages API tool definition for ``schema``."""
    return {
        "name": schema.name,
        "description": schema.description,
        "input_schema": dict(schema.parameters),
    }


def wire_tool_choice(choice: ToolChoice) -> JSONObject:
    """Return the Messages API ``tool_choice`` for reverie's ``choice``."""
    return dict(_TOOL_CHOICE[choice])


def parse_reply(raw: bytes) -> ChatReply:
    """Parse a Messages API response body into a ``ChatReply``.

    Raises:
        MalformedReplyError: the body is not JSON or lacks a content list.
    """
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedReplyError(f"reply is not JSON: {raw[:200]!r}") from exc
    if not isinstance(body, dict) or not isinstance(body.get("content"), list):
        raise MalformedReplyError(f"reply has no content list: {raw[:200]!r}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in body["content"]:
        if not isinstance(block, dict):
            raise MalformedReplyError("reply content block is not an object")
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use":
            calls.append(_parse_tool_use(block))
    model = body.get("model")
    return ChatReply(
        text="".join(texts),
        tool_calls=tuple(calls),
        finish_reason=_STOP.get(str(body.get("stop_reason")), "other"),
        usage=_usage(body.get("usage")),
        model=model if isinstance(model, str) else "",
    )


def _parse_tool_use(block: JSONObject) -> ToolCall:
    call_id, name = block.get("id"), block.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise MalformedReplyError("reply tool_use block needs string 'id' and 'name'")
    arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _usage(raw: JSONValue) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    counts = [
        raw.get(key)
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    output = raw.get("output_tokens")
    if not isinstance(counts[0], int) or not isinstance(output, int):
        return None
    prompt = sum(count for count in counts if isinstance(count, int))
    return Usage(prompt_tokens=prompt, completion_tokens=output)
