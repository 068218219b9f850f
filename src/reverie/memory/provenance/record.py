"""Noting a dream run's sources in the provenance records, just before the run publishes.

``note_changes`` is the one call the dream runner makes, on any backend's ``ProvenancePort``
(a folder's sidecar, a database's row): it reads the records, attributes the lines the run
adds over the texts it staged from (``attribution``), and replaces the records. Published files of
more than ``MAX_PUBLISHED_LINES`` lines in all are not attributed (checked by counting
newlines, before any parsing), so such a run costs dream nothing measurable. The runner holds
the dream lock, so no other writer (dream, restore, forget) races it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.memory.provenance.attribution import attribute, session_loader

logger = logging.getLogger(__name__)

MAX_PUBLISHED_LINES = 5_000
"""Files longer than this in all (no durable file should be) are not attributed at all."""

if TYPE_CHECKING:
    from reverie.core.entries import HistoryEntry
    from reverie.storage.ports import ProvenancePort, SessionsPort


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
