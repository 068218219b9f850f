"""The chat-completions mapping, including the deviations of local servers."""

from __future__ import annotations

import json

import pytest

from reverie.core.messages import JSONObject, JSONValue, Message, ToolCall
from reverie.errors import ContextLengthExceededError, MalformedReplyError
from reverie.llm.openai_wire import parse_reply, wire_message


def body(message: JSONObject, finish_reason: object = "stop", **extra: object) -> bytes:
    choice = {"index": 0, "message": message, "finish_reason": finish_reason}
    return json.dumps({"choices": [choice], **extra}).encode()


def test_wire_message_sends_protocol_fields_only() -> None:
    part: JSONObject = {"type": "text", "text": "look"}
    message = Message(role="user", content=(part,), name="ann", extra={"local": 1})
    assert wire_message(message) == {"role": "user", "content": [part], "name": "ann"}


def test_content_parts_in_a_reply_are_joined() -> None:
    parts: list[JSONValue] = [
        {"type": "text", "text": "a"},
        {"type": "refusal"},
        {"type": "text", "text": "b"},
    ]
    assert parse_reply(body({"role": "assistant", "content": parts})).text == "ab"


def test_tool_call_without_id_and_with_object_arguments_is_accepted() -> None:
    call: JSONValue = {"type": "function", "function": {"name": "now", "arguments": {"tz": "UTC"}}}
    reply = parse_reply(body({"role": "assistant", "tool_calls": [call]}, finish_reason="stop"))
    assert reply.tool_calls == (ToolCall(id="call_0", name="now", arguments='{"tz": "UTC"}'),)
    assert reply.finish_reason == "tool_calls"  # Ollama says "stop" next to tool calls


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("content_filter", "content_filter"),
        ("function_call", "tool_calls"),
        ("eos", "stop"),
        (None, "stop"),
        ("something_new", "other"),
    ],
)
def test_finish_reasons_are_normalised(raw: object, expected: str) -> None:
    reply = parse_reply(body({"role": "assistant", "content": "x"}, finish_reason=raw))
    assert reply.finish_reason == expected


def test_usage_absent_or_partial_is_none() -> None:
    assert parse_reply(body({"role": "assistant", "content": "x"})).usage is None
    partial = body({"role": "assistant", "content": "x"}, usage={"prompt_tokens": 3})
    assert parse_reply(partial).usage is None


def test_error_object_in_success_body_keeps_context_length_meaning() -> None:
    raw = json.dumps(
        {"error": {"code": 400, "message": "This model's maximum context length is 4096 tokens."}}
    ).encode()
    with pytest.raises(ContextLengthExceededError):
        parse_reply(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff\xfe not utf-8",
        json.dumps({"choices": [{"message": {"role": "assistant", "content": 5}}]}).encode(),
        json.dumps({"choices": [{"message": {"tool_calls": {"id": "x"}}}]}).encode(),
        json.dumps({"choices": ["nope"]}).encode(),
    ],
)
def test_unreadable_replies_are_malformed(raw: bytes) -> None:
    with pytest.raises(MalformedReplyError):
        parse_reply(raw)
