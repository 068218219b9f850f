"""The engine's parts, built on first use: recall, the prompt assembler, the compactor.

A mixin of ``MemoryEngine`` (as ``engine_jobs`` holds dream). Each part is made when an
operation first needs it, and its module imported only then: ``status`` or ``search`` never
import compaction, the prompt, recall ranking or the model-free summariser, so a command
that needs few parts starts fast. The parts are made once per engine, under one re-entrant
lock (the compactor needs the assembler, which needs the recaller), so threads sharing an
engine (the chat loop and its background worker) share one of each.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.config.settings import Config
    from reverie.core.clock import Clock
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider, ToolSchema
    from reverie.memory.compaction.attempt import Summariser
    from reverie.memory.compaction.compactor import Compactor
    from reverie.memory.prompt import PromptAssembler
    from reverie.memory.recall import Recaller
    from reverie.memory.recall.dense.retriever import DenseRetriever
    from reverie.storage.ports import Backend, IndexPort


class MemoryParts:
    """Recall, prompt assembly and compaction, made on first use (``MemoryEngine`` uses them)."""

    _stores: Backend
    config: Config
    counter: TokenCounter
    clock: Clock
    mode: str
    dense: DenseRetriever | None
    _memory: Provider | None
    _memory_counter: TokenCounter

    @property
    def tools(self) -> tuple[ToolSchema, ...]:
        """The built-in agent's memory tools, for agents that want to offer them too."""
        from reverie.memory.agent import TOOLS  # noqa: PLC0415

        return TOOLS

    _parts_lock = threading.RLock()
    """Guards the first build of each part (shared by engines: builds are rare and short)."""
    _recaller: Recaller | None = None
    _prompts: PromptAssembler | None = None
    _compaction: Compactor | None = None

    @property
    def index(self) -> IndexPort:
        """The search index (defined by ``MemoryEngine``)."""
        raise NotImplementedError

    @property
    def recaller(self) -> Recaller:
        """Recall over the search index, fused with dense recall when that is on."""
        with self._parts_lock:
            if self._recaller is None:
                from reverie.memory.recall import Recaller  # noqa: PLC0415 (see the docstring)

                self._recaller = Recaller(
                    lambda: self.index,
                    counter=self.counter,
                    sources=(self.dense,) if self.dense is not None else (),
                )
            return self._recaller

    @property
    def _assembler(self) -> PromptAssembler:
        with self._parts_lock:
            if self._prompts is None:
                from reverie.memory.prompt import PromptAssembler  # noqa: PLC0415

                config = self.config
                self._prompts = PromptAssembler(
                    self._stores,
                    config=config.prompt,
                    counter=self.counter,
                    replay_suffix=config.compaction.replay_suffix,
                    recaller=self.recaller,
                    recall_tokens=config.prompt.recall_budget(config.model.input_budget),
                    input_budget=config.model.input_budget,
                )
            return self._prompts

    @property
    def _compactor(self) -> Compactor:
        with self._parts_lock:
            if self._compaction is None:
                from reverie.memory.compaction.chunks import ChunkSummariser  # noqa: PLC0415
                from reverie.memory.compaction.compactor import Compactor  # noqa: PLC0415

                self._compaction = Compactor(
                    self._stores,
                    chunks=ChunkSummariser(self._summariser(), counter=self._memory_counter),
                    assembler=self._assembler,
                    input_budget=self.config.model.input_budget,
                    config=self.config.compaction,
                    counter=self.counter,
                )
            return self._compaction

    def _summariser(self) -> Summariser:
        if self.mode == "model" and self._memory is not None:
            from reverie.llm.metered import MeteredModel  # noqa: PLC0415
            from reverie.memory.compaction.summariser import ModelSummariser  # noqa: PLC0415

            metered = MeteredModel(
                self._memory,
                job="compaction",
                counter=self._memory_counter,
                log=self._stores.ledger,
                clock=self.clock,
                label=self.config.memory.model,
            )
            return ModelSummariser(metered, config=self.config.memory)
        from reverie.memory.modelfree.summariser import ModelFreeSummariser  # noqa: PLC0415

        return ModelFreeSummariser()
