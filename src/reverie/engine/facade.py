"""``MemoryEngine``: the SDK, and the only place reverie's parts are wired together.

Under any agent: ``record`` what happened, ask ``prompt`` for the next in-budget prompt; or let
the built-in agent do both with ``turn``. ``dream`` curates the durable files, ``search``
finds anything remembered, ``status`` says where things stand, ``why`` says where a
remembered line came from and ``forget`` removes a fact with everything behind it;
``edit_file`` and ``restore`` are a person's changes (each one audit commit);
``start_maintenance`` compacts idle sessions and dreams when due in a thread (off unless asked).
``AsyncMemoryEngine`` wraps every call for asyncio agents (``reverie.engine.async_engine``) and adds
no logic of its own.

Modes. With a model configured, compaction and dream use it (``[memory_model]`` if set, else
``[model]``). Without one, or with ``dream.mode = "model-free"``, they run model-free:
deterministic extraction and curation, no network. Chat needs a model and says how to
configure one when there is none.

Wiring. One class of thin methods over a ``reverie.storage.ports.Backend``: each hands its
arguments to the operation module that does the work (``engine.conversation``, ``jobs``,
``lookup``, ``reads``, ``changes``) with the engine's one ``engine.parts.Parts``. ``workspace``,
``recaller``, ``agent()``, ``dreamer()`` and ``idle_scanner()`` stay public for tests,
benchmarks and file-level processes; the architecture test refuses them in surfaces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from reverie.config.settings import Config
from reverie.core.clock import Clock, system_clock
from reverie.core.durable import MemoryFileName
from reverie.core.inbound import check_limit, check_session_key, clean_text
from reverie.core.messages import Message
from reverie.engine import changes, conversation, jobs, lookup, reads
from reverie.engine.dense_choice import Dense, check_dense
from reverie.engine.maintenance import DEFAULT_INTERVAL, MaintenancePass, MaintenanceWorker
from reverie.engine.parts import Mode, Parts, models
from reverie.engine.results import (
    NO_MODEL_HINT,
    REMEMBER_SESSION,
    PromptResult,
    RecordResult,
    RememberResult,
)
from reverie.errors import ModelNotConfiguredError
from reverie.llm.tokens import CalibratedCounter, default_counter
from reverie.memory.dream.edit import EDIT_LOCK_TIMEOUT, EditResult, edit_file, restore
from reverie.storage.open import Opened, open_backend

if TYPE_CHECKING:
    # Processes are imported where they run: a command that needs few does not pay for the rest.
    from reverie.core.audit import AuditIntegrity, CommitDetail, CommitInfo, LineOrigin
    from reverie.core.entries import HistoryEntry
    from reverie.core.hits import SearchHit
    from reverie.core.ledger import LedgerSummary
    from reverie.core.messages import JSONValue
    from reverie.core.session import Session, SessionInfo
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider, ToolSchema
    from reverie.memory.agent import ChatAgent, TurnResult
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.doctor import DoctorReport
    from reverie.memory.dream.result import DreamResult
    from reverie.memory.ingest.run import IngestReport, Progress
    from reverie.memory.provenance import ForgetReport, WhyReport
    from reverie.memory.provenance.plan import ForgetPlan
    from reverie.memory.recall import RecallResult
    from reverie.memory.recall.dense.retriever import DenseRetriever
    from reverie.memory.session_secrets import SessionsRedacted
    from reverie.memory.status import Status
    from reverie.storage.ports import Backend, IndexPort


class MemoryEngine:
    """reverie as a library: memory under any agent, or the built-in agent."""

    def __init__(
        self,
        backend: Backend,
        *,
        config: Config,
        chat_provider: Provider | None,
        memory_provider: Provider | None,
        counter: TokenCounter,
        clock: Clock,
        dense: Dense = "settings",
    ) -> None:
        self._chat = chat_provider
        parts = Parts(
            backend,
            config=config,
            counter=counter,
            clock=clock,
            memory=memory_provider,
            dense=dense,
        )
        self._parts = parts
        self.config = config
        self.counter = counter
        self.clock = clock
        self.mode: Mode = parts.mode
        self.dense_status = parts.dense_status
        self._maintenance: MaintenanceWorker | None = None

    @classmethod
    def open(  # noqa: PLR0913 (keyword-only options: where, settings, models, time)
        cls,
        workspace: Path | str | None = None,
        config: Config | None = None,
        *,
        create: bool = True,
        provider: Provider | None = None,
        memory_provider: Provider | None = None,
        clock: Clock = system_clock,
        environ: Mapping[str, str] | None = None,
        read_only: bool = False,
        store: str | None = None,
        dense: Dense = "settings",
    ) -> MemoryEngine:
        """Open the engine on a workspace: a folder, or a workspace of a PostgreSQL database.

        Args:
            workspace: the folder (default: ``$REVERIE_WORKSPACE`` or ``~/.reverie/default``);
                with a store, the workspace's name in the database (default ``default``).
            config: settings (default: ``reverie.toml`` plus ``REVERIE_*`` overrides).
            create: lay out the workspace if it does not exist.
            provider: the chat model (default: built from ``config.model``).
            memory_provider: the model for compaction and dream (default: built from
                ``config.memory_model``, else the chat provider).
            clock: the time source.
            environ: environment variables to read instead of ``os.environ``.
            read_only: for reads only (status, log, search, history, doctor): works on a
                read-only or full disk and on damaged cursor or git files (``Workspace.open``).
            store: a ``postgresql://`` URL (default: ``$REVERIE_STORE``, else ``[store] url``
                of the folder's ``reverie.toml``, else none: the folder); see
                ``reverie.storage.open``.
            dense: dense recall: "settings" (``[recall] embeddings``), "off" (no model is
                loaded), or an ``Encoder`` used as given (``reverie.engine.dense_choice``).
        """
        check_dense(dense)  # before anything is opened
        opened = open_backend(
            workspace,
            store=store,
            config=config,
            environ=environ,
            create=create,
            clock=clock,
            read_only=read_only,
        )
        return cls.on_backend(
            opened,
            provider=provider,
            memory_provider=memory_provider,
            clock=clock,
            environ=environ,
            dense=dense,
        )

    @classmethod
    def on_backend(
        cls,
        opened: Opened,
        *,
        provider: Provider | None = None,
        memory_provider: Provider | None = None,
        clock: Clock = system_clock,
        environ: Mapping[str, str] | None = None,
        dense: Dense = "settings",
    ) -> MemoryEngine:
        """Build the engine on a backend ``reverie.storage.open`` opened, with its settings.

        ``open`` does this for one workspace; a home of many principals builds each one's here
        on a shared pool (``open_shared``), which ``close`` leaves open. ``dense``: as ``open``.
        """
        chat, memory = models(opened.config, provider, memory_provider, environ)
        return cls(
            opened.backend,
            config=opened.config,
            chat_provider=chat,
            memory_provider=memory,
            counter=CalibratedCounter(default_counter()),
            clock=clock,
            dense=dense,
        )

    # An agent's conversation (``engine.conversation``)

    def record(
        self, session_key: str, messages: Iterable[Message | Mapping[str, JSONValue]]
    ) -> RecordResult:
        """Add messages produced by any agent, then compact if the next prompt would not fit."""
        return conversation.record(self._parts, session_key, messages)

    def prompt(
        self,
        session_key: str,
        user_text: str | None,
        tools: Sequence[ToolSchema] = (),
        *,
        loaded: Session | None = None,
    ) -> PromptResult:
        """The in-budget prompt for the next model call (``loaded``: the session, just read)."""
        return conversation.prompt(self._parts, session_key, user_text, tools, loaded=loaded)

    def remember(
        self,
        text: str,
        *,
        session_key: str = REMEMBER_SESSION,
        author: Literal["user", "assistant"] = "user",
    ) -> RememberResult:
        """Keep ``text`` now: record it, compact it into history, dream it into the files."""
        return conversation.remember(self._parts, text, session_key=session_key, author=author)

    def turn(self, session_key: str, user_text: str) -> TurnResult:
        """Answer ``user_text`` with the built-in agent (needs a chat model)."""
        return self._agent().turn(check_session_key(session_key), clean_text(user_text))

    def check_chat_model(self) -> None:
        """Raise ``ModelNotConfiguredError``, saying how to configure one, without a chat model."""
        if self._chat is None:
            raise ModelNotConfiguredError(NO_MODEL_HINT)

    def _agent(self) -> ChatAgent:
        """The built-in agent, or ModelNotConfiguredError with a how-to."""
        self.check_chat_model()
        assert self._chat is not None
        return conversation.agent(self._parts, self._chat)

    # Jobs (``engine.jobs``)

    def compact(self, session_key: str) -> CompactionResult:
        """Compact every pending message of a session now (and encode dense recall's backlog)."""
        return jobs.compact(self._parts, session_key)

    def compact_idle(self, in_flight: Iterable[str] = ()) -> dict[str, CompactionResult]:
        """Compact every idle session; those in ``in_flight`` are reported ``busy``, not touched."""
        return self._parts.idle_scanner(in_flight).scan()

    def dream(self, *, trigger: str = "manual", dry_run: bool = False) -> DreamResult:
        """Curate the durable files from the next batch of history (all-or-nothing)."""
        return jobs.dream(self._parts, trigger=trigger, dry_run=dry_run)

    def dream_if_due(self) -> DreamResult | None:
        """Run dream when its schedule says so (interval, cron, pending entries); else None."""
        return jobs.dream_if_due(self._parts)

    def ingest(
        self, paths: Sequence[Path], *, on_progress: Progress | None = None, wait: bool = True
    ) -> IngestReport:
        """Import conversations, compact them at their recorded pace, dream until done."""
        return jobs.ingest(self._parts, paths, on_progress=on_progress, wait=wait)

    def index_vectors(self, progress: Callable[[int], None] | None = None) -> int:
        """Encode every indexed item dense recall has no vector for; return how many (0: off)."""
        return jobs.index_vectors(self._parts.dense, progress)

    def start_maintenance(
        self,
        *,
        interval: float = DEFAULT_INTERVAL,
        busy: Callable[[], Iterable[str]] = tuple,
        report: Callable[[MaintenancePass], None] | None = None,
    ) -> MaintenanceWorker:
        """Compact idle sessions and dream when due in a thread, every ``interval`` seconds.

        ``busy``: sessions left alone; ``report`` gets each pass; ``RuntimeError``: one runs.
        """
        if self._maintenance is not None and self._maintenance.running:
            raise RuntimeError("background maintenance is already running on this engine")
        self._maintenance = MaintenanceWorker(self, interval=interval, busy=busy, report=report)
        return self._maintenance.start()

    # Search and reads (``engine.lookup``, ``engine.reads``)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[SearchHit]:
        """Search history entries and every session message (compacted ones too)."""
        return lookup.search(
            self._parts, query, limit=limit, session_key=session_key, since=since, until=until
        )

    def recall(self, query: str, *, session: str | None = None) -> RecallResult:
        """Recall the items most relevant to ``query`` (verbatim, dated, with source references)."""
        return lookup.recall(self._parts, query, session=session)

    def status(self) -> Status:
        """Where the workspace stands: pending entries, file sizes, last dream, ledger totals."""
        return reads.status(self._parts, self.dense_status)

    def transcript(self, session_key: str, *, raw: bool = False) -> Session:
        """A session's messages; with ``raw``, the raw text kept on the owner's opt-in."""
        return reads.transcript(self._parts.stores, self.config, session_key, raw=raw)

    def history(
        self, *, since: int | None = None, session_key: str | None = None, limit: int | None = None
    ) -> list[HistoryEntry]:
        """History entries, oldest first: the first ``limit`` after ``since``, else the newest."""
        return reads.history(self._parts.stores, since=since, session_key=session_key, limit=limit)

    @property
    def location(self) -> str:
        """Where the workspace lives (its folder, for the file backend)."""
        return self._parts.stores.location

    def has_session(self, session_key: str) -> bool:
        """Whether session ``session_key`` has been stored."""
        return self._parts.stores.sessions.exists(check_session_key(session_key))

    def sessions(self) -> list[SessionInfo]:
        """Every session (internal ``dream:`` ones too), sorted by key."""
        return self._parts.stores.sessions.list()

    def session(self, session_key: str) -> Session:
        """One session as stored: every message (compacted ones too), its mark and summary."""
        return self._parts.stores.sessions.load(check_session_key(session_key))

    def log(self, n: int = 20) -> list[CommitInfo]:
        """The newest ``n`` audit commits, newest first."""
        return self._parts.stores.audit.log(check_limit(n, name="n"))

    def show(self, rev: str) -> CommitDetail:
        """One audit commit with its diff (raises ``RevisionNotFoundError``)."""
        return self._parts.stores.audit.show(rev)

    def why(self, text: str) -> WhyReport:
        """The durable lines matching ``text``, each with the entries and messages it came from."""
        return reads.why(self._parts.stores, text)

    def lines(self) -> WhyReport:
        """Every durable line, in file order, each with the entries and messages it came from."""
        return reads.lines(self._parts.stores)

    def forget_plan(self, text: str) -> ForgetPlan:
        """What ``forget(text)`` would remove; nothing changes (show it, then ask)."""
        return reads.forget_plan(self._parts.stores, text)

    def read_memory(self, name: MemoryFileName) -> str:
        """The text of one durable file: ``"SOUL"``, ``"USER"`` or ``"MEMORY"`` ('' if absent)."""
        return self._parts.stores.files.read(name)

    def read_file(self, path: str) -> str:
        """The text of a durable file dream may write (``SOUL.md``, a skill...); '' if absent."""
        return reads.read_file(self._parts.stores, path)

    def durable_files(self) -> dict[str, str]:
        """Every durable file that exists, workspace-relative path -> text (skills too)."""
        return self._parts.stores.durable_texts()

    def line_origins(self, *paths: str) -> dict[str, tuple[LineOrigin, ...]]:
        """Per durable file (default: the three), each line and the commit that last added it."""
        return reads.line_origins(self._parts.stores, paths)

    def costs(self) -> LedgerSummary:
        """The ledger added up by job and by day."""
        return self._parts.stores.ledger.summary()

    def doctor(self) -> DoctorReport:
        """Check the workspace's integrity (``report.ok`` is False on problems)."""
        return reads.doctor(self._parts.stores)

    @staticmethod
    def doctor_links(folder: Path) -> DoctorReport:
        """Doctor's link check, listing every outside link of a folder ``open`` refused."""
        return reads.doctor_links(folder)

    # A person's changes (``engine.changes``; restore and edit: ``reverie.memory.dream.edit``)

    def restore(self, rev: str, *, force: bool = False) -> CommitInfo:
        """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

        ``force``: also past a trim (``RestoreWouldLoseError``; ``dream.edit.restore``).
        """
        return restore(self._parts.stores, rev, force=force)

    def forget(
        self, text: str, *, purge: bool = False, confirm_broad: bool = False
    ) -> ForgetReport:
        """Remove a fact, what it came from and what it led to, as one audit commit."""
        return changes.forget(self._parts, text, purge=purge, confirm_broad=confirm_broad)

    def redact_sessions(self) -> SessionsRedacted:
        """Rewrite, redacted, every session message that still holds a secret (``doctor``)."""
        return changes.redact_sessions(self._parts)

    def edit_file(
        self,
        path: str,
        text: str,
        *,
        author: str,
        expected_sha256: str | None = None,
        lock_timeout: float = EDIT_LOCK_TIMEOUT,
    ) -> EditResult:
        """A person's edit of a durable file: dream's confinement and lock, one ``edit:`` commit.

        ``expected_sha256``: refused if the file changed meanwhile (``dream.edit.edit_file``).
        """
        return edit_file(
            self._parts.stores,
            path,
            text,
            author=author,
            expected_sha256=expected_sha256,
            timeout=lock_timeout,
        )

    def repair_audit(self) -> AuditIntegrity:
        """Start a new audit repository if ``.git`` is missing, or accept a replaced one.

        Never implicitly: ``doctor`` reports a lost history until a person asks for this.
        """
        return self._parts.stores.audit.repair()

    # Parts (``engine.parts``), and the engine's life

    @property
    def index(self) -> IndexPort:
        """The search index (opened on first use, caught up incrementally on every query)."""
        return self._parts.index

    @property
    def dense(self) -> DenseRetriever | None:
        """Dense recall (None: off; ``dense_status`` says why)."""
        return self._parts.dense

    @dense.setter
    def dense(self, retriever: DenseRetriever | None) -> None:
        self._parts.dense = retriever

    @property
    def tools(self) -> tuple[ToolSchema, ...]:
        """The built-in agent's memory tools, for agents that want to offer them too."""
        from reverie.memory.agent import TOOLS  # noqa: PLC0415 (see TYPE_CHECKING above)

        return TOOLS

    def close(self) -> None:
        """Stop the background maintenance (``start_maintenance``), release open files."""
        if self._maintenance is not None:
            self._maintenance.stop()
            self._maintenance = None
        self._parts.close()
        if self.dense is not None:
            self.dense.store.close()
        self._parts.stores.close()

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
