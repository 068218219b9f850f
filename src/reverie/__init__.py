"""reverie: a local-first long-term memory and context engine for LLM agents.

The public API is re-exported here; everything else is internal.
"""

from reverie.errors import (
    AuditError,
    CursorError,
    HistoryError,
    LockTimeoutError,
    ReverieError,
    RevisionNotFoundError,
    SessionError,
    SessionImportError,
    StorageError,
    WorkspaceDamagedError,
    WorkspaceError,
    WorkspaceFormatError,
    WorkspaceMissingError,
)
from reverie.messages import Message, ToolCall
from reverie.session import ArchivedSummary, Session, SessionInfo
from reverie.store.entries import HistoryEntry
from reverie.store.history import TrimResult
from reverie.store.sessions import SessionStore
from reverie.store.workspace import Workspace

__all__ = [
    "ArchivedSummary",
    "AuditError",
    "CursorError",
    "HistoryEntry",
    "HistoryError",
    "LockTimeoutError",
    "Message",
    "ReverieError",
    "RevisionNotFoundError",
    "Session",
    "SessionError",
    "SessionImportError",
    "SessionInfo",
    "SessionStore",
    "StorageError",
    "ToolCall",
    "TrimResult",
    "Workspace",
    "WorkspaceDamagedError",
    "WorkspaceError",
    "WorkspaceFormatError",
    "WorkspaceMissingError",
]
