"""Moving session journals into the SQLite session store: lossless and safe to kill at any point.

When an opened workspace still has journals in ``sessions/`` (written by an older reverie),
each one is moved into the database, one at a time, under the ``sessions-migration`` lock:

1. The journal is read (``journal_reader``); a torn tail or a bad line is first quarantined
   and cut out of the file (nothing is dropped, not even a torn tail).
2. In one transaction its message lines go into ``messages`` verbatim (every field, every
   append time), its mark, summary, metadata and times into ``sessions``, and its digest
   (unique per journal) into ``migrated``.
3. After the commit the journal and its old checkpoint (``.reverie/sessions/``) are removed
   (and that folder, once empty).

A SIGKILL before step 2 commits leaves the journal and no row: the next open moves it again.
A kill between 2 and 3 leaves both: the next open finds the digest in ``migrated`` and only
removes the journal. A journal whose key already has a row it was not migrated into (written
by an older reverie after the move) is left in place with a warning, never merged blindly.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.core.clock import Clock, require_aware
from reverie.errors import StorageError
from reverie.storage.folder.journal_reader import SUFFIX, journal_paths, read_journal
from reverie.storage.folder.sessions_sql import insert_session

if TYPE_CHECKING:
    from reverie.storage.folder.locks import ProcessLock
    from reverie.storage.folder.sessions_sqlite import SqliteSessionStore

logger = logging.getLogger(__name__)

_TABLE = "CREATE TABLE IF NOT EXISTS migrated(digest TEXT PRIMARY KEY, key TEXT NOT NULL)"


def has_journals(directory: Path) -> bool:
    """Whether ``directory`` (``sessions/``) holds any journal (cheap: one listing)."""
    try:
        return bool(journal_paths(directory))
    except StorageError:  # an unlistable folder: nothing can be moved; the open goes on
        return False


def migrate_journals(
    directory: Path,
    target: SqliteSessionStore,
    lock: ProcessLock,
    *,
    checkpoints: Path,
    clock: Clock,
) -> int:
    """Move every journal in ``directory`` into ``target``; return how many were moved.

    Raises:
        StorageError: a journal or the database cannot be read or written (what was moved
            stays moved; the rest is moved by the next open).
    """
    moved = 0
    with lock.hold():
        for path in journal_paths(directory):
            moved += _move(path, target, checkpoints, clock)
        with contextlib.suppress(OSError):  # the old checkpoints' folder, once empty
            checkpoints.rmdir()
    if moved:
        logger.info("moved %d session journals into %s", moved, target.database)
    return moved


def _move(path: Path, target: SqliteSessionStore, checkpoints: Path, clock: Clock) -> int:
    journal = read_journal(path, target.quarantine, require_aware(clock()))
    if journal is None:
        return 0
    key = journal.session.key
    with target.transaction() as conn:
        conn.execute(_TABLE)
        done = conn.execute("SELECT 1 FROM migrated WHERE digest = ?", (journal.digest,))
        if done.fetchone() is None:
            if target.has_row(conn, key):
                logger.warning("session %s has a journal and a database row; journal left", key)
                return 0
            insert_session(conn, journal.session, journal.lines, secrets.token_hex(8))
            conn.execute("INSERT INTO migrated(digest, key) VALUES (?, ?)", (journal.digest, key))
    path.unlink(missing_ok=True)
    (checkpoints / (path.name.removesuffix(SUFFIX) + ".json")).unlink(missing_ok=True)
    return 1
