"""The storage seam's protocols, one per store (``reverie.storage.ports`` says the contract).

Nothing here does anything at run time: only protocols; value types are imported for type
checking only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reverie.core.audit import AuditIntegrity, CommitDetail, CommitInfo, LineOrigin
    from reverie.core.diff import AuditDiff
    from reverie.core.durable import FileSize, MemoryFileName
    from reverie.core.entries import BadLine, HistoryEntry, TrimResult
    from reverie.core.hits import Candidate, RefreshStats, SearchHit, Source
    from reverie.core.ledger import CallFacts, LedgerRecord, LedgerSummary
    from reverie.core.messages import JSONValue, Message
    from reverie.core.screening import RecordedRejection, RejectedRule
    from reverie.core.session import Session, SessionInfo


class LockPort(Protocol):
    """A named lock, exclusive across threads and processes."""

    def hold(self, *, timeout: float | None = None) -> AbstractContextManager[None]:
        """Hold the lock for a ``with`` block; 0 tries once; raises ``LockTimeoutError``."""

    def close(self) -> None:
        """Release what the lock keeps open between holds."""


class LocksPort(Protocol):
    """Where named locks come from (dream, ingest, compaction of one session, search)."""

    def lock(self, name: str) -> LockPort:
        """Return the lock called ``name`` (the same name is the same lock everywhere)."""


class QuarantinePort(Protocol):
    """Lines taken out of a log or journal, kept (never dropped) with where they were."""

    def keep(self, bad_lines: Sequence[BadLine], *, now: datetime) -> None:
        """Record ``bad_lines`` durably."""

    def records(self) -> list[BadLine]:
        """Every line kept so far, oldest first."""


class CursorPort(Protocol):
    """The dream cursor: the last history cursor a completed dream consumed."""

    def read(self) -> int:
        """The cursor (0 before the first dream)."""

    def write(self, cursor: int) -> None:
        """Advance (or, for a restore, roll back) the cursor."""


class HistoryPort(Protocol):
    """The history log: entries with cursors, appended once, read after a cursor."""

    def append(
        self,
        text: str,
        *,
        session_key: str | None = None,
        max_chars: int | None = None,
        source_range: tuple[int, int] | None = None,
        kind: str | None = None,
        at: datetime | None = None,
    ) -> HistoryEntry:
        """Allocate the next cursor and append one entry in one step; return it."""

    def import_entries(self, entries: Sequence[HistoryEntry], *, floor: int = 0) -> int:
        """Write entries with their own cursors into an empty log (moving a workspace here).

        The last cursor handed out becomes the highest of them and ``floor``.

        Raises:
            InputError: the log is not empty, or the cursors are not strictly increasing.
        """

    def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Entries whose cursor is above ``cursor``, oldest first, at most ``limit``."""

    def read_cursors(self, cursors: Collection[int]) -> list[HistoryEntry]:
        """The entries of these cursors that are in the log, oldest first, in one read."""

    def read_recent(
        self,
        since: int,
        *,
        limit: int,
        session_key: str | None = None,
        accept: Callable[[HistoryEntry], bool] | None = None,
        max_lines: int = 5_000,
    ) -> list[HistoryEntry]:
        """Up to ``limit`` of the newest entries above ``since``, newest first, bounded cost.

        ``session_key``: only that session's entries (None: every session's); ``accept``
        filters further; at most ``max_lines`` entries are read.
        """

    def last_cursor(self) -> int:
        """The highest cursor handed out so far (0 for a new log)."""

    def entries(self) -> Iterator[HistoryEntry]:
        """Every valid entry, oldest first."""

    def repair(self) -> list[BadLine]:
        """Quarantine what cannot be read; return what moved."""

    def trim(self, keep: int = 1000) -> TrimResult:
        """Drop the oldest entries dream has consumed, keeping at least ``keep``."""

    def edit(self, changes: Mapping[int, str | None]) -> list[HistoryEntry]:
        """Replace entries' content by cursor, or drop them (None); return them as they were."""

    def close(self) -> None:
        """Release what the log keeps open."""


