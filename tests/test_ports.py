"""The file backend conforms to the storage seam (``reverie.storage.ports``), checked by mypy and
run."""

from __future__ import annotations

from pathlib import Path

from reverie.storage.folder.audit import AuditRepo
from reverie.storage.folder.backend import FileBackend
from reverie.storage.folder.cursors import DreamCursor
from reverie.storage.folder.dream_files import FolderDreamFiles
from reverie.storage.folder.history import HistoryLog
from reverie.storage.folder.index.index import SearchIndex
from reverie.storage.folder.ingest_records import FolderIngestRecords
from reverie.storage.folder.ledger import Ledger
from reverie.storage.folder.locks import ProcessLock
from reverie.storage.folder.memory_files import MemoryFiles
from reverie.storage.folder.provenance_file import ProvenanceFile
from reverie.storage.folder.quarantine import Quarantine
from reverie.storage.folder.rejections import RejectionLog
from reverie.storage.folder.sessions_sqlite import SqliteSessionStore
from reverie.storage.folder.workspace import Workspace
from reverie.storage.ports import (
    AuditPort,
    Backend,
    CursorPort,
    DoctorStores,
    DreamFilesPort,
    DreamStores,
    HistoryPort,
    IndexPort,
    IngestRecordsPort,
    IngestStores,
    LedgerPort,
    LockPort,
    LocksPort,
    MemoryFilesPort,
    ProvenancePort,
    ProvenanceStores,
    QuarantinePort,
    RejectionsPort,
    SessionsPort,
    Stores,
)

# mypy checks each assignment: a concrete class that drifts from its protocol fails the gate.
AUDIT: type[AuditPort] = AuditRepo
BACKEND: type[Backend] = FileBackend
CURSOR: type[CursorPort] = DreamCursor
DOCTOR_STORES: type[DoctorStores] = Workspace
DREAM_FILES: type[DreamFilesPort] = FolderDreamFiles
DREAM_STORES: type[DreamStores] = Workspace
HISTORY: type[HistoryPort] = HistoryLog
INDEX: type[IndexPort] = SearchIndex
INGEST_RECORDS: type[IngestRecordsPort] = FolderIngestRecords
INGEST_STORES: type[IngestStores] = Workspace
LEDGER: type[LedgerPort] = Ledger
LOCK: type[LockPort] = ProcessLock
LOCKS: type[LocksPort] = Workspace
FILES: type[MemoryFilesPort] = MemoryFiles
PROVENANCE: type[ProvenancePort] = ProvenanceFile
PROVENANCE_STORES: type[ProvenanceStores] = FileBackend
QUARANTINE: type[QuarantinePort] = Quarantine
REJECTIONS: type[RejectionsPort] = RejectionLog
SESSIONS: type[SessionsPort] = SqliteSessionStore
STORES: type[Stores] = Workspace


def test_the_file_backend_opens_as_a_backend_and_its_parts_work(tmp_path: Path) -> None:
    backend: Backend = FileBackend.open(tmp_path / "ws", create=True)
    try:
        entry = backend.history.append("the user prefers tea", session_key="cli:a")
        assert backend.history.read_since(0) == [entry]
        backend.dream_cursor.write(entry.cursor)
        assert backend.dream_cursor.read() == entry.cursor
        with backend.lock("dream").hold(timeout=0):
            pass
        index = backend.open_index()
        try:
            assert [hit.cursor for hit in index.search("tea")] == [entry.cursor]
        finally:
            index.close()
    finally:
        backend.close()
