"""The workspace: one folder that holds everything reverie (and nanobot) remembers.

Layout (nanobot-compatible; reverie's own state lives in ``.reverie/``)::

    SOUL.md  USER.md  memory/MEMORY.md            durable files (git-audited)
    memory/history.jsonl  memory/.cursor           history log and its cursor floor
    memory/.dream_cursor                           last cursor dream consumed (git-audited)
    memory/history.quarantine.jsonl                lines taken out of the log, never dropped
    memory/ledger.jsonl                            one line per model call of a memory job
    .reverie/sessions.sqlite3 (+ -wal, -shm)       the sessions (SQLite in WAL mode)
    sessions/                                      journals an older reverie wrote, moved into
                                                   the database on the next open
    .reverie/sessions/                             their old checkpoints, removed as they move
    .reverie/sessions.quarantine.jsonl             journal lines taken out, never dropped
    .reverie/format                                workspace format number
    .reverie/rejected-rules.jsonl                  SOUL.md rules screening refused
    .reverie/audit-root                            the audit repository's recorded root commit
    .reverie/imported.json  .reverie/ingest.json   ingest's records (``store.ingest_records``)
    .reverie/locks/                                cross-process lock files
    .git/                                          the audit repository

``Workspace.open`` lays out a new workspace only when asked to; it never rewrites a file a
person or nanobot wrote. Opening an existing workspace (a nanobot one included) writes nothing
outside ``.reverie/`` (sessions live there too): the cursor files appear with the first
append, and the exclude file of a git repository reverie did not create is left alone.

Every path comes from ``layout``, and ``open`` refuses (``OutsideLinkError``, naming the path)
a workspace where a path reverie reads or writes is a symlink leading outside it, a file it
writes is a hard link, or a folder of ``.git`` it writes is a symlink leading outside: appends
to a linked history, ledger, cursor or sessions database would land elsewhere (through a hard
link too: the other name sees every write), commits through a linked ``.git/objects`` would be
stored elsewhere, and a linked durable file would bring an outside file's text into every
prompt.

A workspace with a newer format number, or whose files are not what
the layout needs (a folder where a file belongs, a cursor file that is not a number), raises a
``WorkspaceError`` naming the path. On every open it sweeps temp files of dead writers,
and repairs the history log (torn tail, invalid lines to the quarantine).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Self

from reverie.core.clock import Clock, system_clock
from reverie.core.durable import MEMORY_FILE_NAMES, STARTER_TEXTS
from reverie.core.entries import BadLine
from reverie.core.findings import Place
from reverie.errors import (
    AuditError,
    CursorError,
    StorageError,
    WorkspaceDamagedError,
    WorkspaceFormatError,
    WorkspaceMissingError,
)
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text, sweep_temp_files
from reverie.storage.folder.audit_foreign import refuse_foreign_folder
from reverie.storage.folder.audit_setup import settled
from reverie.storage.folder.cursors import CursorFloor, DreamCursor
from reverie.storage.folder.doctor_checks import PLACES, folder_checks
from reverie.storage.folder.dream_files import FolderDreamFiles, FolderDreamState, FolderSkillFiles
from reverie.storage.folder.dream_publish import finish_interrupted_publish, publish_dream
from reverie.storage.folder.history import HistoryLog
from reverie.storage.folder.history_scan import ScanMarker
from reverie.storage.folder.ingest_records import FolderIngestRecords
from reverie.storage.folder.ledger import Ledger
from reverie.storage.folder.locks import ProcessLock
from reverie.storage.folder.memory_files import MemoryFiles
from reverie.storage.folder.provenance_file import DEFAULT_SIDECAR, ProvenanceFile
from reverie.storage.folder.quarantine import Quarantine
from reverie.storage.folder.rejections import RejectionLog

if TYPE_CHECKING:
    from collections.abc import Mapping

    from reverie.core.audit import CommitInfo
    from reverie.core.findings import DoctorReport
    from reverie.storage.folder.audit import AuditRepo
    from reverie.storage.folder.sessions_sqlite import SqliteSessionStore

logger = logging.getLogger(__name__)

FORMAT = 1
"""The workspace format this reverie writes and reads."""


class Workspace:
    """An open workspace: its history log, memory files, cursors and audit repository."""

    def __init__(self, root: Path, *, clock: Clock) -> None:
        self.root = root
        self.clock = clock
        self.locks_dir = root / layout.LOCKS
        self._kept: list[ProcessLock] = []
        self.files = MemoryFiles(root)
        self.ingest_records = FolderIngestRecords(root)
        self.dream_cursor = DreamCursor(root / layout.DREAM_CURSOR)
        self.quarantine = Quarantine(root / layout.QUARANTINE)
        self.history = HistoryLog(
            root / layout.HISTORY,
            floor=CursorFloor(root / layout.CURSOR),
            dream_cursor=self.dream_cursor,
            lock=self._kept_lock("history"),
            quarantine=self.quarantine,
            marker=ScanMarker(root / layout.HISTORY_CHECKED),
            clock=clock,
        )
        self.ledger = Ledger(root / layout.LEDGER, lock=self._kept_lock("ledger"), root=root)
        self.rejections = RejectionLog(
            root / layout.REJECTED_RULES, lock=self._kept_lock("rejections")
        )
        self._audit_lock = self._kept_lock("audit")
        self._audit: AuditRepo | None = None
        self._audit_made = threading.Lock()
        self.sessions = _session_store(root, clock)
        self.skills = FolderSkillFiles(root)
        self.dream_state = FolderDreamState(root / layout.DREAM_STATE)
        self.dream_files = FolderDreamFiles(root)
        self.repairs: list[BadLine] = []
        self.read_only = False
        """Opened only to read: upkeep writes were tried and may have failed."""

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        create: bool = False,
        clock: Clock = system_clock,
        read_only: bool = False,
    ) -> Self:
        """Open (or, with ``create``, lay out) the workspace at ``path``.

        Args:
            path: the workspace folder.
            create: lay out a new workspace when ``path`` holds none yet (a folder with a
                ``memory/`` folder is an existing workspace and is opened as it is).
            clock: the time source for timestamps.
            read_only: open only to read (status, log, search, history, doctor): the upkeep
                of an open (temp-file sweep, history repair, audit set-up) is tried but may
                fail (a read-only or full disk, a damaged ``.git``), and damaged cursor files
                are left for ``doctor`` to report instead of refusing the open. The audit
                set-up is skipped when the files show it has nothing to do
                (``audit_setup.settled``), so such a read does not import dulwich.

        Raises:
            WorkspaceMissingError: nothing at ``path`` and ``create`` is false.
            WorkspaceFormatError: written by a newer reverie.
            WorkspaceDamagedError: a file or folder of the layout is unusable.
            OutsideLinkError: a path reverie uses is a link leading outside (``layout``).
            ForeignRepositoryError: ``.git`` is a project's repository (``audit_foreign``).
        """
        root = Path(path).expanduser().absolute()
        _check_root(root, create=create and not read_only)
        _check_links(root)
        if create and not read_only and not (root / layout.MEMORY_DIR).is_dir():
            refuse_foreign_folder(root)  # before a file is laid out in a project's checkout
            _lay_out(root)
        if read_only:
            _check_readable(root)
        else:
            _check_layout(root)
        workspace = cls(root, clock=clock)
        workspace.read_only = read_only
        try:
            for folder in (
                root,
                root / layout.MEMORY_DIR,
                root / layout.SESSIONS,
            ):
                sweep_temp_files(folder)
            workspace.repairs = workspace.history.repair()
            if not (read_only and settled(root)):  # a read finds git as it is: no dulwich
                workspace.audit.ensure()
        except (StorageError, AuditError, CursorError, OSError) as exc:
            if not read_only:
                raise
            logger.warning("workspace %s opened for reading only: %s", root, exc)
        return workspace

    @property
    def audit(self) -> AuditRepo:
        """The audit repository, made on first use.

        So a read that never touches git (``status``, ``search``) starts without dulwich.
        """
        with self._audit_made:
            if self._audit is None:
                from reverie.storage.folder.audit import AuditRepo  # noqa: PLC0415 (see the docstring)

                self._audit = AuditRepo(self.root, lock=self._audit_lock, clock=self.clock)
            return self._audit

    @property
    def provenance(self) -> ProvenanceFile:
        """The provenance sidecar ``.reverie/provenance.json``."""
        return ProvenanceFile(self.root / DEFAULT_SIDECAR)

    def publish_dream(
        self,
        changes: Mapping[str, str],
        *,
        bases: Mapping[str, str],
        trigger: str,
        dream_cursor: int,
        expected_cursor: int,
    ) -> CommitInfo | None:
        """A dream's crash-safe publish through the journal (``dream_publish.publish_dream``)."""
        return publish_dream(
            self.root,
            self.dream_cursor,
            self.audit,
            changes,
            bases=bases,
            trigger=trigger,
            dream_cursor=dream_cursor,
            expected_cursor=expected_cursor,
        )

    def finish_interrupted_publish(self) -> bool:
        """Roll an interrupted dream publish forward (``dream_publish``); under the dream lock."""
        return finish_interrupted_publish(self.root, self.dream_cursor, self.audit)

    @property
    def local_folder(self) -> Path:
        """The workspace folder (``reverie.storage.ports.Stores.local_folder``)."""
        return self.root

    @property
    def raw_transcripts(self) -> SqliteSessionStore:
        """The session store, which keeps raw transcripts in its ``raw_messages`` table."""
        return self.sessions

    def path_of(self, what: Place | str) -> str:
        """The absolute path of ``what`` (a ``Place`` or a canonical path), as text."""
        return str(self.root / (PLACES[what] if isinstance(what, Place) else what))

    def doctor_checks(self, report: DoctorReport) -> None:
        """A folder's own doctor checks (``doctor_checks.folder_checks``)."""
        folder_checks(self.root, self.audit, report)

    @property
    def location(self) -> str:
        """The workspace folder, as text (``reverie.storage.ports.Stores.location``)."""
        return str(self.root)

    def lock(self, name: str) -> ProcessLock:
        """Return a new cross-process lock named ``name`` in ``.reverie/locks``.

        Its file is opened for each hold and closed on release, so locks taken now and then
        (dream, compaction per session, ingest) leave no descriptor behind in a long-running
        process; the stores' own locks stay open and close with the workspace.
        """
        return ProcessLock(self.locks_dir / f"{name}.lock", keep_open=False)

    def _kept_lock(self, name: str) -> ProcessLock:
        lock = ProcessLock(self.locks_dir / f"{name}.lock")
        self._kept.append(lock)
        return lock

    def close(self) -> None:
        """Release open descriptors (the workspace may be reopened later)."""
        self.history.close()
        if self._audit is not None:
            self._audit.close()
        self.sessions.close()
        for lock in self._kept:
            lock.close()


