"""The dream lock: one dream, restore or person's edit at a time, after finishing a publish.

``DreamLocking`` is the base of ``Dreamer`` (``reverie.memory.dream.runner``, which runs dream). It
holds the workspace's ``dream`` lock for a run (without waiting: "busy"), a ``restore`` and a
person's edit (``exclusive``, waiting up to a timeout), and under it first finishes a publish
a crash interrupted (``journal``: files, then the cursor, then one audit commit holding both,
then the journal goes; every step idempotent). So neither a restore nor an edit can be rolled
forward over later by recovery, and the cursor moves only with its commit (invariant 7).
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from reverie.errors import LockTimeoutError
from reverie.memory.dream.journal import finish_publish, recover_publish
from reverie.memory.dream.rewind import check_rewind

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from reverie.storage.folder.audit import CommitInfo
    from reverie.storage.folder.workspace import Workspace

logger = logging.getLogger(__name__)


class DreamLocking:
    """The dream lock and publish recovery of one workspace (see the module docstring)."""

    workspace: Workspace
    journal: Path

    def recover(self) -> bool:
        """Finish an interrupted publish, if any, under the dream lock (waiting for it).

        Returns:
            True when a publish was finished.

        Raises:
            DreamError: the journal is unusable (``PublishJournalError``) or unsafe on disk.
        """
        lock = self.workspace.lock("dream")
        try:
            with lock.hold():
                return self._recover_locked()
        finally:
            lock.close()

    def restore(self, rev: str, *, force: bool = False) -> CommitInfo:
        """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

        Holds the dream lock (waiting for a running dream) and first finishes an interrupted
        publish, so the restore cannot be rolled forward over later.

        Raises:
            RevisionNotFoundError: ``rev`` names no commit.
            RestoreWouldLoseError: ``rev`` is older than a trim (see ``rewind``), not forced.
            DreamError: an interrupted publish could not be recovered.
        """
        lock = self.workspace.lock("dream")
        try:
            with lock.hold():
                self._recover_locked()
                if not force:
                    check_rewind(self.workspace, rev)
                return self.workspace.audit.restore(rev)
        finally:
            lock.close()

    @contextlib.contextmanager
    def exclusive(self, *, timeout: float | None = None) -> Iterator[None]:
        """Hold the dream lock for a ``with`` block, after finishing an interrupted publish.

        For a person's edit (``reverie.memory.dream.edit``): no dream publishes meanwhile, and no
        later recovery can roll an older publish forward over the edit.

        Raises:
            LockTimeoutError: a dream held the lock for ``timeout`` seconds.
        """
        lock = self.workspace.lock("dream")
        try:
            with lock.hold(timeout=timeout):
                self._recover_locked()
                yield
        finally:
            lock.close()

    @contextlib.contextmanager
    def _dream_lock(self) -> Iterator[bool]:
        lock = self.workspace.lock("dream")
        try:
            with contextlib.ExitStack() as stack:
                try:
                    stack.enter_context(lock.hold(timeout=0))
                except LockTimeoutError:
                    yield False
                    return
                yield True
        finally:
            lock.close()

    def _finish_publish(self, cursor: int, trigger: str) -> CommitInfo | None:
        """Cursor, then one commit holding files and cursor, then the journal goes (idempotent)."""
        self.workspace.dream_cursor.write(cursor)
        commit = self.workspace.audit.commit(f"dream: {trigger}")
        finish_publish(self.journal)
        return commit

    def _recover_locked(self) -> bool:
        recovered = recover_publish(self.workspace.root, self.journal)
        if recovered is None:
            return False
        logger.warning(
            "finishing an interrupted dream publish (cursor %d, %d file(s) rewritten)",
            recovered.cursor,
            len(recovered.rewritten),
        )
        self._finish_publish(recovered.cursor, recovered.trigger)
        return True
