"""Session values: one conversation, its compaction mark, and what ``list()`` reports about it.

A ``Session`` is an immutable snapshot of one conversation (key such as ``telegram:12345``):
every message ever appended, oldest first, plus the state compaction keeps beside them.
``compacted_upto`` is the number of leading messages already summarised into history; the
messages stay in the session (a person can still read them), prompts replay from the mark.
``summary`` is the latest compaction summary with the time the session was last active, shown
at the top of the next prompt after an idle compaction.

Invariants: times are timezone-aware; ``0 <= compacted_upto <= len(messages)`` (constructing a
Session that breaks this raises ValueError; stores repair a corrupt mark with ``safe_mark``
instead of hiding history). This module does no I/O and does not log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.core.clock import require_aware
from reverie.core.inbound import check_session_key
from reverie.errors import InputError

if TYPE_CHECKING:
    from reverie.core.messages import JSONValue, Message


INTERNAL_PREFIXES = ("dream:", "cron:")
"""Key prefixes of the sessions reverie runs for itself (dream transcripts, scheduled jobs)."""


def is_internal(session_key: str | None) -> bool:
    """True for sessions reverie runs for itself (dream transcripts, scheduled jobs)."""
    return session_key is not None and session_key.startswith(INTERNAL_PREFIXES)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionSummary:
    """The latest summary of a session's compacted turns and when the session was last active."""

    text: str
    last_active: datetime

    def __post_init__(self) -> None:
        require_aware(self.last_active)


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """One conversation: its messages, compaction mark, compaction summary and metadata."""

    key: str
    created_at: datetime
    updated_at: datetime
    messages: tuple[Message, ...] = ()
    metadata: Mapping[str, JSONValue] = field(default_factory=dict)
    compacted_upto: int = 0
    summary: CompactionSummary | None = None

    def __post_init__(self) -> None:
        require_aware(self.created_at)
        require_aware(self.updated_at)
        if not 0 <= self.compacted_upto <= len(self.messages):
            raise InputError(
                f"compacted_upto {self.compacted_upto} is outside 0..{len(self.messages)}"
            )

    @property
    def pending(self) -> tuple[Message, ...]:
        """The messages after the compaction mark (not yet summarised into history)."""
        return self.messages[self.compacted_upto :]


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionInfo:
    """What ``list()`` reports about one session, known without reading its messages.

    ``size`` is the bytes written for the session: the journal's file size, or for the SQLite
    store a count that grows with every write (so a reader comparing (count, size) sees each
    change).
    """

    key: str
    created_at: datetime
    updated_at: datetime
    message_count: int
    compacted_upto: int
    size: int


def safe_mark(mark: object, message_count: int) -> int | None:
    """Return ``mark`` when it is a valid compaction mark for ``message_count`` messages.

    Returns:
        The mark itself when it is an int (not a bool) within ``0..message_count``; None when
        it is corrupt, in which case the caller resets it to 0 (replaying everything rather
        than hiding history) and warns.
    """
    if isinstance(mark, bool) or not isinstance(mark, int):
        return None
    if 0 <= mark <= message_count:
        return mark
    return None


def lock_name(key: str) -> str:
    """Return a short, fixed-length lock file stem for ``key`` (locks need not be reversible)."""
    return "session-" + hashlib.sha256(check_session_key(key).encode("utf-8")).hexdigest()[:32]
