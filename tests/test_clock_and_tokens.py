from __future__ import annotations

from datetime import datetime

import pytest

from reverie import Message, ToolCall
from reverie.core.clock import require_aware, system_clock
from reverie.core.token_estimate import EstimatingCounter, estimate_tokens


def test_system_clock_is_aware_and_naive_times_are_refused() -> None:
    assert require_aware(system_clock()).tzinfo is not None
    with pytest.raises(ValueError, match="naive"):
        require_aware(datetime(2026, 1, 1))  # noqa: DTZ001


def test_estimates_grow_with_text_and_count_cjk_per_character() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("hello") >= 1
    assert estimate_tokens("你好世界") >= 4
    assert estimate_tokens("word " * 100) > estimate_tokens("word " * 10)


def test_message_estimates_include_overhead_and_tool_calls() -> None:
    counter = EstimatingCounter()
    plain = Message(role="assistant", content="ok")
    calling = Message(
        role="assistant", tool_calls=(ToolCall(id="1", name="search", arguments='{"q": "tea"}'),)
    )
    assert counter.message(plain) > counter.text("ok")
    assert counter.message(calling) > counter.message(Message(role="assistant"))
