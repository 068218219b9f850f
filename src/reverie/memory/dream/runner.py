"""The dream run on a workspace folder: ``DreamCycle`` with a staging copy over the disk.

``Dreamer`` wires the run of ``reverie.memory.dream.cycle`` (lock, prompt, bounded loop, guard,
publish, cursor, one commit, back-off, transcript) to one workspace folder:

- the lock is the workspace's ``dream`` lock (a lock file), tried once;
- the staging copy is ``Staging`` (every path checked on the real tree), the instructions may
  be overridden by the workspace's ``prompts/dream.md``;
- a publish journals the guarded texts (``journal``: the journal carries the new cursor),
  replaces the files, writes the dream cursor, makes ONE audit commit holding files and
  cursor, then deletes the journal; the sources of every line the run adds go to the
  provenance sidecar first;
- the back-off state is the workspace's ``dream_state`` (``.reverie/dream-state.json``), read
  through ``DreamStateText`` as on a database.

Crash safety: the journal is written before any durable file changes and deleted only after the
commit, and every step after it is idempotent (rewriting a file to its journaled text, writing
the same cursor, a commit that finds nothing new), so recovery at the start of the next run
simply repeats them. Until recovery ran, the files may be new while the cursor is old; recovery
runs under the dream lock before anything reads them. ``restore`` and ``exclusive`` (a person's
edit) take the same lock and recover first (``locking``), so neither is undone by a later
roll-forward.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from reverie.config.settings import DreamConfig
from reverie.memory.dream.cycle import DreamCycle, Published
from reverie.memory.dream.journal import DEFAULT_JOURNAL
from reverie.memory.dream.locking import DreamLocking
from reverie.memory.dream.prompt import InstructionSource, load_instructions
from reverie.memory.dream.staging import Staging
from reverie.memory.dream.state import DreamState, DreamStateText
from reverie.memory.provenance.record import note_run

if TYPE_CHECKING:
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider
    from reverie.memory.dream.schedule import Schedule
    from reverie.storage.folder.entries import HistoryEntry
    from reverie.storage.folder.workspace import Workspace


class Dreamer(DreamLocking, DreamCycle[Staging]):
    """Runs dream on one workspace folder with one model (see the module docstring)."""

    def __init__(
        self,
        workspace: Workspace,
        provider: Provider | None,
        *,
        config: DreamConfig | None = None,
        counter: TokenCounter | None = None,
        max_output_tokens: int = 4_096,
        schedule: Schedule | None = None,
    ) -> None:
        """Wire a dreamer.

        Args:
            workspace: the open workspace.
            provider: the model that curates; None runs the model-free curator instead.
            config: batch size, caps and bounds (DESIGN.md's defaults when None).
            counter: prices calls whose usage the provider does not report.
            max_output_tokens: cap asked of each reply (lowered when the budget has less left).
            schedule: the trigger rules for ``should_run`` (built from ``config`` when None).
        """
        super().__init__(
            provider,
            config=config,
            counter=counter,
            max_output_tokens=max_output_tokens,
            schedule=schedule,
        )
        self.workspace = workspace
        self.stores = workspace
        self.journal = workspace.root / DEFAULT_JOURNAL
        self.state_store = DreamStateText(workspace.dream_state)

    def state(self) -> DreamState:
        """The persisted back-off state."""
        return self.state_store.read()

    def _write_state(self, state: DreamState) -> None:
        self.state_store.write(state)

    def _hold(self) -> AbstractContextManager[bool]:
        return self._dream_lock()

    def _new_staging(self) -> Staging:
        return Staging(self.workspace.root)

    def _instructions(self) -> tuple[str, InstructionSource]:
        return load_instructions(self.workspace.root)

    def _note_sources(self, staging: Staging, entries: Sequence[HistoryEntry]) -> None:
        note_run(
            self.workspace.root,
            self.workspace.sessions,
            changes=staging.changes(),
            entries=entries,
            at=self.workspace.clock(),
        )

    def _publish_staged(
        self, staging: Staging, *, expected: int, cursor: int, trigger: str
    ) -> Published:
        del expected  # under the folder's dream lock the cursor cannot move: files can
        changed = staging.publish(self.journal, cursor=cursor, trigger=trigger)
        return Published(changed=changed, commit=self._finish_publish(cursor, trigger))
