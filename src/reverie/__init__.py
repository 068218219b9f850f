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
    StorageError,
    WorkspaceDamagedError,
    WorkspaceError,
    WorkspaceFormatError,
    WorkspaceMissingError,
)
from reverie.messages import Message, ToolCall
from reverie.store.audit import CommitDetail, CommitInfo
from reverie.store.entries import HistoryEntry
from reverie.store.history import TrimResult
from reverie.store.workspace import Workspace

__all__ = [
    "AuditError",
    "CommitDetail",
    "CommitInfo",
    "CursorError",
    "HistoryEntry",
    "HistoryError",
    "LockTimeoutError",
    "Message",
    "ReverieError",
    "RevisionNotFoundError",
    "StorageError",
    "ToolCall",
    "TrimResult",
    "Workspace",
    "WorkspaceDamagedError",
    "WorkspaceError",
    "WorkspaceFormatError",
    "WorkspaceMissingError",
]
