"""Noting a dream run's sources in the sidecar, just before the run publishes.

``note_run`` is the one call the folder's dream runner makes: it reads the sidecar, attributes
the lines the run adds (``attribution``), and replaces the sidecar atomically. ``note_changes``
does the same on any backend's ``ProvenancePort`` (a database dream uses it). Published files of
more than ``MAX_PUBLISHED_LINES`` lines in all are not attributed (checked by counting
newlines, before any parsing), so such a run costs dream nothing measurable. The runner holds
the dream lock, so no other writer (dream, restore, forget) races it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.memory.provenance.attribution import attribute, session_loader
from reverie.storage.folder.provenance_file import DEFAULT_SIDECAR, ProvenanceFile

logger = logging.getLogger(__name__)

MAX_PUBLISHED_LINES = 5_000
"""Files longer than this in all (no durable file should be) are not attributed at all."""

if TYPE_CHECKING:
    from reverie.storage.folder.entries import HistoryEntry
    from reverie.storage.ports import ProvenancePort, SessionsPort


def sidecar(root: Path) -> ProvenanceFile:
    """The provenance sidecar of the workspace at ``root``."""
    return ProvenanceFile(root / DEFAULT_SIDECAR)


def note_run(
    root: Path,
    sessions: SessionsPort,
    *,
    changes: Mapping[str, str],
    entries: Sequence[HistoryEntry],
    at: datetime,
) -> int:
    """Record where the lines of ``changes`` (path -> new text) came from; return how many.

    The folder's form of ``note_changes``: the old texts are the files under ``root``.

    Raises:
        StorageError: the sidecar could not be written (the run then fails before publishing).
    """
    old = {path: _text(root / path) for path in changes}
    return note_changes(sidecar(root), sessions, old=old, changes=changes, entries=entries, at=at)


def note_changes(
    provenance: ProvenancePort,
    sessions: SessionsPort,
    *,
    old: Mapping[str, str],
    changes: Mapping[str, str],
    entries: Sequence[HistoryEntry],
    at: datetime,
) -> int:
    """Record where the lines ``changes`` adds over ``old`` came from, on any backend.

    A database dream calls this with ``stores.provenance`` before it publishes.

    Raises:
        StorageError: the records could not be written (the run then fails before publishing).
    """
    if not changes:
        return 0
    lines = sum(text.count("\n") for text in changes.values())
    if lines > MAX_PUBLISHED_LINES:  # checked before any parsing: dream's speed stays the same
        logger.warning("dream wrote %d lines; their provenance is not recorded", lines)
        return 0
    records = provenance.read()
    loader = session_loader(lambda key: sessions.load(key).messages)
    noted = attribute(records, old=old, new=changes, entries=entries, messages_of=loader, at=at)
    if noted:
        provenance.write(records)
    return noted


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return ""
