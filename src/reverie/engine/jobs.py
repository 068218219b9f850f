"""Dream through ``MemoryEngine``: the dream runner, a run now, a run when due.

A mixin of ``MemoryEngine`` (as ``engine_changes`` holds a person's changes). The runner is
one run (``reverie.memory.dream.runner.Dreamer``) on any backend's ``DreamStores``, in the
engine's mode (the model, or model-free without one); on a database workspace it runs once
across servers (the ``dream`` lease) and publishes in one transaction. ``status`` reads the
schedule through ``reverie.memory.dream.outlook`` alone: the runner is imported only where it
runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reverie.engine.changes import MemoryChanges
from reverie.engine.results import NO_MODEL_HINT
from reverie.errors import ModelNotConfiguredError

if TYPE_CHECKING:
    # The runner and the shared dream are imported where they run: ``status`` reads the
    # schedule through ``DreamOutlook`` and starts without them.
    from reverie.config.settings import Config
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider
    from reverie.memory.dream.outlook import DreamOutlook
    from reverie.memory.dream.result import DreamResult
    from reverie.memory.dream.runner import Dreamer
    from reverie.memory.recall.dense.retriever import DenseRetriever


class MemoryJobs(MemoryChanges):
    """Dream operations (``MemoryEngine`` is the class to use)."""

    config: Config
    mode: str
    _memory: Provider | None
    _memory_counter: TokenCounter
    dense: DenseRetriever | None

    def dreamer(self) -> Dreamer:
        """The dream runner of this workspace in this engine's mode (model, or model-free)."""
        from reverie.memory.dream.runner import Dreamer  # noqa: PLC0415 (see TYPE_CHECKING above)

        return Dreamer(
            self._stores,
            self._dream_provider(),
            config=self.config.dream,
            counter=self._memory_counter,
            max_output_tokens=self.config.memory.max_output_tokens,
        )

    def _dream_outlook(self) -> DreamOutlook:
        """The dream schedule and back-off state, read without building the runner."""
        from reverie.memory.dream.outlook import DreamOutlook  # noqa: PLC0415
        from reverie.memory.dream.state import DreamStateText  # noqa: PLC0415

        state = DreamStateText(self._stores.dream_state)
        return DreamOutlook(self._stores, state.read, config=self.config.dream)

    def dream(self, *, trigger: str = "manual", dry_run: bool = False) -> DreamResult:
        """Curate the durable files from the next batch of history (all-or-nothing)."""
        if self.config.dream.mode == "model" and self._memory is None:
            raise ModelNotConfiguredError("dream.mode is 'model' but " + NO_MODEL_HINT)
        result = self.dreamer().run(trigger=trigger, dry_run=dry_run)
        if not dry_run:
            self.index_vectors()
        return result

    def dream_if_due(self) -> DreamResult | None:
        """Run dream when its schedule says so (interval, cron, pending entries); else None."""
        runner = self.dreamer()
        decision = runner.should_run()
        if not decision.run:
            return None
        result = runner.run(trigger=decision.trigger or "schedule")
        self.index_vectors()
        return result

    def index_vectors(self, progress: Callable[[int], None] | None = None) -> int:
        """Encode every indexed item dense recall has no vector for; return how many (0: off).

        Prompts encode a few new items each (``reverie.memory.recall.dense.retriever``); ``ingest``,
        ``dream`` and ``compact`` call this (a background job, not a prompt), and
        ``reverie index`` does it on demand.
        """
        return self.dense.catch_up_all(progress) if self.dense is not None else 0

    def _vector_progress(
        self, on_progress: Callable[[str, int, int], None] | None
    ) -> Callable[[int], None] | None:
        """``index_vectors``'s progress as ``on_progress("vectors", done, total)`` (None: off).

        Says ``0`` of the backlog at once, so a bar shows while the encoder model loads.
        """
        if on_progress is None or self.dense is None:
            return None
        total = self.dense.pending()
        if not total:
            return None
        on_progress("vectors", 0, total)
        return lambda done: on_progress("vectors", min(done, total), total)

    def _dream_provider(self) -> Provider | None:
        return self._memory if self.mode == "model" else None