class SessionsPort(Protocol):
    """Live sessions: messages appended in order, a compaction mark, a summary, metadata."""

    @property
    def quarantine(self) -> QuarantinePort:
        """Where unreadable session records go."""

    def append(self, key: str, message: Message) -> int:
        """Persist one message at the end of session ``key``; return its index."""

    def append_many(self, key: str, messages: Iterable[Message]) -> range:
        """Persist several messages, in order, in one step; return their indices."""

    def load(self, key: str) -> Session:
        """Session ``key`` as stored now (an empty, unsaved session if there is none)."""

    def messages_at(self, places: Collection[tuple[str, int]]) -> dict[tuple[str, int], Message]:
        """The messages at these (session key, index) places that exist, in one read."""

    def exists(self, key: str) -> bool:
        """Whether session ``key`` has been stored."""

    def list(self) -> list[SessionInfo]:
        """Every session's key, times, message count and mark, sorted by key."""

    def info(self, key: str) -> SessionInfo | None:
        """What ``list()`` says of one session (None: there is none)."""

    def delete(self, key: str) -> bool:
        """Delete session ``key``; return whether it existed."""

    def set_compacted_upto(self, key: str, upto: int) -> SessionInfo:
        """Set the compaction mark of session ``key``."""

    def set_summary(self, key: str, text: str, last_active: datetime) -> SessionInfo:
        """Record the latest compaction summary of session ``key``."""

    def clear_summary(self, key: str) -> SessionInfo:
        """Forget the compaction summary of session ``key``."""

    def update_metadata(self, key: str, values: Mapping[str, JSONValue]) -> SessionInfo:
        """Merge ``values`` into the metadata of session ``key``."""

    def put(self, session: Session) -> SessionInfo:
        """Replace session ``session.key`` whole (imports)."""

    def repair(self, key: str) -> None:
        """Re-check session ``key`` and quarantine what cannot be read."""

    def redact(
        self,
        key: str,
        indices: Collection[int],
        *,
        summary: bool = False,
        change: Callable[[Message], Message] | None = None,
    ) -> None:
        """Replace the messages at ``indices`` in place by ``change(message)``.

        Tombstones when ``change`` is None (``forget``); ``redact_sessions`` passes
        ``redact_message``. No byte of the old text stays in the store; ``summary`` also
        clears the compaction summary.
        """

    def close(self) -> None:
        """Save what is cached and release what is open."""


class RawTranscriptsPort(Protocol):
    """Raw transcripts kept on an owner's opt-in (``[sessions] raw_transcripts``).

    Only a session's own prompt and the owner's ``transcript(raw=True)`` read them; a backend
    that keeps none answers ``Stores.raw_transcripts`` with None.
    """

    def keep_raw(self, key: str, raws: Mapping[int, Message]) -> None:
        """Keep the raw form of these messages of session ``key``, by index."""

    def raw_messages(self, key: str) -> dict[int, Message]:
        """The raw messages kept for session ``key``, by index (empty: none)."""


class MemoryFilesPort(Protocol):
    """The durable files (SOUL, USER, MEMORY), addressed by name, never by path."""

    def read(self, name: MemoryFileName) -> str:
        """The file's text ('' when absent)."""

    def read_all(self) -> dict[MemoryFileName, str]:
        """Every durable file's text by name, read together (one query on a database)."""

    def write(self, name: MemoryFileName, text: str) -> None:
        """Replace the file's text atomically."""

    def is_starter(self, name: MemoryFileName) -> bool:
        """Whether nobody has written to the file yet."""

    def size(self, name: MemoryFileName) -> FileSize:
        """Its size in characters and estimated tokens."""


