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

Wiring. The engine is built from a ``reverie.storage.ports.Backend`` (``open`` makes the file
backend, ``reverie.storage.folder.backend``) and keeps its parts private: surfaces get operations
(the reads are in ``engine_reads``, a person's changes in ``engine_changes``, the result types in
``engine_results``; recall, the prompt assembler and the compactor are built on first use in
``engine_parts``). ``workspace``, ``recaller``, ``agent()``, ``dreamer()`` and ``idle_scanner()``
stay public for tests, benchmarks and file-level processes; the architecture test refuses them in
surfaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from reverie.config.settings import Config
from reverie.core.clock import Clock, system_clock
from reverie.core.inbound import admit_all, check_limit, check_session_key, clean_text
from reverie.core.messages import Message
from reverie.engine import transcripts
from reverie.engine.dense_choice import Dense, check_dense, open_chosen
from reverie.engine.jobs import MemoryJobs
from reverie.engine.maintenance import MemoryMaintenance
from reverie.engine.parts import MemoryParts
from reverie.engine.results import (
    NO_MODEL_HINT,
    REMEMBER_SESSION,
    PromptResult,
    RecordResult,
    RememberResult,
    describe_hit,
)
from reverie.errors import InputError, ModelNotConfiguredError
from reverie.llm.endpoints import deferred_provider
from reverie.llm.tokens import CalibratedCounter, default_counter
from reverie.memory.ingest.guard import refuse_self
from reverie.memory.recall.dense import recall_line
from reverie.storage.open import Opened, open_backend

if TYPE_CHECKING:
    # Processes are imported where they run: a command that needs few does not pay for the rest.
    from reverie.core.hits import SearchHit
    from reverie.core.messages import JSONValue
    from reverie.core.session import Session
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider, ToolSchema
    from reverie.memory.agent import ChatAgent, TurnResult
    from reverie.memory.compaction.idle import IdleScanner
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.ingest.run import IngestReport, Progress
    from reverie.memory.recall import RecallResult
    from reverie.memory.status import Status
    from reverie.storage.ports import Backend, IndexPort, RawTranscriptsPort

Mode = Literal["model", "model-free"]


