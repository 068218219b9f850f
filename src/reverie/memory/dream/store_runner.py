"""The dream run on a database workspace: ``DreamCycle`` over ``reverie.storage.ports.DreamStores``.

The same run as on a folder (``cycle``: the prompt, the bounded tool loop with the model's
confined tools, or the model-free curator; the guard; the back-off state; the transcript),
with the folder's parts replaced:

- the lock is the workspace's ``dream`` lock of the stores (on PostgreSQL a lease that
  expires when its holder dies), tried once: another server dreaming -> "busy";
- the staging copy is ``StoreStaging``: the edits stay in memory until the publish;
- the publish is ``DreamStores.publish_dream``: the guarded files, the dream cursor and ONE
  commit ``dream: <trigger>`` in one transaction, refused as a whole (outcome "conflict")
  when a file is not the text the run staged from, the cursor moved, or the lease was lost;
  so a crash at any instant leaves no partial publish and there is no journal to recover;
- the instructions are the built-in text (a database workspace has no ``prompts/dream.md``);
- the sources of the lines a run adds go to the stores' provenance records
  (``reverie.memory.provenance.record.note_changes``) before the publish, as a folder's go to its
  sidecar, so ``why`` and ``forget`` answer for a database dream too;
- the back-off state is kept by the stores (``DreamStateText``), shared by every server.

Across servers each entry is consumed exactly once: the lease lets one run at a time, and the
publish's cursor and lease checks stop a run that lost its lease.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from reverie.config.settings import DreamConfig
from reverie.errors import LockTimeoutError
from reverie.memory.dream.cycle import DreamCycle, Published
from reverie.memory.dream.state import DreamState, DreamStateText
from reverie.memory.dream.store_staging import StoreStaging
from reverie.memory.provenance.record import note_changes

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider
    from reverie.memory.dream.schedule import Schedule
    from reverie.storage.folder.entries import HistoryEntry
    from reverie.storage.ports import DreamStores


class StoreDreamer(DreamCycle[StoreStaging]):
    """Runs dream on a database workspace with one model, or model-free (see the docstring)."""

    def __init__(
        self,
        stores: DreamStores,
        provider: Provider | None,
        *,
        config: DreamConfig | None = None,
        counter: TokenCounter | None = None,
        max_output_tokens: int = 4_096,
        schedule: Schedule | None = None,
    ) -> None:
        """Wire a dreamer to ``stores`` (arguments as for ``memory.dream.runner.Dreamer``)."""
        super().__init__(
            provider,
            config=config,
            counter=counter,
            max_output_tokens=max_output_tokens,
            schedule=schedule,
        )
        self.stores: DreamStores = stores
        self.state_store = DreamStateText(stores.dream_state)

    def state(self) -> DreamState:
        """The persisted back-off state (shared by every server)."""
        return self.state_store.read()

    def _write_state(self, state: DreamState) -> None:
        self.state_store.write(state)

    @contextmanager
    def _hold(self) -> Iterator[bool]:
        with ExitStack() as stack:
            try:
                stack.enter_context(self.stores.lock("dream").hold(timeout=0))
            except LockTimeoutError:
                yield False
                return
            yield True

    def _new_staging(self) -> StoreStaging:
        return StoreStaging(self.stores.files, self.stores.skills)

    def _note_sources(self, staging: StoreStaging, entries: Sequence[HistoryEntry]) -> None:
        changes = staging.changes()
        if not changes:
            return
        note_changes(
            self.stores.provenance,
            self.stores.sessions,
            old={path: staging.base(path) for path in changes},
            changes=changes,
            entries=entries,
            at=self.stores.clock(),
        )

    def _publish_staged(
        self, staging: StoreStaging, *, expected: int, cursor: int, trigger: str
    ) -> Published:
        changes = staging.changes()
        commit = self.stores.publish_dream(
            changes,
            bases={path: staging.base(path) for path in changes},
            subject=f"dream: {trigger}",
            dream_cursor=cursor,
            expected_cursor=expected,
        )
        return Published(changed=tuple(changes), commit=commit)
