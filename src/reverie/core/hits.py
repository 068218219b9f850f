"""Values the search index hands out: one hit, a candidate for recall, and what a refresh did.

A hit names its source precisely enough to fetch the whole item: a history entry by its
cursor, a session message by its session key and index (``Session.messages[index]``, valid
whether or not the message has been compacted). This module does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

SourceKind = Literal["history", "message"]
Source = Literal["history", "messages"]
SOURCES: tuple[Source, ...] = ("history", "messages")

SNIPPET_OPEN = "**"
"""Put before each matched term in a snippet (Markdown bold, readable by people and models)."""

SNIPPET_CLOSE = "**"
"""Put after each matched term in a snippet."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchHit:
    """One search result.

    Attributes:
        kind: ``"history"`` for a history entry, ``"message"`` for a session message.
        score: BM25 relevance; higher is better (comparable within one result list only).
        snippet: a short excerpt with the matched terms between ``SNIPPET_OPEN``/``CLOSE``.
        timestamp: when the item was written (None when a message carries no time).
        session_key: the session of a message, or the session a history entry came from.
        cursor: the history entry's cursor (None for a message).
        message_index: the message's index in its session (None for a history entry).
        role: the message's role (None for a history entry).
    """

    kind: SourceKind
    score: float
    snippet: str
    timestamp: datetime | None
    session_key: str | None = None
    cursor: int | None = None
    message_index: int | None = None
    role: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RefreshStats:
    """What one refresh changed in the index.

    Attributes:
        history_added: history entries indexed.
        history_removed: history entries taken out (the log was trimmed or rewritten).
        messages_added: session messages indexed.
        messages_removed: session messages taken out (a session deleted or rewritten).
        sessions_reindexed: sessions indexed again from their first message after a rewrite.
        rebuilt: the index started empty (it was missing, unreadable, stale, or rebuilt).
    """

    history_added: int = 0
    history_removed: int = 0
    messages_added: int = 0
    messages_removed: int = 0
    sessions_reindexed: int = 0
    rebuilt: bool = False

    @property
    def changed(self) -> bool:
        """Whether the refresh added or removed anything."""
        return any(
            (self.history_added, self.history_removed, self.messages_added, self.messages_removed)
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One matching item with its whole indexed text.

    Attributes:
        kind: ``"history"`` or ``"message"``.
        score: BM25 on its own text plus the weighted BM25 on its context; higher is better.
        text: the item's indexed text (up to 64,000 characters).
        timestamp: when it was written (None when unknown).
        session_key: its session (for a history entry, the session it came from, if known).
        cursor: a history entry's cursor.
        message_index: a message's index in its session.
        role: a message's role.
    """

    kind: SourceKind
    score: float
    text: str
    timestamp: datetime | None
    session_key: str | None
    cursor: int | None
    message_index: int | None
    role: str | None
