"""The storage seam's ingest records: what an ingest remembers between runs.

Used by ``reverie.memory.ingest.run``.

Two records, kept by each backend in its own way (a folder: ``.reverie/imported.json`` and
``.reverie/ingest.json``; PostgreSQL: the ``ingest_marks`` and ``ingest_runs`` tables):

- the *marks*: a content key (a SHA-256 hex digest) per thing a nanobot workspace brought
  in (a durable file's text, a history entry), so a second ingest adds nothing. Marks only
  grow; adding one twice is a no-op.
- the *run*: the sessions an ingest is replaying, recorded before its first write and
  forgotten once dream has caught up. A run that is recorded while nobody holds the
  workspace's ``ingest`` lock was interrupted; the next ingest finishes its sessions.

Only the one ingest that holds the ``ingest`` lock writes either record. Nothing here does
anything at run time: protocols only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class IngestRecordsPort(Protocol):
    """The imported-sources marks and the record of a running ingest, of one workspace."""

    def marks(self) -> set[str]:
        """Every content key imported so far."""

    def add_marks(self, keys: Iterable[str]) -> None:
        """Remember ``keys`` as imported (durably, in one step)."""

    def running(self) -> list[str] | None:
        """The sessions of the recorded run (None: no run is recorded)."""

    def begin(self, sessions: Sequence[str]) -> None:
        """Record a run replaying ``sessions`` (replacing any recorded run)."""

    def finish(self) -> None:
        """Forget the recorded run (its sessions are compacted, dream has caught up)."""
