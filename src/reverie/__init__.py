"""reverie: a local-first long-term memory and context engine for LLM agents.

The public API is re-exported here; everything else is internal.
"""

from reverie.agent import TurnResult
from reverie.async_engine import AsyncMemoryEngine
from reverie.compaction.result import CompactionResult
from reverie.config import Config
from reverie.doctor import DoctorReport
from reverie.dream.edit import EditResult
from reverie.dream.result import DreamResult
from reverie.engine import MemoryEngine, PromptResult, RecordResult
from reverie.errors import (
    AuditError,
    ContextLengthExceededError,
    CursorError,
    EditError,
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
from reverie.ingest import IngestReport
from reverie.llm.anthropic_provider import AnthropicProvider
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.provider import ChatReply, ChatRequest, Provider, ToolSchema, Usage
from reverie.llm.retry import RetryPolicy
from reverie.llm.scripted import ScriptedProvider
from reverie.llm.settings import ModelRoles, ModelSettings
from reverie.llm.tokens import CalibratedCounter, ExactCounter, count_request, default_counter
from reverie.messages import Message, ToolCall
from reverie.search import SearchHit
from reverie.session import ArchivedSummary, Session, SessionInfo
from reverie.status import Status
from reverie.store.audit import CommitDetail, CommitInfo, LineOrigin
from reverie.store.entries import HistoryEntry
from reverie.store.history import TrimResult
from reverie.store.sessions import SessionStore
from reverie.store.workspace import Workspace

__all__ = [
    "AnthropicProvider",
    "ArchivedSummary",
    "AsyncMemoryEngine",
    "AuditError",
    "CalibratedCounter",
    "ChatReply",
    "ChatRequest",
    "CommitDetail",
    "CommitInfo",
    "CompactionResult",
    "Config",
    "ContextLengthExceededError",
    "CursorError",
    "DoctorReport",
    "DreamResult",
    "EditError",
    "EditResult",
    "ExactCounter",
    "HistoryEntry",
    "HistoryError",
    "IngestReport",
    "LineOrigin",
    "LockTimeoutError",
    "MalformedReplyError",
    "MemoryEngine",
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
    "PromptResult",
    "Provider",
    "RecordResult",
    "RetryPolicy",
    "ReverieError",
    "RevisionNotFoundError",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "SearchHit",
    "Session",
    "SessionError",
    "SessionImportError",
    "SessionInfo",
    "SessionStore",
    "Status",
    "StorageError",
    "ToolCall",
    "ToolSchema",
    "TrimResult",
    "TurnResult",
    "Usage",
    "Workspace",
    "WorkspaceDamagedError",
    "WorkspaceError",
    "WorkspaceFormatError",
    "WorkspaceMissingError",
    "count_request",
    "default_counter",
]
