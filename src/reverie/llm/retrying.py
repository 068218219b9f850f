"""``RetryingProvider``: what the SDK-backed providers share, retries and client lifetime.

A subclass sets ``model``, ``base_url``, ``_retrier`` and ``_client`` and implements one HTTP
attempt (``_attempt``); ``complete`` runs it under the retry policy and names the endpoint in
the final error (never with credentials: ``display_url``). The SDK client is closed by
``close`` or on leaving a ``with`` block.
"""

from __future__ import annotations

from types import ModuleType, TracebackType
from typing import Any, Protocol, Self

from reverie.core.clock import Clock
from reverie.core.redact import display_url
from reverie.errors import (
    MalformedReplyError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
)
from reverie.llm.failures import http_failure, parse_retry_after
from reverie.llm.provider import ChatReply, ChatRequest
from reverie.llm.retry import Retrier


class _Closable(Protocol):
    def close(self) -> None: ...


class RetryingProvider:
    """Base of the OpenAI-compatible and Anthropic providers."""

    model: str
    base_url: str
    _retrier: Retrier
    _client: _Closable
    _clock: Clock

    def complete(self, request: ChatRequest) -> ChatReply:
        """Send ``request`` and return the reply, retrying transient failures.

        Raises:
            ModelError: the translated failure (see ``reverie.errors``).
        """
        model = request.model or self.model
        return self._retrier.run(
            lambda: self._attempt(request), what=f"{model} at {display_url(self.base_url)}"
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _attempt(self, request: ChatRequest) -> ChatReply:
        raise NotImplementedError

    def _translate_sdk_error(self, sdk: ModuleType, exc: Any, name: str) -> ModelError:
        """Translate an exception of an SDK with the common error classes into ``ModelError``.

        Both official SDKs (``openai``, ``anthropic``) define the same hierarchy:
        ``APITimeoutError``, ``APIConnectionError``, ``APIStatusError`` (status, body, headers)
        and ``APIResponseValidationError``.
        """
        if isinstance(exc, sdk.APITimeoutError):
            return ModelTimeoutError(f"no answer from {display_url(self.base_url)} in time")
        if isinstance(exc, sdk.APIConnectionError):
            return ModelConnectionError(f"cannot reach {display_url(self.base_url)}: {exc}")
        if isinstance(exc, sdk.APIStatusError):
            response = exc.response
            return http_failure(
                response.status_code,
                response.text,
                message=exc.message,
                retry_after=parse_retry_after(response.headers, self._clock()),
            )
        if isinstance(exc, sdk.APIResponseValidationError):
            return MalformedReplyError(
                f"reply from {display_url(self.base_url)} failed validation: {exc}"
            )
        return ModelError(f"{name} SDK error: {exc}")
