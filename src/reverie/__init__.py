"""reverie: a local-first long-term memory and context engine for LLM agents.

The public API is re-exported here; everything else is internal.

Names load on first use (PEP 562 ``__getattr__``), so ``import reverie`` and the command line
start fast: the engine, the SDK providers and dulwich are imported only when a name that needs
them is touched. ``_WHERE`` maps each public name to its module; a test keeps it, the imports
below and ``__all__`` in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from reverie.agent import TurnResult
    from reverie.async_engine import AsyncMemoryEngine
    from reverie.compaction.result import CompactionResult
    from reverie.config import Config
    from reverie.doctor import DoctorReport
    from reverie.dream.edit import EditResult
    from reverie.dream.result import DreamResult
    from reverie.engine import MemoryEngine
    from reverie.engine_results import PromptResult, RecordResult
    from reverie.errors import (
        AuditError,
        ContextLengthExceededError,
        CursorError,
        EditError,
        HistoryError,
        IngestBusyError,
        InputError,
        InputTooLargeError,
        LockTimeoutError,
        MalformedReplyError,
        ModelConnectionError,
        ModelError,
        ModelHTTPError,
        ModelNotConfiguredError,
        ModelRateLimitError,
        ModelTimeoutError,
        OutsideLinkError,
        RestoreWouldLoseError,
        ReverieError,
        RevisionNotFoundError,
        ScriptExhaustedError,
        SessionError,
        SessionImportError,
        StorageError,
        StoreUnsupportedError,
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
    from reverie.llm.tokens import CalibratedCounter, ExactCounter, count_request, default_counter
    from reverie.messages import Message, ToolCall
    from reverie.provenance import (
        ForgetPlan,
        ForgetReport,
        LineProvenance,
        PurgeReport,
        SourceEntry,
        SourceMessage,
        WhyReport,
    )
    from reverie.recall import RecalledItem, RecallResult
    from reverie.screening import RejectedRule
    from reverie.search import SearchHit
    from reverie.session import ArchivedSummary, Session, SessionInfo
    from reverie.status import Status
    from reverie.store.audit import CommitDetail, CommitInfo, LineOrigin
    from reverie.store.entries import HistoryEntry
    from reverie.store.history import TrimResult
    from reverie.store.sessions_sqlite import SessionStore
    from reverie.store.workspace import Workspace

_WHERE: dict[str, str] = {
    "AnthropicProvider": "reverie.llm.anthropic_provider",
    "ArchivedSummary": "reverie.session",
    "AsyncMemoryEngine": "reverie.async_engine",
    "AuditError": "reverie.errors",
    "CalibratedCounter": "reverie.llm.tokens",
    "ChatReply": "reverie.llm.provider",
    "ChatRequest": "reverie.llm.provider",
    "CommitDetail": "reverie.store.audit",
    "CommitInfo": "reverie.store.audit",
    "CompactionResult": "reverie.compaction.result",
    "Config": "reverie.config",
    "ContextLengthExceededError": "reverie.errors",
    "CursorError": "reverie.errors",
    "DoctorReport": "reverie.doctor",
    "DreamResult": "reverie.dream.result",
    "EditError": "reverie.errors",
    "EditResult": "reverie.dream.edit",
    "ExactCounter": "reverie.llm.tokens",
    "ForgetPlan": "reverie.provenance",
    "ForgetReport": "reverie.provenance",
    "HistoryEntry": "reverie.store.entries",
    "HistoryError": "reverie.errors",
    "IngestBusyError": "reverie.errors",
    "IngestReport": "reverie.ingest",
    "InputError": "reverie.errors",
    "InputTooLargeError": "reverie.errors",
    "LineOrigin": "reverie.store.audit",
    "LineProvenance": "reverie.provenance",
    "LockTimeoutError": "reverie.errors",
    "MalformedReplyError": "reverie.errors",
    "MemoryEngine": "reverie.engine",
    "Message": "reverie.messages",
    "ModelConnectionError": "reverie.errors",
    "ModelError": "reverie.errors",
    "ModelHTTPError": "reverie.errors",
    "ModelNotConfiguredError": "reverie.errors",
    "ModelRateLimitError": "reverie.errors",
    "ModelTimeoutError": "reverie.errors",
    "OpenAIProvider": "reverie.llm.openai_provider",
    "OutsideLinkError": "reverie.errors",
    "PromptResult": "reverie.engine_results",
    "Provider": "reverie.llm.provider",
    "PurgeReport": "reverie.provenance",
    "RecallResult": "reverie.recall",
    "RecalledItem": "reverie.recall",
    "RecordResult": "reverie.engine_results",
    "RejectedRule": "reverie.screening",
    "RestoreWouldLoseError": "reverie.errors",
    "RetryPolicy": "reverie.llm.retry",
    "ReverieError": "reverie.errors",
    "RevisionNotFoundError": "reverie.errors",
    "ScriptExhaustedError": "reverie.errors",
    "ScriptedProvider": "reverie.llm.scripted",
    "SearchHit": "reverie.search",
    "Session": "reverie.session",
    "SessionError": "reverie.errors",
    "SessionImportError": "reverie.errors",
    "SessionInfo": "reverie.session",
    "SessionStore": "reverie.store.sessions_sqlite",
    "SourceEntry": "reverie.provenance",
    "SourceMessage": "reverie.provenance",
    "Status": "reverie.status",
    "StorageError": "reverie.errors",
    "StoreUnsupportedError": "reverie.errors",
    "ToolCall": "reverie.messages",
    "ToolSchema": "reverie.llm.provider",
    "TrimResult": "reverie.store.history",
    "TurnResult": "reverie.agent",
    "Usage": "reverie.llm.provider",
    "WhyReport": "reverie.provenance",
    "Workspace": "reverie.store.workspace",
    "WorkspaceDamagedError": "reverie.errors",
    "WorkspaceError": "reverie.errors",
    "WorkspaceFormatError": "reverie.errors",
    "WorkspaceMissingError": "reverie.errors",
    "count_request": "reverie.llm.tokens",
    "default_counter": "reverie.llm.tokens",
}

__getattr__ = lazy_getattr(__name__, _WHERE, globals())


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


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
    "ForgetPlan",
    "ForgetReport",
    "HistoryEntry",
    "HistoryError",
    "IngestBusyError",
    "IngestReport",
    "InputError",
    "InputTooLargeError",
    "LineOrigin",
    "LineProvenance",
    "LockTimeoutError",
    "MalformedReplyError",
    "MemoryEngine",
    "Message",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotConfiguredError",
    "ModelRateLimitError",
    "ModelTimeoutError",
    "OpenAIProvider",
    "OutsideLinkError",
    "PromptResult",
    "Provider",
    "PurgeReport",
    "RecallResult",
    "RecalledItem",
    "RecordResult",
    "RejectedRule",
    "RestoreWouldLoseError",
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
    "SourceEntry",
    "SourceMessage",
    "Status",
    "StorageError",
    "StoreUnsupportedError",
    "ToolCall",
    "ToolSchema",
    "TrimResult",
    "TurnResult",
    "Usage",
    "WhyReport",
    "Workspace",
    "WorkspaceDamagedError",
    "WorkspaceError",
    "WorkspaceFormatError",
    "WorkspaceMissingError",
    "count_request",
    "default_counter",
]
