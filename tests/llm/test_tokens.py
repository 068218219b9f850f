"""Token counting: the estimator against exact o200k counts, request pricing, calibration."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.core.messages import Message, ToolCall
from reverie.core.token_estimate import MESSAGE_OVERHEAD_TOKENS, EstimatingCounter, estimate_tokens
from reverie.llm.provider import ChatReply, ChatRequest, ToolSchema, Usage
from reverie.llm.tokens import (
    REPLY_PRIMING_TOKENS,
    TOOLS_OVERHEAD_TOKENS,
    CalibratedCounter,
    ExactCounter,
    count_request,
    default_counter,
)

CORPUS = sorted((Path(__file__).parent / "corpus").iterdir())


@pytest.fixture(scope="module")
def exact() -> ExactCounter:
    counter = ExactCounter.load()
    if counter is None:
        pytest.skip("the exact counter needs the 'tokens' extra (toktok)")
    return counter


@pytest.mark.parametrize("sample", CORPUS, ids=[path.name for path in CORPUS])
def test_estimate_is_within_ten_percent_of_exact_o200k(exact: ExactCounter, sample: Path) -> None:
    text = sample.read_text(encoding="utf-8")
    truth = exact.text(text)
    estimate = estimate_tokens(text)
    assert abs(estimate - truth) <= 0.10 * truth, f"{sample.name}: {estimate} vs exact {truth}"


def test_corpus_covers_english_chinese_code_json_and_chat() -> None:
    names = {path.name for path in CORPUS}
    assert {
        "english_prose.txt",
        "chinese_prose.txt",
        "python_code.py.txt",
        "json_api.json",
    } <= names
    assert "mixed_chat.txt" in names


def test_exact_counter_counts_o200k_tokens(exact: ExactCounter) -> None:
    assert exact.encoding == "o200k_base"
    assert exact.text("") == 0
    assert exact.text("hello world") == 2
    assert exact.text("<|endoftext|>") > 1  # special-token text is counted as plain text


def test_exact_counter_rejects_unknown_encodings() -> None:
    with pytest.raises(ValueError, match="unknown encoding"):
        ExactCounter.load("p50k_edit")


def test_default_counter_is_exact_when_installed(exact: ExactCounter) -> None:
    counter = default_counter()
    assert isinstance(counter, ExactCounter)
    assert counter.text("hello world") == exact.text("hello world")


def test_estimate_is_zero_only_for_empty_text_and_prices_cjk_above_latin() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens(" ") == 1
    chinese = "记忆系统把旧的对话压缩成摘要"
    english = "the memory system squeezes old"
    assert len(chinese) < len(english)
    assert estimate_tokens(chinese) > estimate_tokens(english)


def test_message_price_includes_overhead_name_and_tool_calls() -> None:
    counter = EstimatingCounter()
    call = ToolCall(id="c1", name="search", arguments='{"q": "cats"}')
    plain = Message(role="assistant", content="ok")
    with_call = Message(role="assistant", content="ok", tool_calls=(call,))
    assert counter.message(plain) == MESSAGE_OVERHEAD_TOKENS + estimate_tokens("ok")
    assert counter.message(with_call) == counter.message(plain) + MESSAGE_OVERHEAD_TOKENS + (
        estimate_tokens("search") + estimate_tokens(call.arguments)
    )


def test_count_request_adds_messages_tools_and_reply_priming() -> None:
    counter = EstimatingCounter()
    messages = (Message(role="system", content="be brief"), Message(role="user", content="hi"))
    bare = ChatRequest(messages=messages)
    schema = ToolSchema(name="now", description="Current time.")
    with_tools = ChatRequest(messages=messages, tools=(schema,))
    expected = REPLY_PRIMING_TOKENS + sum(counter.message(m) for m in messages)
    assert count_request(bare, counter) == expected
    assert count_request(bare) == expected  # the estimator is the default
    assert count_request(with_tools, counter) == expected + TOOLS_OVERHEAD_TOKENS + counter.text(
        schema.canonical_text()
    )


def test_calibration_learns_a_smoothed_ratio_from_reported_usage() -> None:
    counter = CalibratedCounter(EstimatingCounter(), smoothing=0.5)
    request = ChatRequest(messages=(Message(role="user", content="a fairly ordinary prompt"),))
    counted = count_request(request, counter.base)
    assert counter.ratio == 1.0
    first, second = round(counted * 1.2), round(counted * 1.4)
    counter.observe(request, first)
    assert counter.ratio == pytest.approx(first / counted)
    counter.observe(request, second)
    assert counter.ratio == pytest.approx((first / counted + second / counted) / 2)
    assert counter.observations == 2
    assert counter.text("x" * 400) >= round(estimate_tokens("x" * 400) * 1.25)


def test_calibration_is_bounded_and_ignores_replies_without_usage() -> None:
    counter = CalibratedCounter(bounds=(0.8, 1.5))
    request = ChatRequest(messages=(Message(role="user", content="short"),))
    counter.observe_reply(request, ChatReply(text="no usage"))
    assert counter.observations == 0
    counter.observe_reply(
        request, ChatReply(usage=Usage(prompt_tokens=100_000, completion_tokens=1))
    )
    assert counter.ratio == 1.5
    counter.observe(request, 0)
    assert counter.observations == 1
    for _ in range(20):
        counter.observe(request, 1)
    assert counter.ratio == pytest.approx(0.8, rel=1e-2)
    assert counter.ratio >= 0.8


def test_calibrated_counts_round_up() -> None:
    counter = CalibratedCounter()
    message = Message(role="user", content="hello there")
    request = ChatRequest(messages=(message,))
    counter.observe(request, count_request(request) * 3 // 2 + 1)
    assert 1.5 < counter.ratio < 1.6
    base = counter.base.message(message)
    assert counter.message(message) == math.ceil(base * counter.ratio)
    assert counter.message(message) > base * 1.5


@pytest.mark.parametrize(
    ("smoothing", "bounds"),
    [(0.0, (0.5, 2.0)), (1.5, (0.5, 2.0)), (0.3, (1.2, 2.0)), (0.3, (0.0, 2.0))],
)
def test_calibration_rejects_bad_parameters(smoothing: float, bounds: tuple[float, float]) -> None:
    with pytest.raises(ValueError, match="must"):
        CalibratedCounter(smoothing=smoothing, bounds=bounds)


def test_without_the_tokens_extra_the_estimator_is_the_default() -> None:
    program = (
        "import sys\n"
        "sys.modules['toktok'] = None  # an environment without the 'tokens' extra\n"
        "from reverie.llm.tokens import ExactCounter, default_counter\n"
        "print(ExactCounter.load(), type(default_counter()).__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.split() == ["None", "EstimatingCounter"]