def _session_store(root: Path, clock: Clock) -> SqliteSessionStore:
    # Imported here: sqlite3 is paid for by the commands that open a workspace, not by all.
    from reverie.storage.folder.sessions_sqlite import SqliteSessionStore  # noqa: PLC0415

    return SqliteSessionStore(root / layout.SESSIONS, state_dir=root / layout.STATE, clock=clock)


def _check_root(root: Path, *, create: bool) -> None:
    if root.exists() and not root.is_dir():
        raise WorkspaceDamagedError("workspace path is not a folder", path=root)
    if not root.exists() and not create:
        raise WorkspaceMissingError("no workspace here (create it with create=True)", path=root)


def _lay_out(root: Path) -> None:
    if (root / layout.MEMORY_DIR).is_dir():
        return  # an existing workspace (nanobot's too): missing files are written when needed
    try:
        for relative in (layout.MEMORY_DIR, layout.SESSIONS, layout.LOCKS):
            folder = root / relative
            folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise WorkspaceDamagedError(
            "a file stands where a folder belongs", path=Path(str(exc.filename))
        ) from exc
    files = MemoryFiles(root)
    for name in MEMORY_FILE_NAMES:
        if not files.path(name).exists():
            files.write(name, STARTER_TEXTS[name])
    for relative in (layout.CURSOR, layout.DREAM_CURSOR):
        if not (root / relative).exists():
            atomic_write_text(root / relative, "0")
    history = root / layout.HISTORY
    if not history.exists():
        history.touch()
    format_file = root / layout.FORMAT
    if not format_file.exists():
        atomic_write_text(format_file, f"{FORMAT}\n")


