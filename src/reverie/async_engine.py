"""``AsyncMemoryEngine``: ``MemoryEngine`` for asyncio agents, with no logic of its own.

Every call runs the synchronous engine in a worker thread (``asyncio.to_thread``), so an event
loop never blocks on file locks, git or a model call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

from reverie.agent import TurnResult
from reverie.compaction.result import CompactionResult
from reverie.engine import MemoryEngine
from reverie.engine_results import MessageLike, PromptResult, RecordResult
from reverie.llm.provider import ToolSchema
from reverie.provenance import ForgetReport, WhyReport


class AsyncMemoryEngine:
    """``MemoryEngine`` for asyncio: each call runs in a worker thread; no logic of its own."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    async def record(self, session_key: str, messages: Iterable[MessageLike]) -> RecordResult:
        """See ``MemoryEngine.record``."""
        return await asyncio.to_thread(self.engine.record, session_key, list(messages))

    async def prompt(
        self, session_key: str, user_text: str | None, tools: Sequence[ToolSchema] = ()
    ) -> PromptResult:
        """See ``MemoryEngine.prompt``."""
        return await asyncio.to_thread(self.engine.prompt, session_key, user_text, tools)

    async def turn(self, session_key: str, user_text: str) -> TurnResult:
        """See ``MemoryEngine.turn``."""
        return await asyncio.to_thread(self.engine.turn, session_key, user_text)

    async def compact(self, session_key: str) -> CompactionResult:
        """See ``MemoryEngine.compact``."""
        return await asyncio.to_thread(self.engine.compact, session_key)

    async def why(self, text: str) -> WhyReport:
        """See ``MemoryEngine.why``."""
        return await asyncio.to_thread(self.engine.why, text)

    async def forget(self, text: str, *, purge: bool = False) -> ForgetReport:
        """See ``MemoryEngine.forget``."""
        return await asyncio.to_thread(lambda: self.engine.forget(text, purge=purge))
