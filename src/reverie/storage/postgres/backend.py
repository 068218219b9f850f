"""``PgBackend``: one workspace of a PostgreSQL database as a ``reverie.storage.ports.Backend``.

Every store of the workspace (sessions, history, dream cursor, durable files, audit, ledger,
rejected rules, quarantine, provenance records, ingest records), what dream adds (skill files,
back-off state, the fenced one-step publish: ``reverie.storage.ports.DreamStores``), its named locks
and its search index, all over one connection pool (its own, or one that every workspace a
server opens shares: ``on_shared``), each scoped to the workspace by row-level security
(``reverie.storage.postgres``). Several processes on several machines may open the same
workspace at once: every invariant of DESIGN.md then holds across them (``docs/scale-out.md``
says how, and at what cost).

Opening checks the schema (``SchemaVersionError`` when it is missing, older or newer);
``init`` applies the migrations and makes the workspace, as ``reverie init`` does.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING

from reverie.core.audit import CommitInfo
from reverie.core.clock import Clock, system_clock
from reverie.storage.postgres.audit import PgAudit
from reverie.storage.postgres.database import Database, Tenant
from reverie.storage.postgres.dream_stores import (
    PgDreamFiles,
    PgDreamState,
    PgSkillFiles,
    publish_dream,
)
from reverie.storage.postgres.files import PgDreamCursor, PgMemoryFiles
from reverie.storage.postgres.history import PgHistoryLog
from reverie.storage.postgres.index import PgIndex
from reverie.storage.postgres.ingest_records import PgIngestRecords
from reverie.storage.postgres.locks import DEFAULT_TTL, PgLock
from reverie.storage.postgres.provenance import (
    PgProvenance,
    durable_texts,
    places_holding,
    scrub_side_records,
    write_durable,
)
from reverie.storage.postgres.records import PgLedger, PgQuarantine, PgRejections
from reverie.storage.postgres.sessions import PgSessionStore
from reverie.storage.postgres.vectors import PgFollower, PgVectorRows

if TYPE_CHECKING:
    from reverie.core.findings import DoctorReport, Place
    from reverie.core.needles import Needle


def holder_name() -> str:
    """Return a name for this process among every server: host, pid and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class PgBackend:
    """The stores, locks and index of one workspace in a PostgreSQL database."""

    def __init__(
        self,
        database: Database,
        tenant: Tenant,
        *,
        clock: Clock = system_clock,
        lease_ttl: timedelta = DEFAULT_TTL,
        owns_database: bool = True,
    ) -> None:
        self.database = database
        self.owns_database = owns_database
        self.lease_ttl = lease_ttl
        self.tenant = tenant
        self._clock = clock
        self._holder = holder_name()
        self._sessions = PgSessionStore(tenant, clock=clock)
        self._history = PgHistoryLog(tenant, clock=clock)
        self._cursor = PgDreamCursor(tenant)
        self._files = PgMemoryFiles(tenant)
        self._audit = PgAudit(tenant, clock=clock)
        self._ledger = PgLedger(tenant)
        self._rejections = PgRejections(tenant)
        self._provenance = PgProvenance(tenant)
        self._ingest_records = PgIngestRecords(tenant)
        self._locks: dict[str, PgLock] = {}
        self._skills = PgSkillFiles(tenant)
        self._dream_state = PgDreamState(tenant)

    @classmethod
    def open(
        cls,
        url: str,
        workspace: str,
        *,
        create: bool = False,
        clock: Clock = system_clock,
        max_connections: int = 8,
        lease_ttl: timedelta = DEFAULT_TTL,
    ) -> PgBackend:
        """Open workspace ``workspace`` of the database at ``url`` (made first if ``create``).

        With ``create``, the schema is created or migrated first (``reverie init``).
        ``lease_ttl``: how long a lock outlives a holder that died (``store.lease_seconds``).

        Raises:
            SchemaVersionError: the schema is missing, older or newer than this reverie's.
            DatabaseError: the database cannot be reached, or no such workspace.
        """
        database = Database(url, max_connections=max_connections)
        try:
            if create:
                database.init()
            tenant = database.tenant(workspace, create=create)
        except BaseException:
            database.close()
            raise
        return cls(database, tenant, clock=clock, lease_ttl=lease_ttl)

    @classmethod
    def on_shared(
        cls,
        database: Database,
        workspace: str,
        *,
        create: bool = False,
        clock: Clock = system_clock,
        lease_ttl: timedelta = DEFAULT_TTL,
    ) -> PgBackend:
        """Open workspace ``workspace`` over ``database``'s pool, which others share.

        The backend borrows the pool: its ``close`` leaves the pool open (its owner, e.g. a
        ``DatabaseHome``, closes it), so one pool serves every principal of a server.
        With ``create``, the workspace is made if missing (the schema must be there).

        Raises:
            SchemaVersionError: the schema is missing, older or newer than this reverie's.
            DatabaseError: the database cannot be reached, or no such workspace.
        """
        tenant = database.tenant(workspace, create=create)
        return cls(database, tenant, clock=clock, lease_ttl=lease_ttl, owns_database=False)

    @property
    def location(self) -> str:
        """The database (without credentials) and the workspace's name, for people."""
        return self.tenant.where

    @property
    def clock(self) -> Clock:
        """The time source the stores stamp with."""
        return self._clock

    @property
    def sessions(self) -> PgSessionStore:
        """Live sessions."""
        return self._sessions

    @property
    def history(self) -> PgHistoryLog:
        """The history log."""
        return self._history

    @property
    def dream_cursor(self) -> PgDreamCursor:
        """The dream cursor."""
        return self._cursor

    @property
    def quarantine(self) -> PgQuarantine:
        """Lines kept aside (the sessions' quarantine; a transaction never tears a line)."""
        return self._sessions.quarantine

    @property
    def files(self) -> PgMemoryFiles:
        """The durable files."""
        return self._files

    @property
    def audit(self) -> PgAudit:
        """The audit trail."""
        return self._audit

    @property
    def ledger(self) -> PgLedger:
        """The model-call ledger."""
        return self._ledger

    @property
    def rejections(self) -> PgRejections:
        """Refused SOUL.md rules."""
        return self._rejections

    @property
    def provenance(self) -> PgProvenance:
        """The provenance records of the durable lines (``why``, ``forget``, a dream)."""
        return self._provenance

    def durable_texts(self) -> dict[str, str]:
        """Every durable file, path -> text: the memory files, then skills."""
        return durable_texts(self.tenant)

    def write_durable(self, path: str, text: str) -> None:
        """Replace a durable file's working text (``forget``; the audit commits it)."""
        write_durable(self.tenant, path, text)

    def scrub_side_records(self, needle: Needle) -> int:
        """Delete the quarantine and ledger rows holding ``needle`` (``forget --purge``)."""
        return scrub_side_records(self.tenant, needle)

    def places_holding(self, needle: Needle) -> list[str]:
        """Every row of the workspace outside the audit that still holds ``needle``."""
        return places_holding(self.tenant, needle)

    @property
    def ingest_records(self) -> PgIngestRecords:
        """What ingest brought in and the ingest running now (``reverie.storage.ports.ingest``)."""
        return self._ingest_records

    @property
    def skills(self) -> PgSkillFiles:
        """The skill files (dream's ``skills/<name>/SKILL.md``)."""
        return self._skills

    @property
    def dream_state(self) -> PgDreamState:
        """Dream's back-off state, shared by every server."""
        return self._dream_state

    def publish_dream(
        self,
        changes: Mapping[str, str],
        *,
        bases: Mapping[str, str],
        trigger: str,
        dream_cursor: int,
        expected_cursor: int,
    ) -> CommitInfo | None:
        """A dream's publish: files, cursor and one commit in one fenced transaction."""
        return publish_dream(
            self.tenant,
            self._audit,
            self.lock("dream"),
            changes,
            bases=bases,
            subject=f"dream: {trigger}",
            dream_cursor=dream_cursor,
            expected_cursor=expected_cursor,
        )

    @property
    def local_folder(self) -> None:
        """None: a database workspace lives in no folder."""
        return None

    @property
    def raw_transcripts(self) -> None:
        """None: a database workspace keeps no raw transcripts (the setting is refused)."""
        return None

    def path_of(self, what: Place | str) -> None:  # noqa: ARG002
        """None: a database workspace keeps no file of its own."""
        return

    def doctor_checks(self, report: DoctorReport) -> None:
        """Nothing to check: writes are whole transactions, and the indexes the database's."""

    def finish_interrupted_publish(self) -> bool:
        """Nothing to finish: a publish here is one transaction (always False)."""
        return False

    @property
    def dream_files(self) -> PgDreamFiles:
        """The writable files as a dream run stages them (no other file exists here)."""
        return PgDreamFiles(self.files, self._skills)

    def lock(self, name: str) -> PgLock:
        """Return the lock ``name`` of this workspace, shared with every server."""
        if name not in self._locks:
            self._locks[name] = PgLock(self.tenant, name, holder=self._holder, ttl=self.lease_ttl)
        return self._locks[name]

    def open_index(self) -> PgIndex:
        """Return the search index (the tables themselves; nothing to build)."""
        return PgIndex(self.tenant)

    def open_vectors(self) -> PgVectorRows:
        """Return dense recall's vector rows, in this workspace's ``vectors`` table."""
        return PgVectorRows(self.tenant)

    def follower(self, index: object) -> PgFollower:
        """Return what dense recall follows: the tables' ``doc`` numbers (``index`` unused)."""
        del index
        return PgFollower(self.tenant)

    def close(self) -> None:
        """Close the connection pool if the backend owns it (it may not be used afterwards)."""
        if self.owns_database:
            self.database.close()
