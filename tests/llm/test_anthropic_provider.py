"""The Anthropic provider: the official SDK pointed at the loopback server's /v1/messages."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from reverie.config.extras import install_hint
from reverie.core.messages import JSONObject, Message, ToolCall
from reverie.errors import (
    ContextLengthExceededError,
    MalformedReplyError,
    ModelConnectionError,
    ModelHTTPError,
    ModelNotConfiguredError,
    ModelTimeoutError,
)
from reverie.llm.anthropic_provider import AnthropicProvider
from reverie.llm.provider import ChatRequest, ToolSchema, Usage
from reverie.llm.retry import RetryPolicy
from tests.llm.loopback import (
    MESSAGES_PATH,
    LoopbackServer,
    ScriptedResponse,
    anthropic_error,
    anthropic_text,
    anthropic_tool_use,
)

KEY = "sk-ant-test-SECRET-91c"


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def provider(loopback: LoopbackServer, sleeps: list[float]) -> Iterator[AnthropicProvider]:
    with AnthropicProvider(
        model="claude-test", api_key=KEY, base_url=loopback.root_url, sleep=sleeps.append
    ) as made:
        yield made


def user(text: str) -> Message:
    return Message(role="user", content=text)


def test_text_reply_with_system_prompt_extracted(
    provider: AnthropicProvider, loopback: LoopbackServer
) -> None:
    loopback.script(anthropic_text("bonjour", usage=(21, 3)), path=MESSAGES_PATH)
    request = ChatRequest(
        messages=(
            Message(role="system", content="You are terse."),
            Message(role="system", content="Answer in French."),
            user("hello"),
        ),
        temperature=0.1,
    )
    reply = provider.complete(request)
    assert reply.text == "bonjour"
    assert reply.finish_reason == "stop"
    assert reply.usage == Usage(prompt_tokens=21, completion_tokens=3)
    assert reply.model == "claude-loopback"
    [recorded] = loopback.requests
    body = recorded.json()
    assert any(KEY in value for value in recorded.headers.values())  # the SDK's auth header
    assert body["system"] == "You are terse.\n\nAnswer in French."
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]
    assert body["max_tokens"] == 4096
    assert body["temperature"] == 0.1
    assert "tools" not in body
    assert KEY not in repr(provider)


def test_tool_calls_and_results_map_to_tool_use_and_merged_tool_result_blocks(
    provider: AnthropicProvider, loopback: LoopbackServer
) -> None:
    loopback.script(anthropic_text("done"), path=MESSAGES_PATH)
    calls = (
        ToolCall(id="toolu_1", name="read", arguments='{"path": "a.md"}'),
        ToolCall(id="toolu_2", name="read", arguments="not json"),
    )
    schema = ToolSchema(
        name="read", description="Read a file.", parameters={"type": "object", "properties": {}}
    )
    request = ChatRequest(
        messages=(
            user("read both"),
            Message(role="assistant", content="Reading.", tool_calls=calls),
            Message(role="tool", content="A", tool_call_id="toolu_1"),
            Message(role="tool", content="B", tool_call_id="toolu_2"),
            user("and now?"),
        ),
        tools=(schema,),
        tool_choice="required",
        max_output_tokens=100,
        reasoning_effort="high",
    )
    provider.complete(request)
    [body] = loopback.bodies(MESSAGES_PATH)
    assert body["tools"] == [
        {"name": "read", "description": "Read a file.", "input_schema": dict(schema.parameters)}
    ]
    assert body["tool_choice"] == {"type": "any"}
    assert body["max_tokens"] == 100
    assert body["output_config"] == {"effort": "high"}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "read both"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.md"}},
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "read",
                    "input": {"_unparsed_arguments": "not json"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "B"},
                {"type": "text", "text": "and now?"},
            ],
        },
    ]


def test_tool_use_reply_becomes_tool_calls(
    provider: AnthropicProvider, loopback: LoopbackServer
) -> None:
    loopback.script(
        anthropic_tool_use([("toolu_9", "search", {"q": "猫", "n": 3})], text="Let me look."),
        path=MESSAGES_PATH,
    )
    reply = provider.complete(ChatRequest(messages=(user("find cats"),)))
    assert reply.finish_reason == "tool_calls"
    assert reply.text == "Let me look."
    assert reply.tool_calls == (
        ToolCall(id="toolu_9", name="search", arguments='{"q": "猫", "n": 3}'),
    )


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("stop_sequence", "stop"),
        ("pause_turn", "other"),
    ],
)
def test_stop_reasons_map_to_finish_reasons(
    provider: AnthropicProvider, loopback: LoopbackServer, stop_reason: str, finish_reason: str
) -> None:
    loopback.script(anthropic_text("…", stop_reason=stop_reason), path=MESSAGES_PATH)
    assert provider.complete(ChatRequest(messages=(user("hi"),))).finish_reason == finish_reason


def test_cached_input_tokens_count_as_prompt_tokens(
    provider: AnthropicProvider, loopback: LoopbackServer
) -> None:
    body: JSONObject = {
        "type": "message",
        "role": "assistant",
        "model": "claude-loopback",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 1000,
            "output_tokens": 2,
        },
    }
    loopback.script(ScriptedResponse.json(body), path=MESSAGES_PATH)
    reply = provider.complete(ChatRequest(messages=(user("hi"),)))
    assert reply.usage == Usage(prompt_tokens=1110, completion_tokens=2)


def test_prompt_too_long_is_a_context_length_error(
    provider: AnthropicProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(
        anthropic_error(
            400,
            "prompt is too long: 214000 tokens > 200000 maximum",
            error_type="invalid_request_error",
        ),
        path=MESSAGES_PATH,
    )
    with pytest.raises(ContextLengthExceededError) as caught:
        provider.complete(ChatRequest(messages=(user("hi"),)))
    assert caught.value.status == 400
    assert sleeps == []


def test_overloaded_is_retried_then_succeeds(
    provider: AnthropicProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(
        anthropic_error(529, "Overloaded", error_type="overloaded_error"),
        anthropic_text("back"),
        path=MESSAGES_PATH,
    )
    assert provider.complete(ChatRequest(messages=(user("hi"),))).text == "back"
    assert len(sleeps) == 1


def test_authentication_error_is_not_retried_and_keeps_the_body(
    provider: AnthropicProvider, loopback: LoopbackServer, sleeps: list[float]
) -> None:
    loopback.script(
        anthropic_error(401, "invalid x-api-key", error_type="authentication_error"),
        path=MESSAGES_PATH,
    )
    with pytest.raises(ModelHTTPError) as caught:
        provider.complete(ChatRequest(messages=(user("hi"),)))
    assert caught.value.status == 401
    assert "authentication_error" in caught.value.body
    assert KEY not in str(caught.value)
    assert sleeps == []


@pytest.mark.parametrize("body", [b"<html>bad gateway</html>", b'{"type": "message"}'])
def test_malformed_reply(
    provider: AnthropicProvider, loopback: LoopbackServer, body: bytes
) -> None:
    loopback.script(ScriptedResponse(body=body), path=MESSAGES_PATH)
    with pytest.raises(MalformedReplyError):
        provider.complete(ChatRequest(messages=(user("hi"),)))


def test_timeout_and_unreachable_endpoint_are_translated(loopback: LoopbackServer) -> None:
    loopback.script(ScriptedResponse(delay=5.0), path=MESSAGES_PATH)
    no_retry = RetryPolicy(max_attempts=1)
    with (
        AnthropicProvider(model="m", base_url=loopback.root_url, retry=no_retry) as provider,
        pytest.raises(ModelTimeoutError),
    ):
        provider.complete(ChatRequest(messages=(user("hi"),), timeout=0.3))
    with LoopbackServer() as gone:
        url = gone.root_url
    with (
        AnthropicProvider(model="m", base_url=url, retry=no_retry) as provider,
        pytest.raises(ModelConnectionError),
    ):
        provider.complete(ChatRequest(messages=(user("hi"),)))


def test_empty_model_name_is_refused() -> None:
    with pytest.raises(ValueError, match="model name"):
        AnthropicProvider(model="")


def test_missing_sdk_raises_model_not_configured() -> None:
    program = (
        "import sys\n"
        "sys.modules['anthropic'] = None  # what an environment without the extra looks like\n"
        "from reverie.errors import ModelNotConfiguredError\n"
        "from reverie.llm.anthropic_provider import AnthropicProvider\n"
        "try:\n"
        "    AnthropicProvider(model='m')\n"
        "except ModelNotConfiguredError as exc:\n"
        "    print(exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert install_hint("anthropic") in result.stdout
    assert issubclass(ModelNotConfiguredError, Exception)
