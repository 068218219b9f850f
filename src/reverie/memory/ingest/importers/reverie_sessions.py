"""The sessions of a reverie workspace folder, read as values without touching the folder.

A reverie workspace is a nanobot workspace (history, cursors, durable files) whose sessions
live in ``.reverie/sessions.sqlite3``, which nanobot's session reader cannot see.
``read_reverie_sessions`` has storage read a copy of the database and its write-ahead log
(``reverie.storage.sources.read_sessions_copy``): opening the source itself could create or
checkpoint files in a folder that is only being read.

Every session comes back whole: messages, compaction mark (ingest stores what the source had
compacted as compacted, never summarised again), compaction summary and metadata. Internal
sessions (``dream:``, ``cron:``, transcripts of the source's own jobs) and empty ones are
left out. A database that cannot be read is one problem (position 0), never an abort.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reverie.core.session import Session, is_internal
from reverie.errors import StorageError
from reverie.memory.ingest.importers.conversation import ImportProblem
from reverie.storage.sources import SourceFolder, read_sessions_copy


def has_reverie_sessions(root: Path) -> bool:
    """Whether ``root`` holds a reverie sessions database."""
    return SourceFolder(root).sessions_database.is_file()


def read_reverie_sessions(root: Path) -> tuple[list[Session], list[ImportProblem]]:
    """Every non-internal, non-empty session of the reverie workspace at ``root``."""
    source = SourceFolder(root).sessions_database
    try:
        sessions = read_sessions_copy(source, wanted=lambda key: not is_internal(key))
    except (StorageError, sqlite3.Error, ValueError) as exc:
        return [], [_problem(source, f"not a readable sessions database ({exc})")]
    except OSError as exc:
        return [], [_problem(source, f"cannot read ({exc.strerror})")]
    return [session for session in sessions if session.messages], []


def _problem(path: Path, reason: str) -> ImportProblem:
    return ImportProblem(path=path, position=0, reason=reason)
