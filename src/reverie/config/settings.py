"""Configuration values and their validation; reading files and env vars happens at the surface.

``Config`` gathers every tunable of DESIGN.md's defaults table. ``Config.from_mapping`` turns
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
from reverie.errors import ConfigError

ProviderKind = Literal["openai", "anthropic"]
DreamMode = Literal["auto", "model", "model-free"]
EmbeddingsMode = Literal["auto", "off"]
UnknownPrincipals = Literal["create", "refuse"]

AUTO_OUTPUT_TOKENS = 0
"""``max_output_tokens`` value meaning "derive it from the context window"."""
PROMPT_MARGIN = 1024
"""Tokens kept free below the window beyond the output cap (DESIGN.md defaults)."""
_ENDPOINT_KEYS = ("provider", "base_url", "api_key_env", "api_key_file", "timeout_seconds")


def derived_output_tokens(context_window: int) -> int:
    """The output cap when none is set: a quarter of the window, at most 4,096 (at least 1).

    A 4,096-token window (Ollama's and many llama.cpp set-ups' default) gets 1,024 output
    tokens and a 2,048-token input budget; a 128k window keeps 4,096.
    """
    return max(1, min(4_096, context_window // 4))


def prompt_room(context_window: int, output_tokens: int) -> int:
    """Context window minus output tokens minus the margin: ``ModelConfig.input_budget_for``.

    Unclamped: zero or less means no prompt fits (what the config check reports).
    """
    return context_window - output_tokens - PROMPT_MARGIN


RECALL_SHARE = 0.4
"""Default share of the input budget the "Recalled" section may use..."""
RECALL_CAP = 4_000
"""...up to this many tokens (a large window needs no more to carry the relevant items)."""
RECENT_SHARE = 0.25
"""Recent history takes at most this share of the input budget (and ``recent_tokens``): older
entries stay reachable through recall when relevant, so they never crowd it out."""
DURABLE_SHARE = 0.25
"""The most of the input budget SOUL.md, USER.md and MEMORY.md take together (DESIGN.md
invariant 12): whole when they fit, else their rules, identity and most relevant lines."""
SUMMARY_SHARE = 0.15
"""The most of the input budget the session's summary takes (its first lines when longer)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelConfig:
    """Where a model is and what it can take. An empty ``model`` means none is configured."""

    provider: ProviderKind = "openai"
    base_url: str | None = None
    api_key_env: str = "REVERIE_API_KEY"
    api_key_file: str | None = None
    model: str = ""
    context_window: int = 128_000
    max_output_tokens: int = AUTO_OUTPUT_TOKENS
    """Cap on a reply; 0 (the default) derives it from the window (``derived_output_tokens``)."""
    temperature: float = 0.3
    timeout_seconds: float = 120.0

    def __post_init__(self) -> None:
        if self.max_output_tokens == AUTO_OUTPUT_TOKENS:
            derived = derived_output_tokens(self.context_window)
            object.__setattr__(self, "max_output_tokens", derived)

    @property
    def configured(self) -> bool:
        """True when a model name is set."""
        return bool(self.model)

    @property
    def input_budget(self) -> int:
        """Prompt tokens allowed with the full output cap (``input_budget_for``)."""
        return self.input_budget_for(self.max_output_tokens)

    def input_budget_for(self, output_tokens: int) -> int:
        """Prompt tokens allowed when a reply may take ``output_tokens`` (at least 1).

        The one place the budget is computed: context window minus the reply's tokens minus
        the ``PROMPT_MARGIN``. The chat prompt, compaction and the summariser all use it.
        """
        return max(1, prompt_room(self.context_window, output_tokens))


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

    def recent_budget(self, input_budget: int) -> int:
        """Tokens the "Recent history" section may use for a prompt of ``input_budget`` tokens."""
        return min(self.recent_tokens, int(input_budget * RECENT_SHARE))

    def durable_budget(self, input_budget: int) -> int:
        """Tokens the durable files may use together (whole when they fit, else chosen lines)."""
        return int(input_budget * DURABLE_SHARE)

    def summary_budget(self, input_budget: int) -> int:
        """Tokens the session summary may use (its first whole lines when it is longer)."""
        return int(input_budget * SUMMARY_SHARE)

    def recall_ceiling(self, input_budget: int) -> int:
        """The most the section may grow to when the rest of the prompt leaves room.

        By default up to ``RECALL_CAP`` (room a short replay leaves unused is better spent on
        memory); an explicit ``recall_tokens`` is a fixed size.
        """
        if self.recall_tokens is not None:
            return self.recall_budget(input_budget)
        return max(self.recall_budget(input_budget), min(RECALL_CAP, input_budget))


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallConfig:
    """How recall finds items besides the lexical ranking (``reverie.memory.recall.dense``)."""

    embeddings: EmbeddingsMode = "auto"
    """"auto" (default): fuse dense (by meaning) recall when the embeddings extra is installed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreConfig:
    """Where the workspace's memory lives: an empty ``url`` means this folder itself.

    A ``postgresql://`` URL puts it in that database, in the workspace called ``workspace``
    (default: the folder's name); the folder then holds only ``reverie.toml``. Keep the
    password out of the URL (``PGPASSWORD`` or ``~/.pgpass``): the file may be shared.
    """

    url: str = ""
    workspace: str = ""
    lease_seconds: float = 30.0
    """How long a lock (dream, compaction of a session) outlives a server that died holding it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeConfig:
    """How ``reverie serve`` treats the principals requests name (``reverie.engine.owners``)."""

    unknown_principals: UnknownPrincipals = "create"
    """"create" (default): a principal with no workspace yet gets one on its first request;
    "refuse": only principals that exist are served (a principal token's own is always made)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class McpConfig:
    """What an MCP client may write (``reverie.mcp``)."""

    person_notes: bool = False
    """False (default): an MCP client's words are its own (an assistant's), never the
    person's; True: ``remember(..., by_person=true)`` and ``record``'s user messages are
    kept as the person's words (a client that relays them faithfully)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionsConfig:
    """What a session keeps of what was said (``reverie.storage.folder.raw_transcripts``)."""

    raw_transcripts: bool = False
    """False (default): a session keeps what was said with its secrets redacted, and so does
    everything else. True (the owner's choice, per workspace): the raw text of each message a
    secret was redacted from is kept too, beside the session, for the session's own prompt and
    the owner's ``reverie session KEY --raw``; search, recall, vectors, MCP, the viewer,
    exports, the ledger, history and every other session still read the redacted session."""


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
