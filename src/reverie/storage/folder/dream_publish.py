"""A workspace folder's dream publish and its recovery (``reverie.storage.ports.DreamStores``).

``publish_dream`` lands a dream run's result on a folder as one crash-safe step, under the
``dream`` lock the caller holds: it refuses (``DreamError``, nothing written) when the dream
cursor is no longer ``expected_cursor``, and (``PublishConflictError``) when a file's disk text
is not the text the run staged from (a person's edit meanwhile); otherwise it journals the new
texts (``dream_journal``: the journal carries the new cursor), replaces the files, writes the
dream cursor, makes ONE audit commit ``dream: <trigger>`` holding files and cursor, and deletes
the journal.

Crash safety: the journal is written before any durable file changes and deleted only after
the commit, and every step after it is idempotent (rewriting a file to its journaled text,
writing the same cursor, a commit that finds nothing new), so ``finish_interrupted_publish``
(run under the dream lock before anything reads the files: the next dream, a restore, a
person's edit, a forget) simply repeats them. Until it ran, the files may be new while the
cursor is old.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from reverie.errors import DreamError
from reverie.storage.folder import layout
from reverie.storage.folder.dream_journal import finish_publish, publish_files, recover_publish

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.core.audit import CommitInfo
    from reverie.storage.folder.audit import AuditRepo
    from reverie.storage.folder.cursors import DreamCursor

logger = logging.getLogger(__name__)


def publish_dream(
    root: Path,
    cursor: DreamCursor,
    audit: AuditRepo,
    changes: Mapping[str, str],
    *,
    bases: Mapping[str, str],
    trigger: str,
    dream_cursor: int,
    expected_cursor: int,
) -> CommitInfo | None:
    """Journal and replace ``changes``, then the cursor, one commit, the journal goes.

    Raises:
        DreamError: nothing was written: the cursor moved, or a file is not its ``bases``
            text any more (``PublishConflictError``), or a path is unsafe on disk.
    """
    found = cursor.read()
    if found != expected_cursor:
        raise DreamError(f"the dream cursor moved to {found} during this run")
    journal = root / layout.DREAM_JOURNAL
    publish_files(root, journal, changes, bases=bases, cursor=dream_cursor, trigger=trigger)
    return _finish(root, cursor, audit, dream_cursor, trigger)


def finish_interrupted_publish(root: Path, cursor: DreamCursor, audit: AuditRepo) -> bool:
    """Finish a publish a crash interrupted (the caller holds the dream lock); True if one was.

    Raises:
        DreamError: the journal is unusable (``PublishJournalError``) or unsafe on disk.
    """
    recovered = recover_publish(root, root / layout.DREAM_JOURNAL)
    if recovered is None:
        return False
    logger.warning(
        "finishing an interrupted dream publish (cursor %d, %d file(s) rewritten)",
        recovered.cursor,
        len(recovered.rewritten),
    )
    _finish(root, cursor, audit, recovered.cursor, recovered.trigger)
    return True


def _finish(
    root: Path, cursor: DreamCursor, audit: AuditRepo, to: int, trigger: str
) -> CommitInfo | None:
    """Cursor, then one commit holding files and cursor, then the journal goes (idempotent)."""
    cursor.write(to)
    commit = audit.commit(f"dream: {trigger}")
    finish_publish(root / layout.DREAM_JOURNAL)
    return commit
