"""Recognising context-length errors in every endpoint's wording, and parsing Retry-After."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie.errors import ContextLengthExceededError, ModelHTTPError, ModelRateLimitError
from reverie.llm.failures import http_failure, is_context_length_message, parse_retry_after

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)

CONTEXT_LENGTH_WORDINGS = {
    "openai": '{"error": {"message": "This model\'s maximum context length is 128000 tokens. '
    'However, your messages resulted in 130412 tokens.", "code": "context_length_exceeded"}}',
    "anthropic": "prompt is too long: 214000 tokens > 200000 maximum",
    "openrouter": "This endpoint's maximum context length is 32768 tokens. However, you requested "
    "about 40000 tokens (39000 of text input, 1000 in the output).",
    "vllm": "The decoder prompt (length 5000) is longer than the maximum model length of 4096. "
    "Make sure that `max_model_len` is no smaller than the number of text tokens.",
    "llama.cpp": '{"error": {"code": 400, "message": "the request exceeds the available context '
    'size, try increasing it", "type": "exceed_context_size_error"}}',
    "llama.cpp-old": "Context size has been exceeded.",
    "lm-studio": "Trying to keep the first 5000 tokens when context the overflows. However, the "
    "model is loaded with context length of only 4096 tokens, which is not enough.",
    "ollama": "prompt too long; exceeded max context length by 120 tokens",
    "mistral": "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 "
    "maximum context length",
    "gemini": "The input token count (1200000) exceeds the maximum number of tokens allowed "
    "(1048576).",
}

OTHER_ERRORS = [
    "Invalid value for 'temperature': expected a number between 0 and 2.",
    "max_tokens is too large: 50000. This model supports at most 16384 completion tokens.",
    "The model `gpt-9` does not exist or you do not have access to it.",
    "Incorrect API key provided.",
]


@pytest.mark.parametrize("text", CONTEXT_LENGTH_WORDINGS.values(), ids=CONTEXT_LENGTH_WORDINGS)
def test_context_length_wordings_are_recognised(text: str) -> None:
    assert is_context_length_message(text)
    error = http_failure(400, text)
    assert isinstance(error, ContextLengthExceededError)
    assert error.status == 400
    assert error.body == text


@pytest.mark.parametrize("text", OTHER_ERRORS)
def test_other_client_errors_are_plain_http_errors(text: str) -> None:
    assert not is_context_length_message(text)
    assert type(http_failure(400, text)) is ModelHTTPError


def test_a_rate_limit_mentioning_tokens_is_still_a_rate_limit() -> None:
    text = (
        "Request too large for gpt-4o: Limit 30000, Requested 50000 tokens per min. "
        "Your prompt is too long for the current rate limit."
    )
    error = http_failure(429, text, retry_after=2.0)
    assert isinstance(error, ModelRateLimitError)
    assert error.retry_after == 2.0


def test_context_length_found_in_sdk_message_when_body_is_empty() -> None:
    error = http_failure(500, "", message="Context size has been exceeded.")
    assert isinstance(error, ContextLengthExceededError)
    assert error.status == 500


def test_error_summary_is_one_line_and_capped() -> None:
    error = http_failure(502, "bad\ngateway " * 100)
    assert "\n" not in str(error)
    assert len(str(error)) < 320
    assert error.body == "bad\ngateway " * 100


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"Retry-After": "-3"}, 0.0),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"Retry-After": "Sun, 01 Mar 2026 12:01:00 GMT"}, 60.0),
        ({"Retry-After": "Sun, 01 Mar 2026 11:00:00 GMT"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "inf"}, None),
        ({}, None),
    ],
)
def test_retry_after_parsing(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers, NOW) == seconds
