"""Wiring of a Compactor for tests (the engine does this in production)."""

from __future__ import annotations

from reverie.config.sections import CompactionConfig, ModelConfig, PromptConfig
from reverie.core.clock import Clock, system_clock
from reverie.core.token_estimate import EstimatingCounter
from reverie.llm.metered import MeteredModel
from reverie.llm.provider import Provider
from reverie.memory.compaction.chunks import ChunkSummariser
from reverie.memory.compaction.compactor import Compactor
from reverie.memory.compaction.summariser import ModelSummariser
from reverie.memory.prompt import PromptAssembler
from reverie.storage.folder.workspace import Workspace

COUNTER = EstimatingCounter()


def build(
    workspace: Workspace,
    provider: Provider,
    *,
    chat_window: int = 6000,
    memory_window: int = 8000,
    max_output: int = 1000,
    clock: Clock = system_clock,
    max_calls: int = 16,
) -> tuple[Compactor, PromptAssembler, ModelSummariser]:
    chat = ModelConfig(model="chat", context_window=chat_window, max_output_tokens=max_output)
    memory = ModelConfig(model="memory", context_window=memory_window, max_output_tokens=max_output)
    metered = MeteredModel(
        provider,
        job="compaction",
        counter=COUNTER,
        log=workspace.ledger,
        clock=clock,
        label="memory",
    )
    summariser = ModelSummariser(metered, config=memory)
    assembler = PromptAssembler(workspace, config=PromptConfig(), counter=COUNTER, identity="id")
    compactor = Compactor(
        workspace,
        chunks=ChunkSummariser(summariser, counter=COUNTER, max_calls=max_calls),
        assembler=assembler,
        input_budget=chat.input_budget,
        config=CompactionConfig(),
        counter=COUNTER,
    )
    return compactor, assembler, summariser
