"""The allowed range and meaning of every setting, checked once when the settings are loaded.

A value out of range used to pass and fail later, sometimes after a dream commit
(``keep_history = -5``, ``temperature = nan``, ``timeout_seconds = 0`` reported as "cannot
reach the server"). Here every numeric key has a closed range (``RANGES``; NaN and infinity are
never in one), provider and mode names are checked against the ones that exist, a base URL
must be ``http(s)://``, and a cron expression must parse. The first violation raises a
``ConfigError`` whose one-line message names the key and the allowed values. This module does
no I/O; ``reverie.config.settings`` calls ``check`` from ``Config.from_mapping``.

``memory_model`` takes the ``model`` ranges. A provider name must be one reverie has a
provider for (``PROVIDERS``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from reverie.errors import ConfigError

PROVIDERS = ("openai", "anthropic")
DREAM_MODES = ("auto", "model", "model-free")
EMBEDDINGS_MODES = ("auto", "off")
UNKNOWN_PRINCIPALS = ("create", "refuse")
YEAR_MINUTES = 525_600.0

RANGES: dict[str, tuple[float, float]] = {
    "model.context_window": (1_100, 10_000_000),
    "model.max_output_tokens": (1, 1_000_000),
    "model.temperature": (0.0, 2.0),
    "model.timeout_seconds": (0.1, 86_400.0),
    "compaction.ratio": (0.01, 0.99),
    "compaction.rounds_per_turn": (1, 100),
    "compaction.replay_suffix": (0, 10_000),
    "compaction.summary_cap_chars": (100, 64_000),
    "compaction.raw_cap_chars": (100, 64_000),
    "compaction.idle_minutes": (0.0, YEAR_MINUTES),
    "store.lease_seconds": (1.0, 3_600.0),
    "dream.batch_entries": (1, 10_000),
    "dream.entry_chars": (50, 64_000),
    "dream.file_chars": (64, 10_000_000),
    "dream.max_rounds": (1, 1_000),
    "dream.token_budget": (100, 1_000_000_000),
    "dream.interval_minutes": (0.0, YEAR_MINUTES),
    "dream.pending_trigger": (1, 10_000_000),
    "dream.keep_history": (0, 100_000_000),
    "dream.stall_rounds": (1, 1_000),
    "prompt.recent_entries": (0, 100_000),
    "prompt.recent_tokens": (0, 10_000_000),
    "prompt.recall_tokens": (0, 10_000_000),
}
"""Inclusive bounds of every numeric key (``model.*`` bounds apply to ``memory_model.*``)."""


def _fail(key: str, message: str) -> ConfigError:
    return ConfigError(f"{key} {message}", key=key)


def _number(key: str, value: float, bounds: tuple[float, float]) -> None:
    low, high = bounds
    if math.isnan(value) or math.isinf(value) or not low <= value <= high:
        kind = "an integer" if isinstance(value, int) else "a number"
        raise _fail(key, f"must be {kind} from {low:g} to {high:g}, got {value!r}")


def _section(name: str, values: object) -> None:
    table = "model" if name == "memory_model" else name
    for item in dataclasses.fields(values):  # type: ignore[arg-type]
        value: Any = getattr(values, item.name)
        bounds = RANGES.get(f"{table}.{item.name}")
        if bounds is not None and isinstance(value, int | float) and not isinstance(value, bool):
            _number(f"{name}.{item.name}", value, bounds)


def _model(name: str, model: Any) -> None:
    _section(name, model)
    if model.provider not in PROVIDERS:
        raise _fail(
            f"{name}.provider", f"must be one of {', '.join(PROVIDERS)}, got {model.provider!r}"
        )
    if model.base_url is not None and not model.base_url.startswith(("http://", "https://")):
        raise _fail(
            f"{name}.base_url", f"must start with http:// or https://, got {model.base_url!r}"
        )
    if not model.api_key_env.strip():
        raise _fail(f"{name}.api_key_env", "must name an environment variable")


def check(config: Any) -> None:
    """Raise ``ConfigError`` for the first setting of a ``Config`` out of range or meaning.

    (Typed ``Any``: ``reverie.config.settings`` calls this, so importing its types back would
    cycle.)
    """
    _model("model", config.model)
    if config.memory_model is not None:
        _model("memory_model", config.memory_model)
    for name in ("compaction", "dream", "prompt"):
        _section(name, getattr(config, name))
    if config.dream.mode not in DREAM_MODES:
        raise _fail(
            "dream.mode", f"must be one of {', '.join(DREAM_MODES)}, got {config.dream.mode!r}"
        )
    if config.recall.embeddings not in EMBEDDINGS_MODES:
        raise _fail(
            "recall.embeddings",
            f"must be one of {', '.join(EMBEDDINGS_MODES)}, got {config.recall.embeddings!r}",
        )
    if config.serve.unknown_principals not in UNKNOWN_PRINCIPALS:
        raise _fail(
            "serve.unknown_principals",
            f"must be one of {', '.join(UNKNOWN_PRINCIPALS)}, "
            f"got {config.serve.unknown_principals!r}",
        )
    if config.dream.cron is not None and not _valid_cron(config.dream.cron):
        raise _fail(
            "dream.cron", f"must be a cron expression like '0 3 * * *', got {config.dream.cron!r}"
        )


def _valid_cron(expression: str) -> bool:
    # Imported here: croniter costs ~0.1 s at start-up, and only a set ``dream.cron`` needs it.
    from croniter import croniter  # noqa: PLC0415

    return bool(croniter.is_valid(expression))
