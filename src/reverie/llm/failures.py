"""Recognising what an HTTP failure from a model endpoint means.

Adapters call ``http_failure`` with the status, body and headers of an error answer; it returns
the right ``ModelHTTPError`` leaf: ``ContextLengthExceededError`` when the body says the prompt
is too long (in the wordings of OpenAI, Anthropic, DeepSeek, OpenRouter, vLLM, llama.cpp,
LM Studio and Ollama), ``ModelRateLimitError`` for 429, else ``ModelHTTPError``. It also parses
Retry-After (seconds or an HTTP date) into seconds. Pure functions, no I/O, no SDK imports.

Invariant: a 429 is never classified as a context-length error, even when its text mentions
tokens (rate limits on tokens per minute say "Request too large" too).
"""

from __future__ import annotations

import email.utils
import math
import re
from collections.abc import Mapping
from datetime import datetime

from reverie.errors import ContextLengthExceededError, ModelHTTPError, ModelRateLimitError

_CONTEXT_LENGTH = re.compile(
    "|".join(
        (
            r"context_length_exceeded",
            r"exceed_context_size",
            r"max(?:imum)? context length",
            r"context length (?:is |was |has been )?exceeded",
            r"exceed(?:s|ed)? (?:the |your )?(?:model'?s? )?(?:available |max(?:imum)? )?context",
            r"context (?:size|window) (?:has been |was )?exceeded",
            r"context (?:the )?overflows?",
            r"prompt (?:is )?too long",
            r"longer than the maximum model length",
            r"greater than the context length",
            r"input (?:token count|length|is too long).{0,40}(?:exceeds|maximum|context)",
            r"too (?:long|large) for (?:the )?(?:model|context)",
        )
    ),
    re.IGNORECASE,
)

_BODY_EXCERPT = 300


def is_context_length_message(text: str) -> bool:
    """Return whether an error text says the prompt does not fit the context window."""
    return _CONTEXT_LENGTH.search(text) is not None


def parse_retry_after(headers: Mapping[str, str], now: datetime) -> float | None:
    """Return the seconds an endpoint asked to wait, or None if it did not say (or said nonsense).

    Reads ``retry-after-ms`` (milliseconds, a common extension) and ``Retry-After`` (seconds or an
    HTTP date, interpreted against the timezone-aware ``now``). Negative waits become 0.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _parse_number(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _parse_number(raw)
    if seconds is not None:
        return seconds
    try:
        moment = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return max(0.0, (moment - now).total_seconds())


def _parse_number(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return max(0.0, value)


def http_failure(
    status: int,
    body: str,
    *,
    message: str = "",
    retry_after: float | None = None,
) -> ModelHTTPError:
    """Return the ``ModelHTTPError`` leaf an error answer stands for.

    Args:
        status: the HTTP status code.
        body: the response body text (kept whole on the error).
        message: the SDK's own summary of the error, also searched for context-length wording.
        retry_after: seconds from Retry-After, if any.
    """
    summary = _summary(message, body)
    if status == 429:
        return ModelRateLimitError(summary, status=status, body=body, retry_after=retry_after)
    if is_context_length_message(body) or is_context_length_message(message):
        return ContextLengthExceededError(summary, status=status, body=body, retry_after=None)
    return ModelHTTPError(summary, status=status, body=body, retry_after=retry_after)


def _summary(message: str, body: str) -> str:
    text = message or body or "no body"
    text = " ".join(text.split())
    if len(text) > _BODY_EXCERPT:
        text = text[: _BODY_EXCERPT - 3] + "..."
    return text
