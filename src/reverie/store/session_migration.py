"""Moving session journals into the SQLite session store: lossless and safe to kill at any point.

When a workspace opened with the SQLite backend still has journals in ``sessions/``, each one
is moved into the database, one at a time, under the ``sessions-migration`` lock:

1. The journal is replayed; a torn tail or a bad line is first quarantined by the journal
   store's own repair (nothing is dropped, not even a torn tail).
2. In one transaction its message lines go into ``messages`` verbatim (every field, every
   append time), its mark, summary, metadata and times into ``sessions``, and a digest of its
   head line (unique per journal: it holds a random id) into ``migrated``.
3. After the commit the journal and its checkpoint are removed.

A SIGKILL before step 2 commits leaves the journal and no row: the next open moves it again.
A kill between 2 and 3 leaves both: the next open finds the digest in ``migrated`` and only
removes the journal. A journal whose key already has a row it was not migrated into (written
by an older reverie after the move) is left in place with a warning, never merged blindly.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
from typing import TYPE_CHECKING

from reverie.errors import StorageError
from reverie.session import Session, safe_mark
from reverie.store.journal_file import read_whole
from reverie.store.session_keys import key_to_stem
from reverie.store.sessions_sql import insert_session

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

    from reverie.store.locks import ProcessLock
    from reverie.store.session_journal import Contents, Tally
    from reverie.store.sessions import SessionStore
    from reverie.store.sessions_sqlite import SqliteSessionStore

logger = logging.getLogger(__name__)

_TABLE = "CREATE TABLE IF NOT EXISTS migrated(digest TEXT PRIMARY KEY, key TEXT NOT NULL)"


def has_journals(journals: SessionStore) -> bool:
    """Whether ``sessions/`` holds any journal (cheap: one directory listing)."""
    try:
        return any(name.endswith(".journal") for name in _names(journals))
    except OSError:
        return False


def migrate_journals(journals: SessionStore, target: SqliteSessionStore, lock: ProcessLock) -> int:
    """Move every journal of ``journals`` into ``target``; return how many were moved.

    Raises:
        StorageError: a journal or the database cannot be read or written (what was moved
            stays moved; the rest is moved by the next open).
    """
    moved = 0
    with lock.hold():
        for info in journals.list():
            moved += _move(journals, target, info.key)
    if moved:
        logger.info("moved %d session journals into %s", moved, target.database)
    return moved


def _move(journals: SessionStore, target: SqliteSessionStore, key: str) -> int:
    path = journals.path(key)
    found = read_whole(path)
    if found is not None and (found[2] or _torn(path, found[0])):
        journals.repair(key)  # quarantines a torn tail or bad lines first (nothing dropped)
        found = read_whole(path)
    if found is None:
        return 0
    tally, contents, _bad = found
    digest = hashlib.sha256(tally.head).hexdigest()
    with target.transaction() as conn:
        conn.execute(_TABLE)
        done = conn.execute("SELECT 1 FROM migrated WHERE digest = ?", (digest,)).fetchone()
        if done is None and target.has_row(conn, key):
            logger.warning("session %s has a journal and a database row; journal left", key)
            return 0
        if done is None:
            _insert(conn, key, (tally, contents, path), digest)
    journals.delete(key)  # the journal, its checkpoint and its cached tally
    _remove_stray(journals, key)
    return 1


def _insert(
    conn: sqlite3.Connection, key: str, found: tuple[Tally, Contents, Path], digest: str
) -> None:
    tally, contents, path = found
    lines = [line.rstrip(b"\n").decode("utf-8") for line in contents.message_lines]
    created = tally.created_at
    if created is None:
        raise StorageError("journal without a creation time", path=path)
    session = Session(
        key=key,
        created_at=created,
        updated_at=tally.updated_at or created,
        messages=tuple(contents.messages),
        metadata=contents.metadata,
        compacted_upto=safe_mark(tally.mark, tally.messages) or 0,  # corrupt: 0, as a load does
        summary=contents.summary,
    )
    insert_session(conn, session, lines, secrets.token_hex(8))
    conn.execute("INSERT INTO migrated(digest, key) VALUES (?, ?)", (digest, key))


def _torn(path: Path, tally: Tally) -> bool:
    """Whether bytes follow the last whole line (a dead writer's torn tail)."""
    try:
        return path.stat().st_size > tally.size
    except FileNotFoundError:
        return False


def _remove_stray(journals: SessionStore, key: str) -> None:
    stray = journals.directory / (key_to_stem(key) + ".journal")
    stray.unlink(missing_ok=True)


def _names(journals: SessionStore) -> list[str]:
    return os.listdir(journals.directory)  # noqa: PTH208 -- names only
