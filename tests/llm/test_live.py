"""Opt-in checks against a real OpenAI-compatible endpoint; skipped unless configured.

Set ``REVERIE_LIVE_BASE_URL`` (e.g. http://localhost:11434/v1 for Ollama), and optionally
``REVERIE_LIVE_API_KEY`` and ``REVERIE_LIVE_MODEL``. These tests leave 127.0.0.1 only when
someone asks them to.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from reverie.core.messages import Message
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.provider import ChatRequest, ToolSchema
from reverie.llm.tokens import count_request, default_counter

BASE_URL = os.environ.get("REVERIE_LIVE_BASE_URL", "")
pytestmark = pytest.mark.skipif(not BASE_URL, reason="set REVERIE_LIVE_BASE_URL to run live tests")


@pytest.fixture
def live() -> Iterator[OpenAIProvider]:
    with OpenAIProvider(
        model=os.environ.get("REVERIE_LIVE_MODEL", "gpt-4o-mini"),
        base_url=BASE_URL,
        api_key=os.environ.get("REVERIE_LIVE_API_KEY") or None,
        timeout=120,
    ) as provider:
        yield provider


def test_live_text_reply_reports_usage_near_our_count(live: OpenAIProvider) -> None:
    request = ChatRequest(
        messages=(
            Message(role="system", content="You answer with one word."),
            Message(role="user", content="Say the word: pong"),
        ),
        max_output_tokens=200,
    )
    reply = live.complete(request)
    assert reply.text.strip()
    if reply.usage is not None:
        counted = count_request(request, default_counter())
        assert 0.5 * counted <= reply.usage.prompt_tokens <= 2 * counted


def test_live_tool_call(live: OpenAIProvider) -> None:
    schema = ToolSchema(
        name="get_time",
        description="Return the current time in a timezone.",
        parameters={
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    )
    request = ChatRequest(
        messages=(Message(role="user", content="What time is it in Tokyo? Use the tool."),),
        tools=(schema,),
        tool_choice="required",
        max_output_tokens=300,
    )
    reply = live.complete(request)
    assert reply.tool_calls
    assert reply.tool_calls[0].name == "get_time"
