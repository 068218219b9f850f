"""Endpoints: the model provider a ``ModelConfig`` describes (OpenAI-compatible or Anthropic).

The SDKs are imported only when a provider is built, so ``import reverie`` stays fast and the
Anthropic extra stays optional; ``deferred_provider`` waits until the first model call, so a
command that never calls a model (``reverie status``) never pays for an SDK client. The API
key comes from ``reverie.config.file.api_key`` (env variable or a key file outside the
workspace), never from ``reverie.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from reverie.config.file import api_key
from reverie.config.sections import ModelConfig

if TYPE_CHECKING:
    from reverie.llm.provider import Provider


def build_provider(model: ModelConfig, environ: Mapping[str, str] | None = None) -> Provider | None:
    """Return the provider for ``model``, or None when no model name is configured."""
    if not model.configured:
        return None
    key = api_key(model, environ)
    if model.provider == "anthropic":
        from reverie.llm.anthropic_provider import AnthropicProvider  # noqa: PLC0415 (optional)

        if model.base_url:
            return AnthropicProvider(
                model=model.model,
                api_key=key,
                base_url=model.base_url,
                timeout=model.timeout_seconds,
            )
        return AnthropicProvider(model=model.model, api_key=key, timeout=model.timeout_seconds)
    from reverie.llm.openai_provider import OpenAIProvider  # noqa: PLC0415 (SDK import cost)

    if model.base_url:
        return OpenAIProvider(
            model=model.model, api_key=key, base_url=model.base_url, timeout=model.timeout_seconds
        )
    return OpenAIProvider(model=model.model, api_key=key, timeout=model.timeout_seconds)


def deferred_provider(
    model: ModelConfig, environ: Mapping[str, str] | None = None
) -> Provider | None:
    """Like ``build_provider``, but the provider is built on its first call (``LazyProvider``)."""
    if not model.configured:
        return None
    from reverie.llm.lazy import LazyProvider  # noqa: PLC0415 (a model-free start skips llm)

    return LazyProvider(lambda: _built(model, environ), label=model.model)


def _built(model: ModelConfig, environ: Mapping[str, str] | None) -> Provider:
    built = build_provider(model, environ)
    assert built is not None, "only configured models are deferred"
    return built
