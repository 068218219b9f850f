"""reverie: a local-first long-term memory and context engine for LLM agents.

The public API is re-exported here; everything else is internal.

Names load on first use (PEP 562 ``__getattr__``), so ``import reverie`` and the command line
start fast: the engine, the SDK providers and dulwich are imported only when a name that needs
them is touched. ``_WHERE`` maps each public name to its module; a test keeps it, the imports
below and ``__all__`` in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from reverie.config.settings import Config
    from reverie.core.audit import CommitDetail, CommitInfo, LineOrigin
    from reverie.core.entries import HistoryEntry, TrimResult
    from reverie.core.hits import SearchHit
    from reverie.core.messages import Message, ToolCall
    from reverie.core.screening import RejectedRule
    from reverie.core.session import CompactionSummary, Session, SessionInfo
    from reverie.engine.async_engine import AsyncMemoryEngine
    from reverie.engine.facade import MemoryEngine
    from reverie.engine.results import PromptResult, RecordResult
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
    from reverie.llm.anthropic_provider import AnthropicProvider
    from reverie.llm.openai_provider import OpenAIProvider
    from reverie.llm.provider import ChatReply, ChatRequest, Provider, ToolSchema, Usage
    from reverie.llm.retry import RetryPolicy
    from reverie.llm.scripted import ScriptedProvider
    from reverie.llm.tokens import CalibratedCounter, ExactCounter, count_request, default_counter
    from reverie.memory.agent import TurnResult
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.doctor import DoctorReport
    from reverie.memory.dream.edit import EditResult
    from reverie.memory.dream.result import DreamResult
    from reverie.memory.ingest.run import IngestReport
    from reverie.memory.provenance import (
        ForgetPlan,
        ForgetReport,
        LineProvenance,
        PurgeReport,
        SourceEntry,
        SourceMessage,
        WhyReport,
    )
    from reverie.memory.recall import RecalledItem, RecallResult
    from reverie.memory.status import Status

_WHERE: dict[str, str] = {
    "AnthropicProvider": "reverie.llm.anthropic_provider",
    "CompactionSummary": "reverie.core.session",
    "AsyncMemoryEngine": "reverie.engine.async_engine",
    "AuditError": "reverie.errors",
    "CalibratedCounter": "reverie.llm.tokens",
    "ChatReply": "reverie.llm.provider",
    "ChatRequest": "reverie.llm.provider",
    "CommitDetail": "reverie.core.audit",
    "CommitInfo": "reverie.core.audit",
    "CompactionResult": "reverie.memory.compaction.result",
    "Config": "reverie.config.settings",
    "ContextLengthExceededError": "reverie.errors",
    "CursorError": "reverie.errors",
    "DoctorReport": "reverie.memory.doctor",
    "DreamResult": "reverie.memory.dream.result",
    "EditError": "reverie.errors",
    "EditResult": "reverie.memory.dream.edit",
    "ExactCounter": "reverie.llm.tokens",
    "ForgetPlan": "reverie.memory.provenance",
    "ForgetReport": "reverie.memory.provenance",
    "HistoryEntry": "reverie.core.entries",
    "HistoryError": "reverie.errors",
    "IngestBusyError": "reverie.errors",
    "IngestReport": "reverie.memory.ingest.run",
    "InputError": "reverie.errors",
    "InputTooLargeError": "reverie.errors",
    "LineOrigin": "reverie.core.audit",
    "LineProvenance": "reverie.memory.provenance",
    "LockTimeoutError": "reverie.errors",
    "MalformedReplyError": "reverie.errors",
    "MemoryEngine": "reverie.engine.facade",
    "Message": "reverie.core.messages",
    "ModelConnectionError": "reverie.errors",
    "ModelError": "reverie.errors",
    "ModelHTTPError": "reverie.errors",
    "ModelNotConfiguredError": "reverie.errors",
    "ModelRateLimitError": "reverie.errors",
    "ModelTimeoutError": "reverie.errors",
    "OpenAIProvider": "reverie.llm.openai_provider",
    "OutsideLinkError": "reverie.errors",
    "PromptResult": "reverie.engine.results",
    "Provider": "reverie.llm.provider",
    "PurgeReport": "reverie.memory.provenance",
    "RecallResult": "reverie.memory.recall",
    "RecalledItem": "reverie.memory.recall",
    "RecordResult": "reverie.engine.results",
    "RejectedRule": "reverie.core.screening",
    "RestoreWouldLoseError": "reverie.errors",
    "RetryPolicy": "reverie.llm.retry",
    "ReverieError": "reverie.errors",
    "RevisionNotFoundError": "reverie.errors",
    "ScriptExhaustedError": "reverie.errors",
    "ScriptedProvider": "reverie.llm.scripted",
    "SearchHit": "reverie.core.hits",
    "Session": "reverie.core.session",
    "SessionError": "reverie.errors",
    "SessionImportError": "reverie.errors",
    "SessionInfo": "reverie.core.session",
    "SourceEntry": "reverie.memory.provenance",
    "SourceMessage": "reverie.memory.provenance",
    "Status": "reverie.memory.status",
    "StorageError": "reverie.errors",
    "StoreUnsupportedError": "reverie.errors",
    "ToolCall": "reverie.core.messages",
    "ToolSchema": "reverie.llm.provider",
    "TrimResult": "reverie.core.entries",
    "TurnResult": "reverie.memory.agent",
    "Usage": "reverie.llm.provider",
    "WhyReport": "reverie.memory.provenance",
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
    "AsyncMemoryEngine",
    "AuditError",
    "CalibratedCounter",
    "ChatReply",
    "ChatRequest",
    "CommitDetail",
    "CommitInfo",
    "CompactionResult",
    "CompactionSummary",
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
    "WorkspaceDamagedError",
    "WorkspaceError",
    "WorkspaceFormatError",
    "WorkspaceMissingError",
    "count_request",
    "default_counter",
]
