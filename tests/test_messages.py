from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie import Message, ToolCall
from reverie.core.messages import JSONObject, MessageFormatError


def test_message_round_trips_with_tool_calls_and_extra_fields() -> None:
    raw: JSONObject = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
        ],
        "reasoning_content": "kept verbatim",
        "timestamp": "2026-11-30T09:00:00+00:00",
    }
    message = Message.from_json(raw)
    assert message.tool_calls == (ToolCall(id="c1", name="search", arguments="{}"),)
    assert message.extra == {"reasoning_content": "kept verbatim"}
    assert message.timestamp == datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    assert message.to_json() == raw


def test_content_parts_give_their_text() -> None:
    message = Message.from_json(
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {}}],
            "name": "lin",
        }
    )
    assert message.text == "hi"
    assert message.to_json()["content"] == [
        {"type": "text", "text": "hi"},
        {"type": "image_url", "image_url": {}},
    ]
    assert Message(role="assistant").text == ""
    tool = Message.from_json({"role": "tool", "content": "42", "tool_call_id": "c1"})
    assert tool.to_json() == {"role": "tool", "content": "42", "tool_call_id": "c1"}


def test_tool_call_arguments_given_as_objects_become_json_text() -> None:
    call = ToolCall.from_json({"id": "a", "function": {"name": "f", "arguments": {"q": "x"}}})
    assert call.arguments == '{"q": "x"}'
    empty = ToolCall.from_json({"id": "a", "function": {"name": "f"}})
    assert empty.arguments == "{}"
    numeric = ToolCall.from_json({"id": "a", "function": {"name": "f", "arguments": 3}})
    assert numeric.arguments == "3"


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("text", "must be an object"),
        ({"role": "robot"}, "role must be one of"),
        ({"role": "user", "content": 5}, "'content' must be"),
        ({"role": "user", "tool_calls": {}}, "'tool_calls' must be a list"),
        ({"role": "user", "tool_calls": ["x"]}, "tool call must be an object"),
        ({"role": "user", "tool_calls": [{"id": "a"}]}, "no 'function' object"),
        ({"role": "user", "tool_calls": [{"id": 1, "function": {}}]}, "string 'id'"),
        ({"role": "user", "name": 3}, "'name' must be a string"),
        ({"role": "user", "timestamp": 3}, "ISO 8601 string"),
        ({"role": "user", "timestamp": "yesterday"}, "not ISO 8601"),
    ],
)
def test_invalid_messages_say_what_is_wrong(raw: object, fragment: str) -> None:
    with pytest.raises(MessageFormatError, match=fragment):
        Message.from_json(raw)  # type: ignore[arg-type]
