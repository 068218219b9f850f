"""The storage seam: what the engine and the processes use of reverie's stores, as protocols.

Every store reverie keeps is reached through one of these protocols, never through a
concrete class, so that another backend (PostgreSQL, for several reverie servers sharing one
database; see ``docs/scale-out.md``) can stand in for the file-backed workspace. The file
backend (``reverie.storage.folder.workspace.Workspace`` plus ``reverie.storage.folder.backend``) is
the embedded default; ``tests/test_ports.py`` has mypy check that each file-backed class conforms.

The contract each implementation keeps (DESIGN.md's invariants, stated per protocol):

- ``HistoryPort.append`` allocates the next cursor and appends in one step under a lock that
  holds across threads, processes (and, for a server backend, machines): cursors are strictly
  increasing, never reused, and a reader following them never skips one (invariant 1).
  ``read_since`` costs time proportional to what it returns (invariant 2). An acknowledged
  append survives a crash (invariant 3).
- ``CursorPort`` is the dream cursor: written only after a completed dream, rolled back by
  ``AuditPort.restore`` with the durable files (invariant 7).
- ``SessionsPort.append``/``append_many`` cost O(1) in the session's length (invariant 4), and
  two processes writing one session lose nothing.
- ``MemoryFilesPort`` addresses the durable files by a closed set of names, never by a path.
- ``AuditPort.commit`` builds its message from the real diff (invariant 9); ``restore`` is a
  new commit, never a rewrite (``purge`` is the one, explicit, exception).
- ``LocksPort.lock(name)`` returns a lock exclusive across processes (dream, compaction per
  session, ingest, search refresh), held with ``with lock.hold(timeout=...)``.
- ``IndexPort`` answers from current data: it catches up with the stores before a query.
- ``ProvenancePort`` (``reverie.storage.ports.provenance``) is replaced whole under the dream lock;
  ``ProvenanceAccess`` gives ``why``/``forget``/``purge`` the durable files by path and the
  backend's own purge steps, so both backends forget with the same semantics.
- ``IngestRecordsPort`` (``reverie.storage.ports.ingest``) keeps what ingest brought in and the run
  it is in, so a rerun adds nothing twice and finishes what an interrupted run left.

The protocols, one per store, are in ``reverie.storage.ports.stores``; the bundles a process or a
backend holds (``Stores``, ``Backend``...) in ``reverie.storage.ports.bundles``; what a backend
without a folder adds for dream (``DreamStores``: skills, back-off state, one-step publish)
in ``reverie.storage.ports.dream``. Nothing here does
anything at run time.
"""

from __future__ import annotations

from reverie.storage.ports.bundles import (
    AgentStores,
    Backend,
    DoctorStores,
    DreamStores,
    IngestStores,
    PromptStores,
    ProvenanceStores,
    SessionLogStores,
    Stores,
)
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
    LockPort,
    LocksPort,
    MemoryFilesPort,
    QuarantinePort,
    RawTranscriptsPort,
    RejectionsPort,
    SessionsPort,
    SkillFilesPort,
)

__all__ = [
    "AgentStores",
    "AuditPort",
    "Backend",
    "CursorPort",
    "DoctorStores",
    "DreamFilesPort",
    "DreamStatePort",
    "DreamStores",
    "HistoryPort",
    "IndexPort",
    "IngestRecordsPort",
    "IngestStores",
    "LedgerPort",
    "LockPort",
    "LocksPort",
    "MemoryFilesPort",
    "PromptStores",
    "ProvenanceAccess",
    "ProvenancePort",
    "ProvenanceStores",
    "QuarantinePort",
    "RawTranscriptsPort",
    "RejectionsPort",
    "SessionLogStores",
    "SessionsPort",
    "SkillFilesPort",
    "Stores",
]