def _check_readable(root: Path) -> None:
    """What a read needs: the memory folder and files (nothing is created or rewritten)."""
    if not (root / layout.MEMORY_DIR).is_dir():
        raise WorkspaceMissingError("not a workspace (no memory/ folder)", path=root)
    for relative in (layout.HISTORY, *layout.DURABLE):
        target = root / relative
        if target.exists() and not target.is_file():
            raise WorkspaceDamagedError("expected a file, found something else", path=target)
    if (root / layout.FORMAT).exists():  # absent: a nanobot workspace, read as is
        _check_format(root / layout.FORMAT)


def _check_links(root: Path) -> None:
    """Refuse the workspace when a path it reads or writes leads outside (before any write).

    Every file of ``layout.CHECKED`` is one reverie writes, so a hard link on any is refused
    too, and ``.git`` is looked through (``layout.check_git``).
    """
    for relative in layout.CHECKED:
        if relative not in (layout.SKILLS, layout.PROMPT_OVERRIDE):  # checked where used
            layout.check_path(root, relative, write=True)
    layout.check_git(root)


def _check_layout(root: Path) -> None:
    if not (root / layout.MEMORY_DIR).is_dir():
        raise WorkspaceMissingError("not a workspace (no memory/ folder)", path=root)
    for relative in (layout.HISTORY, *layout.DURABLE):
        target = root / relative
        if target.exists() and not target.is_file():
            raise WorkspaceDamagedError("expected a file, found something else", path=target)
    sessions = root / layout.SESSIONS
    if sessions.exists() and not sessions.is_dir():
        raise WorkspaceDamagedError("expected a folder, found something else", path=sessions)
    (root / layout.LOCKS).mkdir(parents=True, exist_ok=True)
    _check_format(root / layout.FORMAT)
    for cursor_file in (CursorFloor(root / layout.CURSOR), DreamCursor(root / layout.DREAM_CURSOR)):
        try:
            cursor_file.read()
        except (CursorError, StorageError) as exc:
            raise WorkspaceDamagedError(
                f"unreadable cursor file ({exc})", path=cursor_file.path
            ) from exc
        finally:
            if isinstance(cursor_file, CursorFloor):
                cursor_file.close()  # its kept descriptor: this one is only a check


def _check_format(format_file: Path) -> None:
    try:
        text = format_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        atomic_write_text(format_file, f"{FORMAT}\n")  # adopting a nanobot workspace
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkspaceDamagedError(f"unreadable format file ({exc})", path=format_file) from exc
    if not text.isdigit():
        raise WorkspaceDamagedError(f"format file holds {text!r}, not a number", path=format_file)
    if int(text) > FORMAT:
        raise WorkspaceFormatError(
            f"workspace format {text} is newer than this reverie reads ({FORMAT}); upgrade reverie",
            path=format_file,
        )
