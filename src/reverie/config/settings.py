"""Configuration values and their validation; reading files and env vars happens at the surface.

``Config`` gathers every tunable of DESIGN.md's defaults table, one table of
``reverie.config.sections`` per TOML section. ``Config.from_mapping`` turns
a parsed TOML document (plus env overrides, merged by the caller) into values, rejecting
unknown keys and wrong types with a ``ConfigError`` that names the key, so a typo in
``reverie.toml`` is an error, not a silently ignored setting. This module does no I/O.

TOML layout (every key optional)::

    [model]        base_url, api_key_env, api_key_file, model, provider, context_window,
                   max_output_tokens, temperature, timeout_seconds
    [memory_model] the same keys, for compaction and dream. Absent, empty or all commented
                   out: the [model] itself. Without its own ``model`` name it is the [model]
                   with some keys changed; with one it shares only [model]'s endpoint
                   (provider, base_url, api_key_env, api_key_file, timeout_seconds).
    [compaction]   ratio, rounds_per_turn, replay_suffix, summary_cap_chars, raw_cap_chars,
                   idle_minutes
    [dream]        batch_entries, entry_chars, file_chars, max_rounds, token_budget,
                   interval_minutes, cron, pending_trigger, keep_history, stall_rounds, mode
    [prompt]       recent_entries, recent_tokens, unified_session, recall_tokens
    [recall]       embeddings ("auto", the default: dense recall when the embeddings extra is
                   installed; "off")
    [serve]        unknown_principals ("create", the default: a principal named by an app or
                   admin token gets its workspace on first use; "refuse": 404)
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from reverie.config.checks import check
from reverie.config.sections import (
    PROMPT_MARGIN,
    CompactionConfig,
    DreamConfig,
    McpConfig,
    ModelConfig,
    PromptConfig,
    RecallConfig,
    ServeConfig,
    SessionsConfig,
    StoreConfig,
    prompt_room,
)
from reverie.errors import ConfigError

_ENDPOINT_KEYS = ("provider", "base_url", "api_key_env", "api_key_file", "timeout_seconds")


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every setting of a workspace, with DESIGN.md's defaults."""

    model: ModelConfig = field(default_factory=ModelConfig)
    memory_model: ModelConfig | None = None
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    dream: DreamConfig = field(default_factory=DreamConfig)
    prompt: PromptConfig = field(default_factory=PromptConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    serve: ServeConfig = field(default_factory=ServeConfig)
    mcp: McpConfig = field(default_factory=McpConfig)
    sessions: SessionsConfig = field(default_factory=SessionsConfig)
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """Where the model settings came from, as (``section.key``, origin) pairs: ``reverie.toml``,
    the ``REVERIE_*`` variable, or ``default`` (filled by ``load_config``; empty for a Config
    built in code). An env variable is per process: ``status`` shows it so a ``serve`` with
    ``REVERIE_MODEL`` and a ``compact`` in another shell are not a mystery."""

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
            "recall": RecallConfig,
            "store": StoreConfig,
            "serve": ServeConfig,
            "mcp": McpConfig,
            "sessions": SessionsConfig,
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
                if name == "memory_model":
                    section = _memory_section(data.get("model"), section)
                    if section is None:
                        continue
                values[name] = _build(kind, name, section)
        config = cls(**values)
        # The window check first: its message names both values and what to change.
        _check_window("model", config.model, data.get("model"))
        if config.memory_model is not None:
            _check_window("memory_model", config.memory_model, data.get("memory_model"))
        _check_ranges(config)
        return config


def _memory_section(model: object, memory: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The effective ``[memory_model]`` table, or None when it means "the same as [model]".

    ``reverie init`` writes the table with every key commented out; that must change nothing,
    so an empty table is no memory model at all. A table without its own ``model`` name
    changes some keys of the chat model; one with a name shares only the endpoint.
    """
    if not memory:
        return None
    chat = model if isinstance(model, Mapping) else {}
    if "model" not in memory or not memory["model"]:
        return {**chat, **{k: v for k, v in memory.items() if k != "model"}}
    return {**{k: chat[k] for k in _ENDPOINT_KEYS if k in chat}, **memory}


def _check_window(section: str, model: ModelConfig, data: object) -> None:
    """The window must hold the output cap plus the margin; name both values when it does not."""
    if prompt_room(model.context_window, model.max_output_tokens) > 0:
        return
    explicit = isinstance(data, Mapping) and bool(data.get("max_output_tokens"))
    window, output = model.context_window, model.max_output_tokens
    if explicit:
        message = (
            f"{section}.context_window ({window}) must exceed {section}.max_output_tokens "
            f"({output}) + {PROMPT_MARGIN}: raise context_window above {output + PROMPT_MARGIN}, "
            f"or lower max_output_tokens below {window - PROMPT_MARGIN} (or leave it unset: "
            "it then defaults to a quarter of the window, at most 4096)"
        )
    else:
        message = (
            f"{section}.context_window ({window}) is too small: with the derived "
            f"max_output_tokens ({output}) and the {PROMPT_MARGIN}-token margin no prompt fits; "
            f"raise context_window above {output + PROMPT_MARGIN}"
        )
    raise ConfigError(message, key=f"{section}.context_window")


_T = TypeVar("_T")


def _build(kind: type[_T], section: str, data: Mapping[str, Any]) -> _T:
    hints = typing.get_type_hints(kind)  # the fields' real types, not their annotation text
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in hints:
            raise ConfigError(f"unknown key {section}.{key}", key=f"{section}.{key}")
        values[key] = _coerce(f"{section}.{key}", hints[key], value)
    return kind(**values)


def _coerce(key: str, annotation: object, value: Any) -> Any:
    """Return ``value`` as the field type ``annotation`` holds (an int is a valid float).

    A union (``str | None``) accepts any of its members; TOML has no null, so ``None`` is
    never given. A ``Literal`` of names accepts any text here; ``config_checks`` then says
    which names exist.
    """
    options = typing.get_args(annotation) if _is_union(annotation) else (annotation,)
    for option in options:
        accepted = _accepts(option, value)
        if accepted is not _REFUSED:
            return accepted
    if isinstance(value, bool):
        raise ConfigError(f"{key} must not be true/false", key=key)
    raise ConfigError(f"{key} has the wrong type ({type(value).__name__})", key=key)


_REFUSED = object()


def _is_union(annotation: object) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _accepts(option: object, value: Any) -> Any:
    """``value`` as ``option`` when it is one, else ``_REFUSED``."""
    if typing.get_origin(option) is Literal:
        names = typing.get_args(option)
        fits = isinstance(value, str) and all(isinstance(name, str) for name in names)
    elif option is bool:
        fits = isinstance(value, bool)
    elif isinstance(value, bool):
        fits = False  # a bool is an int to Python, never to a config file
    elif option is float:
        return float(value) if isinstance(value, int | float) else _REFUSED
    else:
        fits = option in (int, str) and isinstance(value, option)
    return value if fits else _REFUSED


def _check_ranges(config: Config) -> None:
    # Ranges and meanings live in ``config_checks`` (one table of every key's bounds).
    check(config)
