"""The tables of ``reverie.toml``: one frozen dataclass per section, with DESIGN.md's defaults.

``ModelConfig`` (``[model]`` and ``[memory_model]``), ``CompactionConfig``, ``DreamConfig``,
``PromptConfig`` (with the shares of the input budget each prompt section may take),
``RecallConfig``, ``StoreConfig``, ``ServeConfig``, ``McpConfig`` and ``SessionsConfig``.
``reverie.config.settings`` gathers them into ``Config`` and builds them from a parsed file;
``reverie.config.checks`` holds their ranges. This module does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProviderKind = Literal["openai", "anthropic"]
DreamMode = Literal["auto", "model", "model-free"]
EmbeddingsMode = Literal["auto", "off"]
UnknownPrincipals = Literal["create", "refuse"]

AUTO_OUTPUT_TOKENS = 0
"""``max_output_tokens`` value meaning "derive it from the context window"."""
PROMPT_MARGIN = 1024
"""Tokens kept free below the window beyond the output cap (DESIGN.md defaults)."""


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
