"""The storage seam's bundles: the stores a process, the engine or a backend holds together.

``SessionLogStores`` (compaction), ``PromptStores`` (prompt assembly), ``AgentStores`` (the
built-in agent), ``Stores`` (all of them, what the engine reaches), ``IngestStores`` (``Stores``
plus the ingest records: what ``reverie.memory.ingest.run`` uses), ``ProvenanceStores`` (``Stores``
plus ``ProvenanceAccess``: what ``why``, ``forget`` and ``purge`` work on), ``DoctorStores``
(``IngestStores`` plus the backend's own doctor checks: what ``doctor`` works on), ``DreamStores``
(``Stores`` plus dream's files, provenance and one-step publish: what a dream run, a restore and a
person's edit work on; ``reverie.storage.ports.dream``) and ``Backend`` (all of them, plus its
search index: what ``MemoryEngine`` is built from).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from reverie.storage.ports.dream import DreamFilesPort
from reverie.storage.ports.ingest import IngestRecordsPort
from reverie.storage.ports.provenance import ProvenanceAccess, ProvenancePort
from reverie.storage.ports.stores import (
    AuditPort,
    CursorPort,
    DreamStatePort,
    HistoryPort,
    IndexPort,
    LedgerPort,
    LocksPort,
    MemoryFilesPort,
    QuarantinePort,
    RawTranscriptsPort,
    RejectionsPort,
    SessionsPort,
    SkillFilesPort,
)
from reverie.storage.ports.vectors import FollowedPort, VectorRowsPort

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.core.audit import CommitInfo
    from reverie.core.clock import Clock
    from reverie.core.findings import DoctorReport, Place


class SessionLogStores(LocksPort, Protocol):
    """What compaction uses: sessions, the history log and per-session locks."""

    @property
    def sessions(self) -> SessionsPort:
        """Live sessions."""

    @property
    def history(self) -> HistoryPort:
        """The history log."""


class PromptStores(Protocol):
    """What prompt assembly reads: the durable files and the history since the dream cursor."""

    @property
    def files(self) -> MemoryFilesPort:
        """The durable files."""

    @property
    def history(self) -> HistoryPort:
        """The history log."""

    @property
    def dream_cursor(self) -> CursorPort:
        """The dream cursor."""


class AgentStores(Protocol):
    """What the built-in agent uses: sessions and the durable files (its read tool)."""

    @property
    def sessions(self) -> SessionsPort:
        """Live sessions."""

    @property
    def files(self) -> MemoryFilesPort:
        """The durable files."""


class Stores(SessionLogStores, PromptStores, AgentStores, Protocol):
    """Every store of one workspace, as the engine and the processes reach them."""

    @property
    def location(self) -> str:
        """Where the stores live, for people (a folder, a database name)."""

    @property
    def clock(self) -> Clock:
        """The time source the stores stamp with."""

    @property
    def local_folder(self) -> Path | None:
        """The folder the workspace lives in, for caches kept beside it (None: a database)."""

    @property
    def raw_transcripts(self) -> RawTranscriptsPort | None:
        """Where raw transcripts are kept on the owner's opt-in (None: this backend keeps none)."""

    @property
    def quarantine(self) -> QuarantinePort:
        """History lines taken out of the log."""

    @property
    def audit(self) -> AuditPort:
        """The audit history."""

    @property
    def ledger(self) -> LedgerPort:
        """The model-call ledger."""

    @property
    def rejections(self) -> RejectionsPort:
        """Refused SOUL.md rules."""

    @property
    def skills(self) -> SkillFilesPort:
        """The skill files (``skills/<name>/SKILL.md``) dream writes."""

    @property
    def dream_state(self) -> DreamStatePort:
        """The dream's back-off state."""

    def close(self) -> None:
        """Release everything open (the stores may be opened again later)."""


class ProvenanceStores(Stores, ProvenanceAccess, Protocol):
    """Every store plus provenance access: what ``why``, ``forget`` and ``purge`` work on."""


class IngestStores(Stores, Protocol):
    """What ingest uses: every store plus the ingest records (``reverie.storage.ports.ingest``)."""

    @property
    def ingest_records(self) -> IngestRecordsPort:
        """The imported-sources marks and the record of a running ingest."""


class DoctorStores(IngestStores, Protocol):
    """What ``doctor`` checks: every store, plus the backend's own checks and file names."""

    def path_of(self, what: Place | str) -> str | None:
        """Where ``what`` lives, for people (None: nowhere a person opens).

        ``what``: a ``Place``, or a durable file's or skill's canonical path (``core.durable``).
        """

    def doctor_checks(self, report: DoctorReport) -> None:
        """Add what only this backend can check to ``report`` (never raises; only reads)."""


class DreamStores(Stores, Protocol):
    """``Stores`` plus dream's files, provenance and one-step publish (see ``ports.dream``)."""

    @property
    def dream_files(self) -> DreamFilesPort:
        """The files a dream run stages and reads."""

    @property
    def provenance(self) -> ProvenancePort:
        """The provenance records a run adds to before it publishes."""

    def publish_dream(
        self,
        changes: Mapping[str, str],
        *,
        bases: Mapping[str, str],
        trigger: str,
        dream_cursor: int,
        expected_cursor: int,
    ) -> CommitInfo | None:
        """Write ``changes`` (canonical path -> text), the cursor and one commit, all or none.

        Raises:
            DreamError: nothing was written: a file is not its ``bases`` text any more
                (``PublishConflictError``), the cursor moved, or the dream lock was lost.
        """

    def finish_interrupted_publish(self) -> bool:
        """Finish a publish a crash interrupted (caller holds the dream lock); True if one was.

        Raises:
            DreamError: the leftover publish cannot be finished (e.g. an unusable journal).
        """


class Backend(DreamStores, ProvenanceStores, DoctorStores, Protocol):
    """The stores plus the search index over them: what ``MemoryEngine`` is built from."""

    def open_index(self) -> IndexPort:
        """Return a new search index over these stores (opened on first use)."""
        ...

    def open_vectors(self) -> VectorRowsPort:
        """Return where dense recall keeps these stores' vectors (``ports.vectors``)."""
        ...

    def follower(self, index: IndexPort) -> FollowedPort:
        """Return what dense recall follows: ``index`` itself, or the backend's own listing."""
