"""The values importers produce: conversations, workspaces, problems, and one source's batch.

An ``ImportedConversation`` is one conversation ready to become a session: a stable key (the
same data always gives the same key, so a re-import lands in the same session), a title, and
its messages in order, with their timestamps when the source had them. An ``ImportedWorkspace``
is what a nanobot workspace holds besides its sessions (history entries, cursors, durable
files), for the caller to merge. An ``ImportProblem`` is a record that could not be read: it is
reported with its position and skipped, and never aborts the rest of the import.

Nothing here does I/O; ``ProgressCallback`` is how a surface learns how far an import got.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from reverie.core.durable import MemoryFileName
from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message
from reverie.core.session import CompactionSummary, Session
from reverie.memory.ingest.importers.content_hash import message_hash

Format = Literal[
    "openai-json",
    "openai-jsonl",
    "chatgpt-export",
    "nanobot-workspace",
    "nanobot-sessions",
    "nanobot-session",
]
FORMATS: tuple[Format, ...] = (
    "openai-json",
    "openai-jsonl",
    "chatgpt-export",
    "nanobot-workspace",
    "nanobot-sessions",
    "nanobot-session",
)

Unit = Literal["line", "record"]
"""What an ``ImportProblem``'s position counts: lines of a file, or records of a list."""

ProgressCallback = Callable[[int, int], None]
"""Called as ``on_progress(done, total)`` after each record of a source is read."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportProblem:
    """A record that could not be imported: where it is and why.

    ``position`` is a 1-based line number when ``unit`` is ``line`` and a 1-based index in the
    source's list of records (conversations or messages) when it is ``record``.
    """

    path: Path
    position: int
    reason: str
    unit: Unit = "line"

    def describe(self) -> str:
        """One line for a person: ``path line 3: reason``."""
        return f"{self.path} {self.unit} {self.position}: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedConversation:
    """One imported conversation, to become (or extend) the session named ``key``."""

    key: str
    title: str | None
    messages: tuple[Message, ...]
    source: Path
    compacted: int = 0
    """How many leading messages the source had already summarised (nanobot's ``last_archived``)."""
    summary: CompactionSummary | None = None
    """The source's own summary of those messages (nanobot's ``_last_summary``), if any."""

    @property
    def started_at(self) -> datetime | None:
        """The time of the first message that has one (None when none has)."""
        return next((m.timestamp for m in self.messages if m.timestamp is not None), None)

    @property
    def hashes(self) -> tuple[str, ...]:
        """The content hash of each message, in order (see ``content_hash``)."""
        return tuple(message_hash(message) for message in self.messages)


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedWorkspace:
    """What a nanobot workspace holds besides conversations, for the caller to merge.

    ``files`` holds only the durable files that exist; ``cursor`` and ``dream_cursor`` are 0
    when their files are absent or unreadable (the problem is reported).
    """

    root: Path
    history: tuple[HistoryEntry, ...] = ()
    cursor: int = 0
    dream_cursor: int = 0
    files: Mapping[MemoryFileName, str] = field(default_factory=dict)
    sessions: tuple[Session, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportBatch:
    """Everything read from one source path.

    Conversations are ordered by their first timestamp (those without one last, in source
    order), so replaying them in order follows the time they happened.
    """

    source: Path
    format: Format
    conversations: tuple[ImportedConversation, ...] = ()
    problems: tuple[ImportProblem, ...] = ()
    workspace: ImportedWorkspace | None = None
    skipped_records: int = 0
    """Records that are not conversation (nanobot's ``provider_state``): skipped, not problems."""
    notes: tuple[str, ...] = ()
    """What a person should know that is not a bad record (where sessions were not found)."""

    @property
    def message_count(self) -> int:
        """How many messages the conversations hold in all."""
        return sum(len(conversation.messages) for conversation in self.conversations)
