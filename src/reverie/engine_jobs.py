"""Dream through ``MemoryEngine``: the dream runner, a run now, a run when due.

A mixin of ``MemoryEngine`` (as ``engine_changes`` holds a person's changes): on a folder the
runner is ``reverie.dream.runner.Dreamer`` in the engine's mode; on a database workspace dream
runs model-free, once across servers, through ``reverie.dream.shared``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.dream.runner import Dreamer
from reverie.dream.shared import SeamPublisher, dream_on_stores, pending_reached
from reverie.engine_changes import MemoryChanges
from reverie.engine_results import NO_MODEL_HINT
from reverie.errors import ModelNotConfiguredError, StoreUnsupportedError

if TYPE_CHECKING:
    from reverie.config import Config
    from reverie.dense.retriever import DenseRetriever
    from reverie.dream.result import DreamResult
    from reverie.llm.provider import Provider
    from reverie.token_estimate import TokenCounter


class MemoryJobs(MemoryChanges):
    """Dream operations (``MemoryEngine`` is the class to use)."""

    config: Config
    mode: str
    _memory: Provider | None
    _memory_counter: TokenCounter
    dense: DenseRetriever | None

    def dreamer(self) -> Dreamer:
        """The dream runner in this engine's mode (model, or model-free without one)."""
        provider = self._memory if self.mode == "model" else None
        return Dreamer(
            self._folder("dream"),
            provider,
            config=self.config.dream,
            counter=self._memory_counter,
            max_output_tokens=self.config.memory.max_output_tokens,
        )

    def dream(self, *, trigger: str = "manual", dry_run: bool = False) -> DreamResult:
        """Curate the durable files from the next batch of history (all-or-nothing).

        On a database workspace: model-free, once across servers (``reverie.dream.shared``).
        """
        if self.config.dream.mode == "model" and self._memory is None:
            raise ModelNotConfiguredError("dream.mode is 'model' but " + NO_MODEL_HINT)
        if not self.on_folder:
            return dream_on_stores(
                self._stores, self._publisher(), self.config.dream, trigger=trigger, dry_run=dry_run
            )
        result = self.dreamer().run(trigger=trigger, dry_run=dry_run)
        if not dry_run:
            self._encode_backlog()
        return result

    def dream_if_due(self) -> DreamResult | None:
        """Run dream when its schedule says so (interval, cron, pending entries); else None.

        On a database workspace: when ``dream.pending_trigger`` entries wait (model-free).
        """
        if not self.on_folder:
            due = self.mode == "model-free" and pending_reached(self._stores, self.config.dream)
            return self.dream(trigger="pending") if due else None
        dreamer = self.dreamer()
        decision = dreamer.should_run()
        if not decision.run:
            return None
        result = dreamer.run(trigger=decision.trigger or "schedule")
        self._encode_backlog()
        return result

    def _encode_backlog(self) -> None:
        """Dense recall's backlog is encoded after a dream (a background job), not in a prompt."""
        if self.dense is not None:
            self.dense.catch_up_all()

    def _publisher(self) -> SeamPublisher:
        audit = self._stores.audit
        if self.mode == "model" or not isinstance(audit, SeamPublisher):
            operation = "dream with a model (REVERIE_DREAM_MODE=model-free dreams without one)"
            raise StoreUnsupportedError(operation, where=self._stores.location)
        return audit
