"""A ``Provider`` for any OpenAI-compatible chat-completions endpoint, on the official SDK.

The ``openai`` SDK does the transport (auth header, base URL, timeouts); reverie does the rest:
request and reply mapping (``openai_wire``), error translation into ``reverie.errors`` (status
and body kept, context-length errors recognised), and the one retry policy (``retry``) — the
SDK's own retries are off (``max_retries=0``). The SDK is imported when a provider is built, so
``import reverie`` stays fast.

Pointing it at an endpoint (``base_url``; ``api_key`` where the server checks one):

=====================  ==========================================  ===========================
endpoint               base_url                                    key
=====================  ==========================================  ===========================
OpenAI                 https://api.openai.com/v1 (the default)     required
OpenRouter             https://openrouter.ai/api/v1                required; model "vendor/name"
DeepSeek               https://api.deepseek.com/v1                 required
vLLM                   http://HOST:8000/v1                         only with ``--api-key``
llama.cpp server       http://HOST:8080/v1                         only with ``--api-key``
LM Studio              http://localhost:1234/v1                    none
Ollama (OpenAI API)    http://localhost:11434/v1                   none (any text is accepted)
=====================  ==========================================  ===========================

The output cap is sent as ``max_completion_tokens`` to api.openai.com (its reasoning models
refuse ``max_tokens``) and as ``max_tokens`` elsewhere, which every local server understands;
``max_tokens_param`` overrides the choice. See docs/providers.md for more.

Invariants: the API key is never logged, never in ``repr``, never in an error message; nothing
here reads environment variables (the SDK is always given a key, so it does not read
``OPENAI_API_KEY`` either); every failure leaves as a ``ModelError``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, cast

from reverie.core.clock import Clock, system_clock
from reverie.core.redact import display_url
from reverie.errors import (
    ModelError,
)
from reverie.llm.openai_wire import parse_reply, wire_message
from reverie.llm.retry import Retrier, RetryPolicy, Sleep
from reverie.llm.retrying import RetryingProvider

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam

    from reverie.llm.provider import ChatReply, ChatRequest

OPENAI_BASE_URL = "https://api.openai.com/v1"
MaxTokensParam = Literal["max_tokens", "max_completion_tokens"]
_NO_KEY = "no-key"  # local servers ignore the header; the SDK insists on some value


class OpenAIProvider(RetryingProvider):
    """Chat completions from an OpenAI-compatible endpoint.

    Args:
        model: the default model name (a request's ``model`` overrides it).
        base_url: the endpoint's ``/v1`` URL.
        api_key: the key, or None for servers that need none.
        timeout: seconds allowed for one HTTP attempt (a request's ``timeout`` overrides it).
        retry: the retry policy (default: 4 attempts, backoff from 1 s).
        sleep: how to wait between attempts (inject a fake in tests).
        rng: the random source for backoff jitter.
        clock: the time source for Retry-After dates.
        max_tokens_param: the name of the output-cap field; None picks by endpoint.
        default_headers: extra headers for every call (e.g. OpenRouter's ``HTTP-Referer``).
    """

    def __init__(  # noqa: PLR0913 (keyword-only options)
        self,
        *,
        model: str,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        sleep: Sleep = time.sleep,
        rng: random.Random | None = None,
        clock: Clock = system_clock,
        max_tokens_param: MaxTokensParam | None = None,
        default_headers: Mapping[str, str] | None = None,
    ) -> None:
        import openai  # noqa: PLC0415 (lazy: keep `import reverie` fast)

        if not model:
            raise ValueError("OpenAIProvider needs a model name")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._clock = clock
        self._retrier = Retrier(retry, sleep=sleep, rng=rng)
        self._max_tokens_param: MaxTokensParam = max_tokens_param or (
            "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
        )
        self._client: openai.OpenAI = openai.OpenAI(
            api_key=api_key or _NO_KEY,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=0,
            default_headers=dict(default_headers or {}),
        )

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={display_url(self.base_url)!r})"

    def _attempt(self, request: ChatRequest) -> ChatReply:
        import openai  # noqa: PLC0415

        cap = request.max_output_tokens
        try:
            raw = self._client.chat.completions.with_raw_response.create(
                model=request.model or self.model,
                messages=cast(
                    "list[ChatCompletionMessageParam]",
                    [wire_message(message) for message in request.messages],
                ),
                tools=_tools(request) if request.tools else openai.omit,
                tool_choice=request.tool_choice or openai.omit,
                max_tokens=cap if cap and self._max_tokens_param == "max_tokens" else openai.omit,
                max_completion_tokens=(
                    cap
                    if cap and self._max_tokens_param == "max_completion_tokens"
                    else openai.omit
                ),
                temperature=request.temperature if request.temperature is not None else openai.omit,
                reasoning_effort=cast("openai.types.ReasoningEffort", request.reasoning_effort)
                or openai.omit,
                timeout=request.timeout or self.timeout,
            )
            body = raw.content
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        return parse_reply(body)

    def _translate(self, exc: openai.OpenAIError) -> ModelError:
        import openai  # noqa: PLC0415

        return self._translate_sdk_error(openai, exc, "OpenAI")


def _tools(request: ChatRequest) -> list[ChatCompletionToolUnionParam]:
    return cast(
        "list[ChatCompletionToolUnionParam]", [schema.to_json() for schema in request.tools]
    )
