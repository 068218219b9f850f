"""``AsyncMemoryEngine``: ``MemoryEngine`` for asyncio agents, with no logic of its own.

Every public operation of ``MemoryEngine`` has an ``async`` twin here with the same name,
arguments and result; each runs the synchronous call in a worker thread (``asyncio.to_thread``),
so an event loop never blocks on file locks, git or a model call. ``ingest``'s ``on_progress``
is called from that worker thread.

Not wrapped: ``agent``, ``dreamer`` and ``idle_scanner``, which hand out parts rather than
perform an operation (use ``engine`` for them), and the ``tools`` and ``index`` properties.
``tests/test_async_engine.py`` fails when a new public ``MemoryEngine`` method has no twin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from reverie.core.clock import Clock, system_clock
from reverie.engine.facade import MemoryEngine
from reverie.engine.maintenance import DEFAULT_INTERVAL, MaintenancePass, MaintenanceWorker
from reverie.engine.results import (
    REMEMBER_SESSION,
    MessageLike,
    PromptResult,
    RecordResult,
    RememberResult,
)
from reverie.memory.dream.edit import EDIT_LOCK_TIMEOUT

if TYPE_CHECKING:
    from reverie.core.audit import AuditIntegrity, CommitDetail, CommitInfo, LineOrigin
    from reverie.core.durable import MemoryFileName
    from reverie.core.entries import HistoryEntry
    from reverie.core.hits import SearchHit
    from reverie.core.ledger import LedgerSummary
    from reverie.core.session import Session, SessionInfo
    from reverie.engine.dense_choice import Dense
    from reverie.llm.provider import Provider, ToolSchema
    from reverie.memory.agent import TurnResult
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.doctor import DoctorReport
    from reverie.memory.dream.edit import EditResult
    from reverie.memory.dream.result import DreamResult
    from reverie.memory.ingest.run import IngestReport, Progress
    from reverie.memory.provenance import ForgetReport, WhyReport
    from reverie.memory.provenance.plan import ForgetPlan
    from reverie.memory.recall import RecallResult
    from reverie.memory.session_secrets import SessionsRedacted
    from reverie.memory.status import Status
    from reverie.storage.open import Opened


class AsyncMemoryEngine:
    """``MemoryEngine`` for asyncio: each call runs in a worker thread; no logic of its own."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    @classmethod
    async def open(cls, workspace: Path | str | None = None, **options: Any) -> AsyncMemoryEngine:
        """See ``MemoryEngine.open`` (same arguments)."""
        return cls(await asyncio.to_thread(lambda: MemoryEngine.open(workspace, **options)))

    @classmethod
    async def on_backend(
        cls,
        opened: Opened,
        *,
        provider: Provider | None = None,
        memory_provider: Provider | None = None,
        clock: Clock = system_clock,
        environ: Mapping[str, str] | None = None,
        dense: Dense = "settings",
    ) -> AsyncMemoryEngine:
        """See ``MemoryEngine.on_backend``."""
        engine = await asyncio.to_thread(
            lambda: MemoryEngine.on_backend(
                opened,
                provider=provider,
                memory_provider=memory_provider,
                clock=clock,
                environ=environ,
                dense=dense,
            )
        )
        return cls(engine)

    async def __aenter__(self) -> AsyncMemoryEngine:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # Conversation

    async def record(self, session_key: str, messages: Iterable[MessageLike]) -> RecordResult:
        """See ``MemoryEngine.record``."""
        return await asyncio.to_thread(self.engine.record, session_key, list(messages))

    async def remember(
        self,
        text: str,
        *,
        session_key: str = REMEMBER_SESSION,
        author: Literal["user", "assistant"] = "user",
    ) -> RememberResult:
        """See ``MemoryEngine.remember``."""
        return await asyncio.to_thread(
            self.engine.remember, text, session_key=session_key, author=author
        )

    async def prompt(
        self,
        session_key: str,
        user_text: str | None,
        tools: Sequence[ToolSchema] = (),
        *,
        loaded: Session | None = None,
    ) -> PromptResult:
        """See ``MemoryEngine.prompt``."""
        return await asyncio.to_thread(
            self.engine.prompt, session_key, user_text, tools, loaded=loaded
        )

    async def turn(self, session_key: str, user_text: str) -> TurnResult:
        """See ``MemoryEngine.turn``."""
        return await asyncio.to_thread(self.engine.turn, session_key, user_text)

    async def compact(self, session_key: str) -> CompactionResult:
        """See ``MemoryEngine.compact``."""
        return await asyncio.to_thread(self.engine.compact, session_key)

    async def index_vectors(self, progress: Callable[[int], None] | None = None) -> int:
        """See ``MemoryEngine.index_vectors``."""
        return await asyncio.to_thread(self.engine.index_vectors, progress)

    async def compact_idle(self, in_flight: Iterable[str] = ()) -> dict[str, CompactionResult]:
        """See ``MemoryEngine.compact_idle``."""
        return await asyncio.to_thread(self.engine.compact_idle, list(in_flight))

    async def check_chat_model(self) -> None:
        """See ``MemoryEngine.check_chat_model``."""
        await asyncio.to_thread(self.engine.check_chat_model)

    # Memory jobs and maintenance

    async def dream(self, *, trigger: str = "manual", dry_run: bool = False) -> DreamResult:
        """See ``MemoryEngine.dream``."""
        return await asyncio.to_thread(lambda: self.engine.dream(trigger=trigger, dry_run=dry_run))

    async def dream_if_due(self) -> DreamResult | None:
        """See ``MemoryEngine.dream_if_due``."""
        return await asyncio.to_thread(self.engine.dream_if_due)

    async def start_maintenance(
        self,
        *,
        interval: float = DEFAULT_INTERVAL,
        busy: Callable[[], Iterable[str]] = tuple,
        report: Callable[[MaintenancePass], None] | None = None,
    ) -> MaintenanceWorker:
        """See ``MemoryEngine.start_maintenance`` (``report`` is called from the worker thread)."""
        start = self.engine.start_maintenance
        return await asyncio.to_thread(lambda: start(interval=interval, busy=busy, report=report))

    async def ingest(
        self, paths: Sequence[Path], *, on_progress: Progress | None = None, wait: bool = True
    ) -> IngestReport:
        """See ``MemoryEngine.ingest`` (``on_progress`` runs in the worker thread)."""
        return await asyncio.to_thread(
            lambda: self.engine.ingest(paths, on_progress=on_progress, wait=wait)
        )

    async def status(self) -> Status:
        """See ``MemoryEngine.status``."""
        return await asyncio.to_thread(self.engine.status)

    async def doctor(self) -> DoctorReport:
        """See ``MemoryEngine.doctor``."""
        return await asyncio.to_thread(self.engine.doctor)

    @staticmethod
    async def doctor_links(folder: Path) -> DoctorReport:
        """See ``MemoryEngine.doctor_links``."""
        return await asyncio.to_thread(MemoryEngine.doctor_links, folder)

    async def redact_sessions(self) -> SessionsRedacted:
        """See ``MemoryEngine.redact_sessions``."""
        return await asyncio.to_thread(self.engine.redact_sessions)

    async def repair_audit(self) -> AuditIntegrity:
        """See ``MemoryEngine.repair_audit``."""
        return await asyncio.to_thread(self.engine.repair_audit)

    async def close(self) -> None:
        """See ``MemoryEngine.close``."""
        await asyncio.to_thread(self.engine.close)

    # Finding things

    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[SearchHit]:
        """See ``MemoryEngine.search``."""
        return await asyncio.to_thread(
            lambda: self.engine.search(
                query, limit=limit, session_key=session_key, since=since, until=until
            )
        )

    async def recall(self, query: str, *, session: str | None = None) -> RecallResult:
        """See ``MemoryEngine.recall``."""
        return await asyncio.to_thread(lambda: self.engine.recall(query, session=session))

    # Changes a person makes

    async def restore(self, rev: str, *, force: bool = False) -> CommitInfo:
        """See ``MemoryEngine.restore``."""
        return await asyncio.to_thread(lambda: self.engine.restore(rev, force=force))

    async def forget(
        self, text: str, *, purge: bool = False, confirm_broad: bool = False
    ) -> ForgetReport:
        """See ``MemoryEngine.forget``."""
        return await asyncio.to_thread(
            lambda: self.engine.forget(text, purge=purge, confirm_broad=confirm_broad)
        )

    async def edit_file(
        self,
        path: str,
        text: str,
        *,
        author: str,
        expected_sha256: str | None = None,
        lock_timeout: float = EDIT_LOCK_TIMEOUT,
    ) -> EditResult:
        """See ``MemoryEngine.edit_file``."""
        return await asyncio.to_thread(
            lambda: self.engine.edit_file(
                path,
                text,
                author=author,
                expected_sha256=expected_sha256,
                lock_timeout=lock_timeout,
            )
        )

    # Reads (``engine.reads``)

    async def history(
        self, *, since: int | None = None, session_key: str | None = None, limit: int | None = None
    ) -> list[HistoryEntry]:
        """See ``MemoryEngine.history``."""
        return await asyncio.to_thread(
            lambda: self.engine.history(since=since, session_key=session_key, limit=limit)
        )

    async def has_session(self, session_key: str) -> bool:
        """See ``MemoryEngine.has_session``."""
        return await asyncio.to_thread(self.engine.has_session, session_key)

    async def sessions(self) -> list[SessionInfo]:
        """See ``MemoryEngine.sessions``."""
        return await asyncio.to_thread(self.engine.sessions)

    async def session(self, session_key: str) -> Session:
        """See ``MemoryEngine.session``."""
        return await asyncio.to_thread(self.engine.session, session_key)

    async def transcript(self, session_key: str, *, raw: bool = False) -> Session:
        """See ``MemoryEngine.transcript``."""
        return await asyncio.to_thread(self.engine.transcript, session_key, raw=raw)

    async def log(self, n: int = 20) -> list[CommitInfo]:
        """See ``MemoryEngine.log``."""
        return await asyncio.to_thread(self.engine.log, n)

    async def show(self, rev: str) -> CommitDetail:
        """See ``MemoryEngine.show``."""
        return await asyncio.to_thread(self.engine.show, rev)

    async def why(self, text: str) -> WhyReport:
        """See ``MemoryEngine.why``."""
        return await asyncio.to_thread(self.engine.why, text)

    async def lines(self) -> WhyReport:
        """See ``MemoryEngine.lines``."""
        return await asyncio.to_thread(self.engine.lines)

    async def forget_plan(self, text: str) -> ForgetPlan:
        """See ``MemoryEngine.forget_plan``."""
        return await asyncio.to_thread(self.engine.forget_plan, text)

    async def read_memory(self, name: MemoryFileName) -> str:
        """See ``MemoryEngine.read_memory``."""
        return await asyncio.to_thread(self.engine.read_memory, name)

    async def read_file(self, path: str) -> str:
        """See ``MemoryEngine.read_file``."""
        return await asyncio.to_thread(self.engine.read_file, path)

    async def durable_files(self) -> dict[str, str]:
        """See ``MemoryEngine.durable_files``."""
        return await asyncio.to_thread(self.engine.durable_files)

    async def line_origins(self, *paths: str) -> dict[str, tuple[LineOrigin, ...]]:
        """See ``MemoryEngine.line_origins``."""
        return await asyncio.to_thread(self.engine.line_origins, *paths)

    async def costs(self) -> LedgerSummary:
        """See ``MemoryEngine.costs``."""
        return await asyncio.to_thread(self.engine.costs)
