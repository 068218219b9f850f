"""``parse_responses``: a Responses API body as the chat call the proxy runs (pure, no I/O)."""

from __future__ import annotations

from typing import Any

import pytest

from reverie.serve.chat_request import BadRequestError
from reverie.serve.responses_request import parse_responses


def _known(response_id: str) -> str | None:
    return {"resp_1": "tg:ada"}.get(response_id)


def test_items_options_and_tools_become_the_chat_request() -> None:
    body: Any = {
        "model": "m",
        "instructions": "Be brief.",
        "max_output_tokens": 50,
        "tool_choice": {"type": "function", "name": "weather"},
        "text": {"format": {"type": "json_schema", "name": "w", "schema": {"type": "object"}}},
        "tools": [{"type": "function", "name": "weather", "strict": True}],
        "previous_response_id": "resp_1",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Use metric."}],
            },
            {"type": "reasoning", "summary": []},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look:"},
                    {"type": "input_image", "image_url": "https://x/i.png"},
                ],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Let me check."}],
            },
            {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [{"type": "input_text", "text": "sunny"}],
            },
        ],
    }
    call = parse_responses(body, {}, _known)
    assert call.session == "tg:ada"
    assert call.instructions == ("Be brief.", "Use metric.")
    assert [m.role for m in call.conversation] == ["user", "assistant", "tool"]
    assert isinstance(call.conversation[0].content, tuple)
    assert call.conversation[1].text == "Let me check."
    assert call.conversation[1].tool_calls[0].id == "c1"
    assert call.conversation[2].text == "sunny"
    assert call.body["max_tokens"] == 50
    assert call.body["tool_choice"] == {"type": "function", "function": {"name": "weather"}}
    assert call.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "w", "schema": {"type": "object"}},
    }
    assert call.tools[0].name == "weather"


def test_the_session_comes_from_the_header_then_conversation_then_metadata() -> None:
    header = {"x-reverie-session": "h"}
    assert parse_responses({"input": "x", "conversation": "c"}, header, _known).session == "h"
    assert parse_responses({"input": "x", "conversation": {"id": "c"}}, {}, _known).session == "c"
    meta: Any = {"input": "x", "metadata": {"conversation_id": "m"}}
    assert parse_responses(meta, {}, _known).session == "m"
    assert parse_responses({"input": "x"}, {}, _known).session == "api:default"
    assert (
        parse_responses({"input": "x", "tool_choice": "none"}, {}, _known).body["tool_choice"]
        == "none"
    )
    assert parse_responses(
        {"input": "x", "text": {"format": {"type": "json_object"}}}, {}, _known
    ).body["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ([], None),
        ({"input": "x", "instructions": 3}, "instructions"),
        ({"input": [3]}, "input[0]"),
        ({"input": [{"type": "item_reference", "id": "x"}]}, "input[0]"),
        ({"input": [{"role": "user", "content": 3}]}, "input[0].content"),
        ({"input": [{"role": "user", "content": [{"type": "input_file"}]}]}, "input[0].content[0]"),
        (
            {"input": [{"role": "system", "content": [{"type": "input_image", "image_url": "u"}]}]},
            "input[0]",
        ),
        ({"input": [{"type": "function_call_output", "output": "x"}]}, "input[0]"),
        ({"input": "x", "tools": {}}, "tools"),
        ({"input": "x", "tools": [{"type": "function"}]}, "tools[0]"),
        ({"input": "x", "tool_choice": "sometimes"}, "tool_choice"),
        ({"input": "x", "conversation": ""}, "conversation"),
        ({"input": "x", "metadata": []}, "metadata"),
        ({"input": "x", "metadata": {"session": "cron:x"}}, "metadata.session"),
    ],
)
def test_a_bad_body_names_its_field(body: Any, param: str | None) -> None:
    with pytest.raises(BadRequestError) as caught:
        parse_responses(body, {}, _known)
    assert caught.value.param == param


@pytest.mark.parametrize(
    ("body", "headers", "param", "said"),
    [
        ({"input": "x"}, {"x-reverie-session": "k" * 1025}, "x-reverie-session", "at most 1024"),
        ({"input": "x", "conversation": "c" * 1025}, {}, "conversation", "at most 1024"),
        ({"input": "x", "conversation": "ok\ud800"}, {}, "conversation", "not valid Unicode"),
        ({"input": "x", "metadata": {"session": "m" * 1025}}, {}, "metadata.session", "1,025"),
        ({"input": "x"}, {"x-reverie-session": "dream:x"}, "x-reverie-session", "reserved"),
    ],
)
def test_a_session_key_is_checked_as_the_chat_route_checks_it(
    body: Any, headers: dict[str, str], param: str, said: str
) -> None:
    with pytest.raises(BadRequestError) as caught:
        parse_responses(body, headers, _known)
    assert caught.value.param == param
    assert said in str(caught.value)
