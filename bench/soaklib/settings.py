"""The soak's engine settings, shared by the workers and the supervisor's final checks.

A small context window (so compaction runs often), a short client timeout and fast retries
(so injected timeouts and 429/5xx cost little wall time), and a tight dream budget (so loops
and hostile runs hit their bounds). Dense recall is off: the soak checks the stores'
invariants under faults, and the vector file is a cache (deleted and refilled when damaged),
so encoding every message with the real model would only slow each worker. The provider is
built here rather than by ``build_provider`` only to get the fast retry policy.
"""

from __future__ import annotations

from pathlib import Path

from reverie.config.sections import CompactionConfig, DreamConfig, ModelConfig, RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.retry import RetryPolicy

CONTEXT_WINDOW = 4_000
MAX_OUTPUT_TOKENS = 500
DREAM = DreamConfig(
    batch_entries=8,
    entry_chars=400,
    max_rounds=4,
    token_budget=8_000,
    keep_history=10,
    stall_rounds=2,
    mode="model",
)
RETRY = RetryPolicy(max_attempts=3, base_delay=0.05, max_delay=0.2, max_retry_after=2.0)


def soak_config(base_url: str, timeout: float) -> Config:
    """The engine configuration every soak process uses."""
    return Config(
        model=ModelConfig(
            model="soak",
            base_url=base_url,
            context_window=CONTEXT_WINDOW,
            max_output_tokens=MAX_OUTPUT_TOKENS,
            timeout_seconds=timeout,
        ),
        compaction=CompactionConfig(idle_minutes=0),
        dream=DREAM,
        recall=RecallConfig(embeddings="off"),
    )


def open_engine(workspace: Path, base_url: str, timeout: float) -> MemoryEngine:
    """Open the engine on the soak workspace against the soak model."""
    config = soak_config(base_url, timeout)
    provider = OpenAIProvider(
        model="soak", base_url=base_url, api_key="x", timeout=timeout, retry=RETRY
    )
    return MemoryEngine.open(
        workspace,
        config,
        provider=provider,
        memory_provider=provider,
        environ={"REVERIE_API_KEY": "x"},
    )
