"""``Parts``: what one ``MemoryEngine`` is made of, the costly parts built on first use.

The engine holds one ``Parts`` (it is not a base class): the stores, the settings, the token
counters, the clock, the mode and the memory model, dense recall, and the parts its operations
share: the search index, recall, the prompt assembler and the compactor. Each part is made when
an operation first needs it, and its module imported only then: ``status`` or ``search`` never
import compaction, the prompt, recall ranking or the model-free summariser, so a command that
needs few parts starts fast. The shared parts are made once per engine, under one re-entrant
lock (the compactor needs the assembler, which needs the recaller), so threads sharing an
engine (the chat loop and its background worker) share one of each. The dream runner, the
dream schedule and the idle scanner are made afresh on each call, as cheap views over these.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Literal

from reverie.engine.dense_choice import Dense, open_chosen
from reverie.llm.endpoints import deferred_provider
from reverie.llm.tokens import CalibratedCounter

if TYPE_CHECKING:
    from reverie.config.settings import Config
    from reverie.core.clock import Clock
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider
    from reverie.memory.compaction.attempt import Summariser
    from reverie.memory.compaction.compactor import Compactor
    from reverie.memory.compaction.idle import IdleScanner
    from reverie.memory.dream.outlook import DreamOutlook
    from reverie.memory.dream.runner import Dreamer
    from reverie.memory.prompt import PromptAssembler
    from reverie.memory.recall import Recaller
    from reverie.storage.ports import Backend, IndexPort

Mode = Literal["model", "model-free"]
"""How compaction and dream run: with the memory model, or model-free."""


def models(
    config: Config,
    chat: Provider | None,
    memory: Provider | None,
    environ: Mapping[str, str] | None,
) -> tuple[Provider | None, Provider | None]:
    """The chat and memory models: as given, else built from the settings on first use.

    The memory model defaults to ``[memory_model]`` when it is set, else to the chat model.
    """
    if chat is None:
        chat = deferred_provider(config.model, environ)
    if memory is None:
        memory = deferred_provider(config.memory_model, environ) if config.memory_model else chat
    return chat, memory


class Parts:
    """One engine's stores, settings and models, and its parts made on first use."""

    def __init__(
        self,
        stores: Backend,
        *,
        config: Config,
        counter: TokenCounter,
        clock: Clock,
        memory: Provider | None,
        dense: Dense,
    ) -> None:
        self.stores = stores
        self.config = config
        self.counter = counter
        # Calibration learns one model's tokenizer: a separate memory model gets its own.
        self.memory_counter = (
            CalibratedCounter(counter.base)
            if isinstance(counter, CalibratedCounter) and config.memory_model is not None
            else counter
        )
        self.clock = clock
        self.memory = memory
        """The model of compaction and dream (None: none configured)."""
        self.mode: Mode = (
            "model" if memory is not None and config.dream.mode != "model-free" else "model-free"
        )
        # Dense recall (reverie.memory.recall.dense) as ``dense`` says (``engine.dense_choice``);
        # each backend keeps the vectors and says what its index added.
        self.dense, self.dense_status = open_chosen(
            dense,
            config.recall.embeddings,
            stores.open_vectors(),
            lambda: stores.follower(self.index),
        )
        self._lock = threading.RLock()
        self._index: IndexPort | None = None
        self._recaller: Recaller | None = None
        self._assembler: PromptAssembler | None = None
        self._compactor: Compactor | None = None

    @property
    def index(self) -> IndexPort:
        """The search index (opened on first use, caught up incrementally on every query)."""
        with self._lock:  # two threads' first queries must not open two indexes
            if self._index is None:
                self._index = self.stores.open_index()
            return self._index

    @property
    def recaller(self) -> Recaller:
        """Recall over the search index, fused with dense recall when that is on."""
        with self._lock:
            if self._recaller is None:
                from reverie.memory.recall import Recaller  # noqa: PLC0415 (see the docstring)

                self._recaller = Recaller(
                    lambda: self.index,
                    counter=self.counter,
                    sources=(self.dense,) if self.dense is not None else (),
                )
            return self._recaller

    @property
    def assembler(self) -> PromptAssembler:
        """The prompt assembler (durable files, history, recall, the session, in budget)."""
        with self._lock:
            if self._assembler is None:
                from reverie.memory.prompt import PromptAssembler  # noqa: PLC0415

                config = self.config
                self._assembler = PromptAssembler(
                    self.stores,
                    config=config.prompt,
                    counter=self.counter,
                    replay_suffix=config.compaction.replay_suffix,
                    recaller=self.recaller,
                    recall_tokens=config.prompt.recall_budget(config.model.input_budget),
                    input_budget=config.model.input_budget,
                )
            return self._assembler

    @property
    def compactor(self) -> Compactor:
        """The compactor, summarising with the memory model or model-free (``mode``)."""
        with self._lock:
            if self._compactor is None:
                from reverie.memory.compaction.chunks import ChunkSummariser  # noqa: PLC0415
                from reverie.memory.compaction.compactor import Compactor  # noqa: PLC0415

                self._compactor = Compactor(
                    self.stores,
                    chunks=ChunkSummariser(self._summariser(), counter=self.memory_counter),
                    assembler=self.assembler,
                    input_budget=self.config.model.input_budget,
                    config=self.config.compaction,
                    counter=self.counter,
                )
            return self._compactor

    def _summariser(self) -> Summariser:
        if self.mode == "model" and self.memory is not None:
            from reverie.llm.metered import MeteredModel  # noqa: PLC0415
            from reverie.memory.compaction.summariser import ModelSummariser  # noqa: PLC0415

            metered = MeteredModel(
                self.memory,
                job="compaction",
                counter=self.memory_counter,
                log=self.stores.ledger,
                clock=self.clock,
                label=self.config.memory.model,
            )
            return ModelSummariser(metered, config=self.config.memory)
        from reverie.memory.modelfree.summariser import ModelFreeSummariser  # noqa: PLC0415

        return ModelFreeSummariser()

    def dreamer(self) -> Dreamer:
        """The dream runner of this workspace in this mode (the memory model, or model-free)."""
        from reverie.memory.dream.runner import Dreamer  # noqa: PLC0415 (see the docstring)

        return Dreamer(
            self.stores,
            self.memory if self.mode == "model" else None,
            config=self.config.dream,
            counter=self.memory_counter,
            max_output_tokens=self.config.memory.max_output_tokens,
        )

    def dream_outlook(self) -> DreamOutlook:
        """The dream schedule and back-off state, read without building the runner."""
        from reverie.memory.dream.outlook import DreamOutlook  # noqa: PLC0415
        from reverie.memory.dream.state import DreamStateText  # noqa: PLC0415

        state = DreamStateText(self.stores.dream_state)
        return DreamOutlook(self.stores, state.read, config=self.config.dream)

    def idle_scanner(self, in_flight: Iterable[str] = ()) -> IdleScanner:
        """The idle-compaction scanner (``in_flight``: sessions with a turn running)."""
        from reverie.memory.compaction.idle import IdleScanner  # noqa: PLC0415

        busy = frozenset(in_flight)
        return IdleScanner(
            self.stores.sessions,
            self.compactor,
            ttl_minutes=self.config.compaction.idle_minutes,
            clock=self.clock,
            in_flight=busy.__contains__,
        )

    def close(self) -> None:
        """Close the search index if it was opened (the engine closes the rest)."""
        if self._index is not None:
            self._index.close()
