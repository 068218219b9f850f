"""Request, reply and settings values: validation, defaults, conversions."""

from __future__ import annotations

import pytest

from reverie.core.messages import Message, ToolCall
from reverie.llm.provider import ChatReply, ChatRequest, ToolSchema, Usage

HI = (Message(role="user", content="hi"),)


def test_request_needs_messages_and_positive_limits() -> None:
    with pytest.raises(ValueError, match="at least one message"):
        ChatRequest(messages=())
    with pytest.raises(ValueError, match="max_output_tokens"):
        ChatRequest(messages=HI, max_output_tokens=0)
    with pytest.raises(ValueError, match="timeout"):
        ChatRequest(messages=HI, timeout=0)


def test_request_description_is_short() -> None:
    request = ChatRequest(messages=(Message(role="user", content="word " * 100),))
    description = request.describe()
    assert description.startswith("1 message(s), first user:")
    assert len(description) < 120


def test_reply_becomes_an_assistant_message() -> None:
    call = ToolCall(id="c", name="f")
    assert ChatReply(text="hi").to_message() == Message(role="assistant", content="hi")
    only_calls = ChatReply(tool_calls=(call,), finish_reason="tool_calls").to_message()
    assert only_calls.content is None
    assert only_calls.tool_calls == (call,)
    assert Usage(prompt_tokens=3, completion_tokens=4).total_tokens == 7


def test_tool_schema_json_forms() -> None:
    schema = ToolSchema(name="now", description="Current time.")
    assert schema.to_json()["function"] == {
        "name": "now",
        "description": "Current time.",
        "parameters": {"type": "object", "properties": {}},
    }
    assert (
        schema.canonical_text()
        == ToolSchema(name="now", description="Current time.").canonical_text()
    )
