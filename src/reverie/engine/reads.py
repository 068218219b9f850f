"""``MemoryReads``: the read operations of ``MemoryEngine``, for surfaces and the SDK.

Thin reads of the workspace (history, sessions, the audit log, durable files, line ages,
provenance, the ledger, doctor's checks), so that a surface never reaches the parts itself.
``MemoryEngine`` inherits them; nothing here changes a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reverie.core.durable import RELATIVE_PATHS, MemoryFileName
from reverie.core.inbound import check_limit, check_session_key
from reverie.core.writable import canonical_writable
from reverie.errors import StoreUnsupportedError
from reverie.storage.folder.workspace import Workspace

if TYPE_CHECKING:
    # Provenance (why, forget's plan) is imported where it runs; the audit types come with
    # dulwich, which a read that never touches git does not import.
    from reverie.config.settings import Config
    from reverie.core.audit import CommitDetail, CommitInfo, LineOrigin
    from reverie.core.entries import HistoryEntry
    from reverie.core.ledger import LedgerSummary
    from reverie.core.session import Session, SessionInfo
    from reverie.memory.doctor import DoctorReport
    from reverie.memory.provenance.plan import ForgetPlan
    from reverie.memory.provenance.why import WhyReport
    from reverie.storage.ports import Backend, RawTranscriptsPort


class MemoryReads:
    """Read operations over an open workspace (``MemoryEngine`` is the class to use)."""

    _stores: Backend
    config: Config

    @property
    def workspace(self) -> Workspace:
        """The file-backed workspace under the engine, for tests, benchmarks and file tools.

        Not for surfaces (``tests/test_architecture.py`` refuses it there): they use the
        engine's operations.

        Raises:
            StoreUnsupportedError: the engine runs on a database workspace (nothing written).
        """
        if not isinstance(self._stores, Workspace):
            raise StoreUnsupportedError("MemoryEngine.workspace", where=self._stores.location)
        return self._stores

    def transcript(self, session_key: str, *, raw: bool = False) -> Session:
        """A session's messages; with ``raw``, the raw text kept on the owner's opt-in.

        Raw text exists only with ``[sessions] raw_transcripts = true`` and only for
        messages a secret was redacted from; without the setting this is ``session``.
        """
        from reverie.engine import transcripts  # noqa: PLC0415

        session = self._stores.sessions.load(check_session_key(session_key))
        store = self._raw_store() if raw else None
        return session if store is None else transcripts.own_view(store, session)

    def _raw_store(self) -> RawTranscriptsPort | None:
        """The store of raw transcripts when the owner opted in (None: off, the default).

        Raises:
            StoreUnsupportedError: opted in on a backend that keeps no raw transcripts (a
                database workspace); nothing is written.
        """
        if not self.config.sessions.raw_transcripts:
            return None
        store = self._stores.raw_transcripts
        if store is None:
            from reverie.engine.transcripts import SETTING  # noqa: PLC0415

            raise StoreUnsupportedError(SETTING, where=self._stores.location)
        return store

    def history(
        self, *, since: int | None = None, session_key: str | None = None, limit: int | None = None
    ) -> list[HistoryEntry]:
        """Return history entries, oldest first, optionally of one session.

        With ``since``, the first ``limit`` entries after that cursor (page forward by passing
        the last cursor seen); without it, the newest ``limit`` entries.
        """
        limit = None if limit is None else check_limit(limit)
        found = (
            self._stores.history.read_since(since)
            if since is not None
            else self._stores.history.entries()
        )
        kept = [e for e in found if session_key is None or e.session_key == session_key]
        if limit is None:
            return kept
        return kept[:limit] if since is not None else kept[-limit:]

    @property
    def location(self) -> str:
        """Where the workspace lives (its folder, for the file backend)."""
        return self._stores.location

    def has_session(self, session_key: str) -> bool:
        """Whether session ``session_key`` has been stored."""
        return self._stores.sessions.exists(check_session_key(session_key))

    def sessions(self) -> list[SessionInfo]:
        """Every session (internal ``dream:`` ones too), sorted by key."""
        return self._stores.sessions.list()

    def log(self, n: int = 20) -> list[CommitInfo]:
        """The newest ``n`` audit commits, newest first."""
        return self._stores.audit.log(check_limit(n, name="n"))

    def show(self, rev: str) -> CommitDetail:
        """One audit commit with its diff (raises ``RevisionNotFoundError``)."""
        return self._stores.audit.show(rev)

    def why(self, text: str) -> WhyReport:
        """The durable lines matching ``text``, each with the entries and messages it came from."""
        from reverie.memory.provenance.why import explain  # noqa: PLC0415 (see TYPE_CHECKING above)

        return explain(self._stores, text)

    def lines(self) -> WhyReport:
        """Every durable line, in file order, each with the entries and messages it came from."""
        from reverie.memory.provenance.why import explain_all  # noqa: PLC0415 (see TYPE_CHECKING above)

        return explain_all(self._stores)

    def forget_plan(self, text: str) -> ForgetPlan:
        """What ``forget(text)`` would remove; nothing changes (show it, then ask)."""
        from reverie.memory.provenance.plan import plan_forget  # noqa: PLC0415

        return plan_forget(self._stores, text)

    def read_memory(self, name: MemoryFileName) -> str:
        """The text of one durable file: ``"SOUL"``, ``"USER"`` or ``"MEMORY"`` ('' if absent)."""
        return self._stores.files.read(name)

    def session(self, session_key: str) -> Session:
        """One session as stored: every message (compacted ones too), its mark and summary."""
        return self._stores.sessions.load(check_session_key(session_key))

    def read_file(self, path: str) -> str:
        """The text of a durable file dream may write (``SOUL.md``, ``memory/MEMORY.md``, ...).

        The three durable files as every prompt reads them (``files``), a skill through the
        backend's skill files (on a folder with dream's strict link rule); '' when absent.
        """
        canonical = canonical_writable(path)
        for name, relative in RELATIVE_PATHS.items():
            if relative == canonical:
                return self._stores.files.read(name)
        return self._stores.skills.read(canonical)

    def durable_files(self) -> dict[str, str]:
        """Every durable file that exists, workspace-relative path -> text (skills too)."""
        return self._stores.durable_texts()

    def line_origins(self, *paths: str) -> dict[str, tuple[LineOrigin, ...]]:
        """Per durable file (default: the three), each line and the commit that last added it."""
        wanted = [canonical_writable(p) for p in paths] or list(RELATIVE_PATHS.values())
        return self._stores.audit.line_origins({p: self.read_file(p) for p in wanted})

    def costs(self) -> LedgerSummary:
        """The ledger added up by job and by day."""
        return self._stores.ledger.summary()

    def doctor(self) -> DoctorReport:
        """Check the workspace's integrity (``report.ok`` is False on problems)."""
        from reverie.memory.doctor import examine  # noqa: PLC0415

        return examine(self._stores)

    @staticmethod
    def doctor_links(folder: Path) -> DoctorReport:
        """Doctor's link check of a folder workspace that ``open`` refused for a link.

        ``open`` stops at the first outside link (``OutsideLinkError``, whose ``root`` is the
        folder); this lists every one of them, so a person fixes them all at once.
        """
        from reverie.memory.doctor import examine_links  # noqa: PLC0415

        return examine_links(folder)
