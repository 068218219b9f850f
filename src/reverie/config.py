"""Configuration values and their validation; reading files and env vars happens at the surface.

``Config`` gathers every tunable of DESIGN.md's defaults table. ``Config.from_mapping`` turns
a parsed TOML document (plus env overrides, merged by the caller) into values, rejecting
unknown keys and wrong types with a ``ConfigError`` that names the key, so a typo in
``reverie.toml`` is an error, not a silently ignored setting. This module does no I/O.

TOML layout (every key optional)::

    [model]        base_url, api_key_env, api_key_file, model, provider, context_window,
                   max_output_tokens, temperature, timeout_seconds
    [memory_model] the same keys, for compaction and dream (defaults to [model])
    [compaction]   ratio, rounds_per_turn, replay_suffix, summary_cap_chars, raw_cap_chars,
                   idle_minutes
    [dream]        batch_entries, entry_chars, file_chars, max_rounds, token_budget,
                   interval_minutes, cron, pending_trigger, keep_history, stall_rounds, mode
    [prompt]       recent_entries, recent_tokens, unified_session, recall_tokens
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from reverie.errors import ConfigError

ProviderKind = Literal["openai", "anthropic"]
DreamMode = Literal["auto", "model", "model-free"]

RECALL_SHARE = 0.4
"""Default share of the input budget the "Recalled" section may use..."""
RECALL_CAP = 4_000
"""...up to this many tokens (a large window needs no more to carry the relevant items)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelConfig:
    """Where a model is and what it can take. An empty ``model`` means none is configured."""

    provider: ProviderKind = "openai"
    base_url: str | None = None
    api_key_env: str = "REVERIE_API_KEY"
    api_key_file: str | None = None
    model: str = ""
    context_window: int = 128_000
    max_output_tokens: int = 4_096
    temperature: float = 0.3
    timeout_seconds: float = 120.0

    @property
    def configured(self) -> bool:
        """True when a model name is set."""
        return bool(self.model)

    @property
    def input_budget(self) -> int:
        """Prompt tokens allowed: context window minus output tokens minus a 1,024 margin."""
        return max(1, self.context_window - self.max_output_tokens - 1024)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionConfig:
    """When and how session turns become history entries."""

    ratio: float = 0.5
    rounds_per_turn: int = 5
    replay_suffix: int = 8
    summary_cap_chars: int = 8_000
    raw_cap_chars: int = 16_000
    idle_minutes: float = 15.0


@dataclass(frozen=True, slots=True, kw_only=True)
class DreamConfig:
    """How dream batches history, what bounds a run, and when it runs."""

    batch_entries: int = 20
    entry_chars: int = 1_000
    file_chars: int = 8_000
    max_rounds: int = 12
    token_budget: int = 120_000
    interval_minutes: float = 120.0
    cron: str | None = None
    pending_trigger: int = 20
    keep_history: int = 1_000
    stall_rounds: int = 3
    mode: DreamMode = "auto"


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptConfig:
    """What the assembled prompt carries besides the durable files and the replay."""

    recent_entries: int = 50
    recent_tokens: int = 8_000
    unified_session: bool = False
    recall_tokens: int | None = None
    """The "Recalled" section's budget; None: a share of the input budget; 0: no recall."""

    def recall_budget(self, input_budget: int) -> int:
        """Tokens the "Recalled" section may use for a prompt of ``input_budget`` tokens."""
        if self.recall_tokens is not None:
            return max(0, min(self.recall_tokens, input_budget // 2))
        return min(int(input_budget * RECALL_SHARE), RECALL_CAP)


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every setting of a workspace, with DESIGN.md's defaults."""

    model: ModelConfig = field(default_factory=ModelConfig)
    memory_model: ModelConfig | None = None
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    dream: DreamConfig = field(default_factory=DreamConfig)
    prompt: PromptConfig = field(default_factory=PromptConfig)

    @property
    def memory(self) -> ModelConfig:
        """The model for compaction and dream: ``memory_model`` if set, else ``model``."""
        return self.memory_model or self.model

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Config:
        """Build a Config from a parsed TOML mapping.

        Raises:
            ConfigError: an unknown section or key, or a value of the wrong type or range.
        """
        sections: dict[str, type[Any]] = {
            "model": ModelConfig,
            "memory_model": ModelConfig,
            "compaction": CompactionConfig,
            "dream": DreamConfig,
            "prompt": PromptConfig,
        }
        unknown = sorted(set(data) - set(sections))
        if unknown:
            raise ConfigError(f"unknown section [{unknown[0]}]", key=unknown[0])
        values: dict[str, Any] = {}
        for name, kind in sections.items():
            if name in data:
                section = data[name]
                if not isinstance(section, Mapping):
                    raise ConfigError(f"[{name}] must be a table", key=name)
                values[name] = _build(kind, name, section)
        config = cls(**values)
        _check_ranges(config)
        return config


_T = TypeVar("_T")


def _build(kind: type[_T], section: str, data: Mapping[str, Any]) -> _T:
    fields = {f.name: f for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in fields:
            raise ConfigError(f"unknown key {section}.{key}", key=f"{section}.{key}")
        values[key] = _coerce(f"{section}.{key}", fields[key].type, value)
    return kind(**values)


def _coerce(key: str, annotation: object, value: Any) -> Any:
    text = str(annotation)
    if "bool" in text and isinstance(value, bool):
        return value
    if isinstance(value, bool):
        raise ConfigError(f"{key} must not be true/false", key=key)
    if text.startswith("int") and isinstance(value, int):
        return value
    if text.startswith("float") and isinstance(value, int | float):
        return float(value)
    if ("str" in text or "Literal" in text or "Kind" in text or "Mode" in text) and isinstance(
        value, str
    ):
        return value
    raise ConfigError(f"{key} has the wrong type ({type(value).__name__})", key=key)


def _check_ranges(config: Config) -> None:
    checks: list[tuple[bool, str]] = [
        (0 < config.compaction.ratio < 1, "compaction.ratio must be between 0 and 1"),
        (config.compaction.rounds_per_turn >= 1, "compaction.rounds_per_turn must be >= 1"),
        (config.compaction.idle_minutes >= 0, "compaction.idle_minutes must be >= 0 (0 disables)"),
        (config.model.provider in ("openai", "anthropic"), "model.provider is openai or anthropic"),
        (
            config.dream.mode in ("auto", "model", "model-free"),
            "dream.mode is auto, model or model-free",
        ),
        (config.dream.max_rounds >= 1, "dream.max_rounds must be >= 1"),
        (config.dream.batch_entries >= 1, "dream.batch_entries must be >= 1"),
        (
            config.prompt.recall_tokens is None or config.prompt.recall_tokens >= 0,
            "prompt.recall_tokens must be >= 0 (0 disables recall)",
        ),
        (
            config.model.context_window > config.model.max_output_tokens + 1024,
            "model.context_window must exceed max_output_tokens + 1024",
        ),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(message, key=message.split(" ", 1)[0])
