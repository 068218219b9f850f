"""reverie: a local-first long-term memory and context engine for LLM agents.

The public API is re-exported here; everything else is internal.
"""

from reverie.errors import (
    AuditError,
    ContextLengthExceededError,
    CursorError,
    HistoryError,
    LockTimeoutError,
    MalformedReplyError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelNotConfiguredError,
    ModelRateLimitError,
    ModelTimeoutError,
    ReverieError,
    RevisionNotFoundError,
    ScriptExhaustedError,
    SessionError,
    SessionImportError,
    StorageError,
    WorkspaceDamagedError,
    WorkspaceError,
    WorkspaceFormatError,
    WorkspaceMissingError,
)
from reverie.llm.anthropic_provider import AnthropicProvider
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.provider import ChatReply, ChatRequest, Provider, ToolSchema, Usage
from reverie.llm.retry import RetryPolicy
from reverie.llm.scripted import ScriptedProvider
from reverie.llm.settings import ModelRoles, ModelSettings
from reverie.llm.tokens import CalibratedCounter, ExactCounter, count_request, default_counter
from reverie.messages import Message, ToolCall
from reverie.session import ArchivedSummary, Session, SessionInfo
from reverie.store.audit import CommitDetail, CommitInfo
from reverie.store.entries import HistoryEntry
from reverie.store.history import TrimResult
from reverie.store.sessions import SessionStore
from reverie.store.workspace import Workspace

__all__ = [
    "AnthropicProvider",
    "ArchivedSummary",
    "AuditError",
    "CalibratedCounter",
    "ChatReply",
    "ChatRequest",
    "CommitDetail",
    "CommitInfo",
    "ContextLengthExceededError",
    "CursorError",
    "ExactCounter",
    "HistoryEntry",
    "HistoryError",
    "LockTimeoutError",
    "MalformedReplyError",
    "Message",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotConfiguredError",
    "ModelRateLimitError",
    "ModelRoles",
    "ModelSettings",
    "ModelTimeoutError",
    "OpenAIProvider",
    "Provider",
    "RetryPolicy",
    "ReverieError",
    "RevisionNotFoundError",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "Session",
    "SessionError",
    "SessionImportError",
    "SessionInfo",
    "SessionStore",
    "StorageError",
    "ToolCall",
    "ToolSchema",
    "TrimResult",
    "Usage",
    "Workspace",
    "WorkspaceDamagedError",
    "WorkspaceError",
    "WorkspaceFormatError",
    "WorkspaceMissingError",
    "count_request",
    "default_counter",
]
