"""A ``Provider`` for Anthropic's Messages API, on the official ``anthropic`` SDK (optional).

Install with ``pip install -e '.[anthropic]'``. The SDK is imported only when a provider is
built; without it, construction raises ``ModelNotConfiguredError`` saying what to install, and
the rest of reverie works unchanged. The mapping between reverie's chat-completions-shaped
conversation and the Messages API lives in ``anthropic_wire``; failures are translated into
``reverie.errors`` (Anthropic's "prompt is too long" becomes ``ContextLengthExceededError``;
529 "overloaded" is a 5xx and is retried); retries follow reverie's policy, the SDK's are off.

``temperature`` is sent as a raw body field (this SDK generation dropped the argument; newer
models may refuse it, so leave it None for them). ``reasoning_effort`` is sent as
``output_config.effort`` when it is one the API knows (low, medium, high, xhigh, max) and is
left out otherwise.

Invariants: the API key is never logged, never in ``repr``, never in an error message; nothing
here reads environment variables; every failure leaves as a ``ModelError``.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any

from reverie.config.extras import install_hint
from reverie.core.clock import Clock, system_clock
from reverie.core.redact import display_url
from reverie.errors import (
    ModelError,
    ModelNotConfiguredError,
)
from reverie.llm.anthropic_wire import (
    EFFORTS,
    parse_reply,
    wire_conversation,
    wire_tool,
    wire_tool_choice,
)
from reverie.llm.retry import Retrier, RetryPolicy, Sleep
from reverie.llm.retrying import RetryingProvider

if TYPE_CHECKING:
    import anthropic

    from reverie.llm.provider import ChatReply, ChatRequest

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
_NO_KEY = "no-key"


def _import_sdk() -> Any:
    try:
        import anthropic  # noqa: PLC0415 (optional extra, imported on use)
    except ImportError as exc:
        raise ModelNotConfiguredError(
            "the Anthropic provider needs the 'anthropic' package: " + install_hint("anthropic")
        ) from exc
    return anthropic


class AnthropicProvider(RetryingProvider):
    """Messages from Anthropic's API (or a compatible endpoint).

    Args:
        model: the default model name (a request's ``model`` overrides it).
        api_key: the key, or None for an endpoint that needs none.
        base_url: the API root, without ``/v1``.
        timeout: seconds allowed for one HTTP attempt (a request's ``timeout`` overrides it).
        default_max_tokens: the output cap when a request sets none (the API requires one).
        retry: the retry policy.
        sleep: how to wait between attempts (inject a fake in tests).
        rng: the random source for backoff jitter.
        clock: the time source for Retry-After dates.

    Raises:
        ModelNotConfiguredError: the ``anthropic`` package is not installed.
    """

    def __init__(  # noqa: PLR0913 (keyword-only options)
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str = ANTHROPIC_BASE_URL,
        timeout: float = 60.0,
        default_max_tokens: int = 4096,
        retry: RetryPolicy | None = None,
        sleep: Sleep = time.sleep,
        rng: random.Random | None = None,
        clock: Clock = system_clock,
    ) -> None:
        sdk = _import_sdk()
        if not model:
            raise ValueError("AnthropicProvider needs a model name")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.default_max_tokens = default_max_tokens
        self._clock = clock
        self._retrier = Retrier(retry, sleep=sleep, rng=rng)
        self._client: anthropic.Anthropic = sdk.Anthropic(
            api_key=api_key or _NO_KEY, base_url=self.base_url, timeout=timeout, max_retries=0
        )

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={display_url(self.base_url)!r})"

    def _attempt(self, request: ChatRequest) -> ChatReply:
        import anthropic  # noqa: PLC0415

        try:
            raw = self._client.messages.with_raw_response.create(**self._arguments(request))
            body = raw.read()
        except anthropic.AnthropicError as exc:
            raise self._translate(exc) from exc
        return parse_reply(body)

    def _arguments(self, request: ChatRequest) -> dict[str, Any]:
        conversation = wire_conversation(request.messages)
        arguments: dict[str, Any] = {
            "model": request.model or self.model,
            "messages": conversation.messages,
            "max_tokens": request.max_output_tokens or self.default_max_tokens,
            "timeout": request.timeout or self.timeout,
        }
        if conversation.system:
            arguments["system"] = conversation.system
        if request.tools:
            arguments["tools"] = [wire_tool(schema) for schema in request.tools]
        if request.tool_choice is not None:
            arguments["tool_choice"] = wire_tool_choice(request.tool_choice)
        if request.temperature is not None:
            # This SDK generation no longer has a temperature argument; the wire field remains.
            arguments["extra_body"] = {"temperature": request.temperature}
        if request.reasoning_effort in EFFORTS:
            arguments["output_config"] = {"effort": request.reasoning_effort}
        return arguments

    def _translate(self, exc: anthropic.AnthropicError) -> ModelError:
        import anthropic  # noqa: PLC0415

        return self._translate_sdk_error(anthropic, exc, "Anthropic")