class AuditPort(Protocol):
    """The versioned history of the durable files and the dream cursor."""

    def ensure(self) -> None:
        """Set the audit history up if it never existed."""

    def integrity(self) -> AuditIntegrity:
        """Whether the audit history is the one reverie recorded."""

    def repair(self) -> AuditIntegrity:
        """Start a new audit history when missing, or accept the current one."""

    def commit(
        self, subject: str, *, allow_empty: bool = False, author: str | None = None
    ) -> CommitInfo | None:
        """Record the audited files as they are now (None: nothing changed)."""

    def pending_diff(self) -> AuditDiff:
        """The changes not yet committed."""

    def log(self, n: int = 20) -> list[CommitInfo]:
        """Up to ``n`` commits, newest first."""

    def show(self, rev: str) -> CommitDetail:
        """One commit with its diff."""

    def file_at(self, rev: str, path: str) -> bytes | None:
        """An audited file's bytes as of ``rev`` (None when absent there)."""

    def restore(self, rev: str) -> CommitInfo:
        """Put every audited file back as of ``rev``, recorded as a new commit."""

    def line_origins(
        self, texts: Mapping[str, str], *, depth: int = 200
    ) -> dict[str, tuple[LineOrigin, ...]]:
        """For each line of each file's text, the commit that last added it."""

    def purge(self, scrub: Callable[[str, bytes], bytes], scrub_text: Callable[[str], str]) -> int:
        """Rewrite every commit through ``scrub`` (``forget --purge``); return how many changed."""

    def objects_holding(self, holds: Callable[[bytes], bool]) -> list[str]:
        """The ids of every stored object whose bytes ``holds``."""

    def close(self) -> None:
        """Release what is open."""


class LedgerPort(Protocol):
    """One record per model call of a memory job."""

    def append(self, record: LedgerRecord) -> None:
        """Append one record."""

    def append_call(self, call: CallFacts) -> None:
        """Append the record of one metered model call (``reverie.llm.metered``)."""

    def records(self) -> Iterator[LedgerRecord | None]:
        """Every record in order (None: one that could not be read)."""

    def summary(self) -> LedgerSummary:
        """Totals by job and by day."""


class RejectionsPort(Protocol):
    """SOUL.md rules that screening refused."""

    def append(self, rules: Iterable[RejectedRule], *, time: datetime) -> None:
        """Record ``rules`` as refused at ``time``."""

    def latest(self, n: int = 10) -> list[RecordedRejection]:
        """The last ``n`` refused rules, oldest first."""


class SkillFilesPort(Protocol):
    """The ``skills/<name>/SKILL.md`` files dream may create and edit, by canonical path."""

    def paths(self) -> list[str]:
        """Every skill file that exists, sorted."""

    def read(self, path: str) -> str:
        """A skill file's text ('' when absent); ``ValueError`` for a path that is not one."""

    def write(self, path: str, text: str) -> None:
        """Replace a skill file's text (not committed: the caller commits)."""


class DreamStatePort(Protocol):
    """The dream's back-off state, as the text ``reverie.memory.dream.state.DreamState`` reads."""

    def read_text(self) -> str | None:
        """The stored text (None before the first run)."""

    def write_text(self, text: str) -> None:
        """Replace the stored text in one step."""


class IndexPort(Protocol):
    """Full-text search over history entries and session messages, kept current."""

    def refresh(self) -> RefreshStats:
        """Index what changed since the last refresh."""

    def rebuild(self) -> RefreshStats:
        """Index everything again from nothing."""

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        sources: Sequence[Source] = ("history", "messages"),
        include_internal: bool = False,
    ) -> list[SearchHit]:
        """The items that best match ``query``, best first."""

    def candidates(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        session_key: str | None = None,
        include_internal: bool = False,
        context_weight: float = 0.3,
        between: Sequence[tuple[datetime, datetime]] = (),
    ) -> list[Candidate]:
        """Items matching any of ``terms`` with their whole text, for callers that rank again."""

    def rare_terms(self, terms: Sequence[str], *, at_most: int) -> list[str]:
        """The ``terms`` (in order) that at most ``at_most`` items of the whole index hold.

        A capped count (it stops at ``at_most + 1``), so a common word costs no more than a
        rare one; recall's rare-name and link steps ask it.
        """

    def close(self) -> None:
        """Release what is open."""
