"""The OpenAI-compatible provider, exercised only through the loopback HTTP server."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import cast

import pytest

from reverie.core.messages import JSONObject, Message, ToolCall
from reverie.errors import (
    ContextLengthExceededError,
    MalformedReplyError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelTimeoutError,
)
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.provider import ChatRequest, ToolSchema, Usage
from reverie.llm.retry import RetryPolicy
from tests.llm.loopback import (
    LoopbackServer,
    ScriptedResponse,
    chat_text,
    chat_tool_calls,
    context_length_error,
    http_error,
)

SECRET = "sk-test-DO-NOT-LEAK-4f9a2c"
NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def provider(loopback: LoopbackServer, sleeps: list[float]) -> Iterator[OpenAIProvider]:
    with OpenAIProvider(
        model="test-model",
        base_url=loopback.base_url,
        api_key=SECRET,
        timeout=5.0,
        sleep=sleeps.append,
        rng=random.Random(7),
        clock=lambda: NOW,
    ) as made:
        yield made


def ask(text: str = "hello", **kwargs: object) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=text),), **kwargs)  # type: ignore[arg-type]


def test_text_reply_maps_text_usage_model_and_finish_reason(
    provider: OpenAIProvider, loopback: LoopbackServer
) -> None:
    loopback.script(chat_text("hi there", usage=(11, 2), model="served-model"))
    reply = provider.complete(ask(max_output_tokens=50, temperature=0.2))
    assert reply.text == "hi there"
    assert reply.finish_reason == "stop"
    assert reply.usage == Usage(prompt_tokens=11, completion_tokens=2)
    assert reply.model == "served-model"
    assert reply.tool_calls == ()


def test_request_body_carries_messages_settings_and_bearer_key(
    provider: OpenAIProvider, loopback: LoopbackServer
) -> None:
    loopback.script(chat_text("ok"))
    system = Message(role="system", content="be brief", extra={"local_only": True})
    user = Message(role="user", content="hi", timestamp=NOW)
    request = ChatRequest(
        messages=(system, user), max_output_tokens=64, temperature=0.5, reasoning_effort="low"
    )
    provider.complete(request)
    [recorded] = loopback.requests
    body = recorded.json()
    assert recorded.headers["authorization"] == f"Bearer {SECRET}"
    assert body["model"] == "test-model"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert body["max_tokens"] == 64
    assert "max_completion_tokens" not in body
    assert body["temperature"] == 0.5
    assert body["reasoning_effort"] == "low"
    assert "tools" not in body


def test_request_model_overrides_default_and_completion_tokens_param_is_selectable(
    loopback: LoopbackServer,
) -> None:
    loopback.script(chat_text("ok"))
    with OpenAIProvider(
        model="default", base_url=loopback.base_url, max_tokens_param="max_completion_tokens"
    ) as provider:
        provider.complete(ask(model="cheap-model", max_output_tokens=9))
    [body] = loopback.bodies()
    assert body["model"] == "cheap-model"
    assert body["max_completion_tokens"] == 9
    assert "max_tokens" not in body


def test_tool_call_reply_and_tool_round_trip(
    provider: OpenAIProvider, loopback: LoopbackServer
) -> None:
    loopback.script(
        chat_tool_calls([("call_1", "search", '{"q": "cats"}'), ("call_2", "now", "{}")]),
        chat_text("found cats"),
    )
    schema = ToolSchema(
        name="search",
        description="Search notes.",
        parameters={"type": "object", "properties": {"q": {"type": "string"}}},
    )
    first = provider.complete(ask("find cats", tools=(schema,), tool_choice="auto"))
    assert first.finish_reason == "tool_calls"
    assert first.tool_calls == (
        ToolCall(id="call_1", name="search", arguments='{"q": "cats"}'),
        ToolCall(id="call_2", name="now", arguments="{}"),
    )
    result = Message(role="tool", content="3 notes", tool_call_id="call_1", name="search")
    follow_up = ChatRequest(
        messages=(Message(role="user", content="find cats"), first.to_message(), result),
        tools=(schema,),
    )
    assert provider.complete(follow_up).text == "found cats"
    sent_first, sent_second = loopback.bodies()
    assert sent_first["tools"] == [schema.to_json()]
    assert sent_first["tool_choice"] == "auto"
    assistant, tool = cast("list[JSONObject]", sent_second["messages"])[1:]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [call.to_json() for call in first.tool_calls],
    }
    assert tool == {
        "role": "tool",
        "content": "3 notes",
        "tool_call_id": "call_1",
        "name": "search",
    }


def test_rate_limit_then_success_waits_exactly_retry_after(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(
        http_error(429, "slow down", code="rate_limit_exceeded", headers={"Retry-After": "7"}),
        chat_text("finally"),
    )
    assert provider.complete(ask()).text == "finally"
    assert sleeps == [7.0]
    assert len(loopback.requests) == 2


def test_retry_after_as_http_date_is_measured_against_the_clock(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(
        http_error(503, "busy", headers={"Retry-After": "Sun, 01 Mar 2026 12:00:30 GMT"}),
        chat_text("ok"),
    )
    provider.complete(ask())
    assert sleeps == [30.0]


def test_server_errors_are_retried_with_growing_backoff_then_raised_clearly(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(*[http_error(500, "upstream exploded", error_type="server_error")] * 4)
    with pytest.raises(ModelHTTPError) as caught:
        provider.complete(ask())
    error = caught.value
    assert error.status == 500
    assert "upstream exploded" in error.body
    assert "upstream exploded" in str(error)
    assert error.attempts == 4
    assert "gave up after 4 attempts" in error.__notes__
    assert len(loopback.requests) == 4
    assert len(sleeps) == 3
    for retry, wait in enumerate(sleeps, start=1):
        step = 2 ** (retry - 1)
        assert step / 2 <= wait <= step
    assert loopback.pending() == 0


def test_rate_limit_with_too_long_retry_after_is_not_waited_for(
    loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(http_error(429, "quota", headers={"Retry-After": "3600"}))
    with (
        OpenAIProvider(
            model="m", base_url=loopback.base_url, sleep=sleeps.append, retry=RetryPolicy()
        ) as provider,
        pytest.raises(ModelRateLimitError) as caught,
    ):
        provider.complete(ask())
    assert caught.value.retry_after == 3600.0
    assert sleeps == []


def test_client_error_is_not_retried(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(http_error(400, "unknown parameter: frobnicate"), chat_text("never sent"))
    with pytest.raises(ModelHTTPError) as caught:
        provider.complete(ask())
    assert caught.value.status == 400
    assert type(caught.value) is ModelHTTPError
    assert "frobnicate" in caught.value.body
    assert sleeps == []
    assert loopback.pending() == 1


def test_context_length_error_is_recognised_and_not_retried(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(context_length_error(limit=8192, requested=9100))
    with pytest.raises(ContextLengthExceededError) as caught:
        provider.complete(ask())
    assert caught.value.status == 400
    assert "9100" in caught.value.body
    assert sleeps == []
    assert len(loopback.requests) == 1


def test_timeout_is_translated_and_retried(loopback: LoopbackServer, sleeps: list[float]) -> None:
    loopback.script(ScriptedResponse(delay=5.0), chat_text("in time"))
    with OpenAIProvider(
        model="m", base_url=loopback.base_url, timeout=0.3, sleep=sleeps.append
    ) as provider:
        assert provider.complete(ask()).text == "in time"
    assert len(sleeps) == 1


def test_timeout_with_no_retries_left_raises_model_timeout(loopback: LoopbackServer) -> None:
    loopback.script(ScriptedResponse(delay=5.0))
    with (
        OpenAIProvider(
            model="m", base_url=loopback.base_url, retry=RetryPolicy(max_attempts=1)
        ) as provider,
        pytest.raises(ModelTimeoutError),
    ):
        provider.complete(ask(timeout=0.3))


def test_empty_model_name_is_refused() -> None:
    with pytest.raises(ValueError, match="model name"):
        OpenAIProvider(model="")


def test_unreachable_endpoint_raises_connection_error_after_retries(sleeps: list[float]) -> None:
    with LoopbackServer() as gone:
        url = gone.base_url
    with (
        OpenAIProvider(model="m", base_url=url, sleep=sleeps.append) as provider,
        pytest.raises(ModelConnectionError) as caught,
    ):
        provider.complete(ask())
    assert caught.value.attempts == 4
    assert len(sleeps) == 3


@pytest.mark.parametrize(
    "body",
    [
        b"{this is not json",
        b"[1, 2, 3]",
        b'{"id": "x", "choices": []}',
        b'{"choices": [{"index": 0}]}',
        b'{"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c"}]}}]}',
    ],
)
def test_malformed_replies_raise_malformed_reply_without_retry(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float], body: bytes
) -> None:
    loopback.script(ScriptedResponse(body=body, headers={"Content-Type": "application/json"}))
    with pytest.raises(MalformedReplyError):
        provider.complete(ask())
    assert sleeps == []


def test_error_object_in_a_success_body_becomes_an_http_error(
    provider: OpenAIProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(
        ScriptedResponse.json({"error": {"code": 502, "message": "provider returned error"}}),
        chat_text("second try"),
    )
    assert provider.complete(ask()).text == "second try"
    assert len(sleeps) == 1


def test_api_key_is_never_in_repr_errors_or_logs(
    provider: OpenAIProvider, loopback: LoopbackServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    loopback.script(
        http_error(500, "boom"),
        chat_text("ok"),
        http_error(401, "bad key"),
    )
    provider.complete(ask())
    with pytest.raises(ModelHTTPError) as caught:
        provider.complete(ask())
    assert SECRET not in repr(provider)
    assert SECRET not in str(caught.value)
    assert caplog.records, "expected the retry to be logged"
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    assert SECRET not in caplog.text
