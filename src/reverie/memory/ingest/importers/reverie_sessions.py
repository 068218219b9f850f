"""The sessions of a reverie workspace folder, read as values without touching the folder.

A reverie workspace is a nanobot workspace (history, cursors, durable files) whose sessions
live in ``.reverie/sessions.sqlite3`` (``reverie.storage.folder.sessions_sqlite``), which nanobot's
session reader cannot see. ``read_reverie_sessions`` copies the database and its write-ahead
log (where the newest transactions may still be) into a temporary folder and reads the copy
with the store's own reader: opening the source itself could create or checkpoint files in a
folder that is only being read.

Every session comes back whole: messages, compaction mark (ingest stores what the source had
compacted as compacted, never summarised again), archived summary and metadata. Internal
sessions (``dream:``, ``cron:``, transcripts of the source's own jobs) and empty ones are
left out. A database that cannot be read is one problem (position 0), never an abort.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from reverie.core.session import Session, is_internal
from reverie.errors import StorageError
from reverie.memory.ingest.importers.conversation import ImportProblem
from reverie.storage.folder import layout

_SIDE_FILES = ("-wal",)


def has_reverie_sessions(root: Path) -> bool:
    """Whether ``root`` holds a reverie sessions database."""
    return (root / layout.SESSIONS_DB).is_file()


def read_reverie_sessions(root: Path) -> tuple[list[Session], list[ImportProblem]]:
    """Every non-internal, non-empty session of the reverie workspace at ``root``."""
    from reverie.storage.folder.sessions_sqlite import SqliteSessionStore  # noqa: PLC0415 (sqlite3: on use)

    source = root / layout.SESSIONS_DB
    with tempfile.TemporaryDirectory(prefix="reverie-import-") as scratch:
        copy = Path(scratch) / source.name
        try:
            shutil.copyfile(source, copy)
            for suffix in _SIDE_FILES:
                side = source.with_name(source.name + suffix)
                if side.is_file():
                    shutil.copyfile(side, copy.with_name(copy.name + suffix))
        except OSError as exc:
            return [], [_problem(source, f"cannot read ({exc.strerror})")]
        store = SqliteSessionStore(Path(scratch) / "sessions", state_dir=Path(scratch), clock=_now)
        try:
            keys = [info.key for info in store.list() if not is_internal(info.key)]
            sessions = [store.load(key) for key in keys]
        except (StorageError, sqlite3.Error, ValueError) as exc:
            return [], [_problem(source, f"not a readable sessions database ({exc})")]
        finally:
            store.close()
    return [session for session in sessions if session.messages], []


def _problem(path: Path, reason: str) -> ImportProblem:
    return ImportProblem(path=path, position=0, reason=reason)


def _now() -> datetime:
    return datetime.now(UTC)