class MemoryEngine(MemoryJobs, MemoryParts, MemoryMaintenance):
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
        self._stores = backend
        self.config = config
        self.counter = counter
        # Calibration learns one model's tokenizer: a separate memory model gets its own.
        self._memory_counter = (
            CalibratedCounter(counter.base)
            if isinstance(counter, CalibratedCounter) and config.memory_model is not None
            else counter
        )
        self.clock = clock
        self._chat = chat_provider
        self._memory = memory_provider
        self._index: IndexPort | None = None
        self.mode: Mode = (
            "model"
            if memory_provider is not None and config.dream.mode != "model-free"
            else "model-free"
        )
        # Dense recall (reverie.memory.recall.dense) as ``dense`` says (``engine.dense_choice``);
        # each backend keeps the vectors and says what its index added.
        self.dense, self.dense_status = open_chosen(
            dense,
            self.config.recall.embeddings,
            backend.open_vectors(),
            lambda: self._stores.follower(self.index),
        )

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

        ``open`` does this for one workspace; a home of many principals opens each one's
        backend over a shared pool (``reverie.storage.open.open_shared``) and builds it here.
        The engine's ``close`` closes the backend (which leaves a shared pool open); ``dense``
        as for ``open``.
        """
        config = opened.config
        chat = provider if provider is not None else deferred_provider(config.model, environ)
        memory = memory_provider
        if memory is None:
            memory = (
                deferred_provider(config.memory_model, environ) if config.memory_model else chat
            )
        return cls(
            opened.backend,
            config=config,
            chat_provider=chat,
            memory_provider=memory,
            counter=CalibratedCounter(default_counter()),
            clock=clock,
            dense=dense,
        )

    def record(
        self, session_key: str, messages: Iterable[Message | Mapping[str, JSONValue]]
    ) -> RecordResult:
        """Add messages produced by any agent, then compact if the next prompt would not fit.

        Text is stored as valid UTF-8 (``RecordResult.replaced`` counts lone surrogates
        replaced); a message that cannot be stored (too large, too deep, a naive timestamp)
        raises ``InputError`` before anything is written (see ``reverie.core.inbound``).
        """
        raw = self._raw_store()
        admitted = admit_all(messages, now=self.clock, redact=raw is None)
        kept = admitted.messages if raw is None else transcripts.redacted(admitted.messages)
        indices = self._stores.sessions.append_many(check_session_key(session_key), kept)
        if raw is not None:
            transcripts.keep_raw(raw, session_key, indices, admitted.messages, kept)
        compaction = self._compactor.ensure_budget(session_key)
        return RecordResult(indices=indices, compaction=compaction, replaced=admitted.replaced)

    def prompt(
        self,
        session_key: str,
        user_text: str | None,
        tools: Sequence[ToolSchema] = (),
        *,
        loaded: Session | None = None,
    ) -> PromptResult:
        """Return the in-budget prompt for the next model call (``user_text`` not recorded).

        ``loaded`` is session ``session_key`` as the caller has just read it (``session``), so
        this call does not read it again (the proxy reconciles a request against it first);
        what another writer records after that read is in the next prompt, not this one.
        Compaction, when the prompt is over budget, reads the session afresh under its lock.

        Raises:
            InputError: ``loaded`` is another session than ``session_key``.
        """
        check_session_key(session_key)
        if loaded is not None and loaded.key != session_key:
            raise InputError(f"prompt for {session_key!r} was given session {loaded.key!r}")
        user_text = None if user_text is None else clean_text(user_text)
        budget = self._compactor.budget
        # One load and one assembly: the compactor measures the prompt built here. Only when
        # it is over budget does compaction run (reading the session under its lock), and the
        # prompt is built again on the session as compaction last read it.
        raw = self._raw_store()  # this session's own prompt reads what was said (opt-in)
        session = self._own_session(session_key, raw, loaded)
        prompt = self._assembler.assemble(session, user_text, tools=tools, budget=budget)
        fitted = self._compactor.fit(session_key, user_text=user_text, tools=tools, built=prompt)
        if fitted.session is not None:  # over budget: built again on what compaction left
            session = self._own_session(session_key, raw, fitted.session)
            prompt = self._assembler.assemble(session, user_text, tools=tools, budget=budget)
        return PromptResult(prompt=prompt, compaction=fitted.result, budget=budget)

    def _own_session(
        self, session_key: str, raw: RawTranscriptsPort | None, loaded: Session | None = None
    ) -> Session:
        """Session ``session_key`` (``loaded``, else read now) as its own prompt reads it.

        Raw text replaces the redacted one on the opt-in.
        """
        session = loaded if loaded is not None else self._stores.sessions.load(session_key)
        return session if raw is None else transcripts.own_view(raw, session)

    def remember(
        self,
        text: str,
        *,
        session_key: str = REMEMBER_SESSION,
        author: Literal["user", "assistant"] = "user",
    ) -> RememberResult:
        """Keep ``text`` now: record it, compact it into history, dream it into the files.

        A fact told on purpose does not wait for idle compaction and the dream schedule. It
        goes through the same curation, screening and audit as any other: a dream that finds
        nothing durable in it writes nothing, and says so (``RememberResult.dream``).

        Raises:
            InputError: ``text`` is empty or only white space.
        """
        if not isinstance(text, str) or not text.strip():
            raise InputError("remember needs a fact to keep, got only white space")
        recorded = self.record(session_key, [Message(role=author, content=text.strip())])
        compaction = self.compact(session_key)
        dream = self.dream(trigger="remember")
        return RememberResult(recorded=recorded, compaction=compaction, dream=dream)

    def turn(self, session_key: str, user_text: str) -> TurnResult:
        """Answer ``user_text`` with the built-in agent (needs a chat model)."""
        return self.agent().turn(check_session_key(session_key), clean_text(user_text))

    def check_chat_model(self) -> None:
        """Raise ``ModelNotConfiguredError``, saying how to configure one, without a chat model."""
        if self._chat is None:
            raise ModelNotConfiguredError(NO_MODEL_HINT)

    def agent(self) -> ChatAgent:
        """Return the built-in agent, or raise ModelNotConfiguredError with a how-to."""
        self.check_chat_model()
        assert self._chat is not None
        from reverie.memory.agent import ChatAgent  # noqa: PLC0415 (see TYPE_CHECKING above)

        raw = self._raw_store()
        return ChatAgent(
            self._stores,
            provider=self._chat,
            model=self.config.model,
            assembler=self._assembler,
            compactor=self._compactor,
            search=self._search_text,
            clock=self.clock,
            observe=self.counter.observe_reply
            if isinstance(self.counter, CalibratedCounter)
            else None,
            raw=None if raw is None else transcripts.RawKept(raw),
        )

    def compact(self, session_key: str) -> CompactionResult:
        """Archive every pending message of a session now (and encode dense recall's backlog)."""
        result = self._compactor.compact_all(check_session_key(session_key), reason="manual")
        self.index_vectors()
        return result

    def idle_scanner(self, in_flight: Iterable[str] = ()) -> IdleScanner:
        """Return the idle-compaction scanner (``in_flight``: sessions with a turn running)."""
        from reverie.memory.compaction.idle import IdleScanner  # noqa: PLC0415

        busy = frozenset(in_flight)
        return IdleScanner(
            self._stores.sessions,
            self._compactor,
            ttl_minutes=self.config.compaction.idle_minutes,
            clock=self.clock,
            in_flight=busy.__contains__,
        )

    def compact_idle(self, in_flight: Iterable[str] = ()) -> dict[str, CompactionResult]:
        """Compact every idle session; those in ``in_flight`` are reported ``busy``, not touched."""
        return self.idle_scanner(in_flight).scan()

    def ingest(
        self, paths: Sequence[Path], *, on_progress: Progress | None = None, wait: bool = True
    ) -> IngestReport:
        """Import conversations, compact them at their recorded pace, dream until done.

        Formats: OpenAI-style message lists, ChatGPT exports, nanobot workspaces and sessions
        (see ``reverie.memory.ingest.run``). One ingest per workspace at a time: this one waits for
        a running one, or with ``wait=False`` raises ``IngestBusyError``. Rerunning after a crash
        finishes what the crashed run left, and adds nothing twice. Runs the same on a folder and on
        a database workspace (``reverie.storage.ports.IngestStores``). A folder workspace refuses
        to ingest itself (``InputError``).
        """
        from reverie.memory.ingest.run import IngestJob, run_ingest  # noqa: PLC0415

        folder = self._stores.local_folder
        if folder is not None:  # never the workspace into itself (``ingest_guard.refuse_self``)
            refuse_self(paths, folder)
        job = IngestJob(
            stores=self._stores,
            compaction=self._compactor,
            dream=lambda: self.dream(trigger="ingest"),
            mode=self.mode,
        )
        report = run_ingest(job, paths, on_progress, wait=wait)
        self.index_vectors(self._vector_progress(on_progress))
        return report

    def status(self) -> Status:
        """Where the workspace stands: pending entries, file sizes, last dream, ledger totals."""
        from reverie.memory.status import gather  # noqa: PLC0415

        return gather(
            self._stores,
            self._dream_outlook(),
            mode=self.mode,
            chat_model=self.config.model.model,
            memory_model=self.config.memory.model,
            recall=recall_line(self.dense_status, self.dense),
            sources=self.config.sources,
        )

    def close(self) -> None:
        """Stop the background maintenance (``start_maintenance``), release open files."""
        self._stop_maintenance()
        if self._index is not None:
            self._index.close()
        if self.dense is not None:
            self.dense.store.close()
        self._stores.close()

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[SearchHit]:
        """Search history entries and every session message (compacted ones too).

        Ranked as recall ranks (its lexical steps, fused with dense recall when that is on;
        ``reverie.memory.recall.finder``); a source reference (``#h12``) returns that item.
        """
        from reverie.memory.recall.finder import find  # noqa: PLC0415 (recall loads on first use)

        scope = None if session_key is None else check_session_key(session_key)
        return find(
            self.recaller,
            self.index,
            clean_text(query),
            limit=check_limit(limit),
            session_key=scope,
            since=since,
            until=until,
            now=self.clock(),
        )

    def recall(self, query: str, *, session: str | None = None) -> RecallResult:
        """Recall the items most relevant to ``query`` (verbatim, dated, with source references).

        Model-free, as in every prompt's "Recalled" section, within ``prompt.recall_tokens``.
        With ``session``, only what that session may see (all of it: nothing is excluded as
        already in a prompt); without it, every non-internal session.
        """
        if session is not None:
            check_session_key(session)
        scope = None if session is None or self.config.prompt.unified_session else session
        budget = self.config.prompt.recall_budget(self.config.model.input_budget)
        return self.recaller.recall(query, max_tokens=budget, scope=scope, now=self.clock())

    @property
    def index(self) -> IndexPort:
        """The search index (opened on first use, caught up incrementally on every query)."""
        if self._index is None:
            self._index = self._stores.open_index()
        return self._index

    def _search_text(self, query: str, limit: int, session_key: str) -> str:
        scope = None if self.config.prompt.unified_session else session_key
        hits = self.search(query, limit=limit, session_key=scope)
        if not hits:
            return "no matches"
        return "\n".join(describe_hit(hit) for hit in hits)
