"""Request, reply and settings values: validation, defaults, conversions."""

from __future__ import annotations

import pytest

from reverie.llm.provider import ChatReply, ChatRequest, ToolSchema, Usage
from reverie.llm.settings import DEFAULT_SAFETY_MARGIN, ModelRoles, ModelSettings
from reverie.messages import Message, ToolCall

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


def test_settings_build_requests_and_budget() -> None:
    settings = ModelSettings(
        model="big",
        context_window=128_000,
        max_output_tokens=8_192,
        temperature=0.3,
        reasoning_effort="low",
    )
    assert settings.input_budget() == 128_000 - 8_192 - DEFAULT_SAFETY_MARGIN
    request = settings.request(HI, tool_choice="none", timeout=30)
    assert request.model == "big"
    assert request.max_output_tokens == 8_192
    assert request.temperature == 0.3
    assert request.reasoning_effort == "low"
    assert request.tool_choice == "none"
    assert request.timeout == 30


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"model": "", "context_window": 10, "max_output_tokens": 1}, "model name"),
        ({"model": "m", "context_window": 10, "max_output_tokens": 0}, "positive"),
        ({"model": "m", "context_window": 10, "max_output_tokens": 10}, "must exceed"),
    ],
)
def test_settings_validation(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ModelSettings(**kwargs)  # type: ignore[arg-type]


def test_memory_jobs_use_the_cheaper_model_when_configured() -> None:
    chat = ModelSettings(model="big", context_window=200_000, max_output_tokens=8_000)
    cheap = ModelSettings(model="small", context_window=64_000, max_output_tokens=4_000)
    assert ModelRoles(chat=chat).for_memory is chat
    assert ModelRoles(chat=chat, memory=cheap).for_memory is cheap
