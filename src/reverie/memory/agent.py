"""The built-in chat agent: a small, bounded tool-calling loop over the assembled prompt.

One ``turn``: make room (compaction), then call the chat model at most ``max_iterations``
times, running the memory tools it asks for (``search_memory``, ``read_memory_file``) and
recording every message in the session; the user message is recorded with the first answer,
so a failed call records nothing. The last allowed call
forbids tools, so a turn always ends with an answer. A "context length exceeded" error from the
model triggers one harder compaction and one retry.

The agent never writes the durable files: only dream edits them. Tool errors (a bad name, bad
arguments) go back to the model as tool results, never as exceptions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from reverie.config.sections import ModelConfig
from reverie.core.clock import Clock
from reverie.core.durable import MEMORY_FILE_NAMES
from reverie.core.inbound import redact_message
from reverie.core.messages import Message, ToolCall
from reverie.errors import ContextLengthExceededError
from reverie.llm.provider import ChatReply, ChatRequest, Provider, ToolSchema
from reverie.memory.compaction.compactor import Compactor
from reverie.memory.compaction.result import CompactionResult
from reverie.memory.prompt import PromptAssembler
from reverie.storage.ports import AgentStores

if TYPE_CHECKING:
    from reverie.core.session import Session

SearchFunction = Callable[[str, int, str], str]
"""``(query, limit, session_key) -> text``: what ``search_memory`` answers the model."""

TOOLS: tuple[ToolSchema, ...] = (
    ToolSchema(
        name="search_memory",
        description=(
            "Search everything remembered: past conversation summaries and earlier messages. "
            "Use it when the user refers to something not shown in your context."
        ),
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "words to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["query"],
        },
    ),
    ToolSchema(
        name="read_memory_file",
        description="Read one durable memory file in full: SOUL, USER or MEMORY.",
        parameters={
            "type": "object",
            "properties": {"name": {"type": "string", "enum": list(MEMORY_FILE_NAMES)}},
            "required": ["name"],
        },
    ),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult:
    """What one turn produced."""

    reply: str
    messages: tuple[Message, ...]
    prompt_tokens: int
    model_calls: int
    compactions: tuple[CompactionResult, ...]
    stopped_early: bool = False


class RawTranscript(Protocol):
    """The raw transcripts an owner opted into (``reverie.engine.transcripts.RawKept``)."""

    def keep(self, key: str, index: int, said: Message) -> None:
        """Keep ``said``, the raw form of message ``index`` of session ``key``."""

    def view(self, session: Session) -> Session:
        """``session`` with its raw messages in place of their redacted forms."""


class ChatAgent:
    """Runs turns of the built-in agent for one workspace."""

    def __init__(  # noqa: PLR0913 (keyword-only wiring, done once by the engine)
        self,
        stores: AgentStores,
        *,
        provider: Provider,
        model: ModelConfig,
        assembler: PromptAssembler,
        compactor: Compactor,
        search: SearchFunction,
        clock: Clock,
        max_iterations: int = 6,
        observe: Callable[[ChatRequest, ChatReply], None] | None = None,
        raw: RawTranscript | None = None,
    ) -> None:
        self._stores = stores
        self._provider = provider
        self._model = model
        self._assembler = assembler
        self._compactor = compactor
        self._search = search
        self._clock = clock
        self._max_iterations = max(1, max_iterations)
        self._observe = observe
        self._raw = raw

    def turn(self, key: str, user_text: str) -> TurnResult:
        """Answer ``user_text`` in session ``key``, recording every message.

        The user message is recorded with the model's first answer, not before it: a model
        call that fails leaves the session as it was, so a retry does not replay the question
        twice (as the proxy records nothing of an exchange that did not complete).
        """
        compactions: list[CompactionResult] = []
        pending: Message | None = Message(role="user", content=user_text, timestamp=self._clock())
        added: list[Message] = []
        calls, tokens = 0, 0
        for iteration in range(self._max_iterations):
            last = iteration == self._max_iterations - 1
            waiting = pending.text if pending is not None else None
            reply, tokens = self._ask(key, waiting, final=last, compactions=compactions)
            calls += 1
            if pending is not None:
                added.append(self._record(key, pending))
                pending = None
            added.append(self._record(key, reply.to_message(timestamp=self._clock())))
            if not reply.tool_calls:
                return self._result(reply, added, tokens, calls, compactions, stopped=False)
            added.extend(self._record(key, self._run_tool(key, call)) for call in reply.tool_calls)
        return self._result(reply, added, tokens, calls, compactions, stopped=True)

    def _ask(
        self,
        key: str,
        waiting: str | None,
        *,
        final: bool,
        compactions: list[CompactionResult],
    ) -> tuple[ChatReply, int]:
        """One model call; a "context length exceeded" gets one harder compaction and a retry."""
        request, tokens = self._request(key, waiting, final=final, compactions=compactions)
        try:
            reply = self._provider.complete(request)
        except ContextLengthExceededError:
            compactions.append(
                self._compactor.ensure_budget(key, user_text=waiting, tools=TOOLS, harder=True)
            )
            request, tokens = self._request(key, waiting, final=final, compactions=[])
            reply = self._provider.complete(request)
        if self._observe is not None:
            self._observe(request, reply)  # real prompt tokens correct later estimates
        return reply, tokens

    def _request(
        self, key: str, waiting: str | None, *, final: bool, compactions: list[CompactionResult]
    ) -> tuple[ChatRequest, int]:
        # One load and one assembly per model call: the compactor measures the prompt built
        # here, and only over budget (compaction ran) is it built again on the session as
        # compaction last read it under its lock (no read more).
        budget = self._compactor.budget
        session = self._stores.sessions.load(key)
        if self._raw is not None:  # this session's own prompt reads what was really said
            session = self._raw.view(session)
        prompt = self._assembler.assemble(session, waiting, tools=TOOLS, budget=budget)
        fitted = self._compactor.fit(key, user_text=waiting, tools=TOOLS, built=prompt)
        compactions.append(fitted.result)
        if fitted.session is not None:  # over budget: built again on what compaction read last
            session = fitted.session
            if self._raw is not None:
                session = self._raw.view(session)
            prompt = self._assembler.assemble(session, waiting, tools=TOOLS, budget=budget)
        request = ChatRequest(
            messages=prompt.messages,
            tools=TOOLS,
            tool_choice="none" if final else "auto",
            max_output_tokens=self._model.max_output_tokens,
            temperature=self._model.temperature,
        )
        return request, prompt.tokens

    def _record(self, key: str, message: Message) -> Message:
        if message.timestamp is None:
            message = replace(message, timestamp=self._clock())
        held = redact_message(message)
        index = self._stores.sessions.append(key, held)
        if self._raw is not None and held != message:
            self._raw.keep(key, index, message)
        return message

    def _run_tool(self, key: str, call: ToolCall) -> Message:
        return Message(
            role="tool", tool_call_id=call.id, name=call.name, content=self._tool_text(key, call)
        )

    def _tool_text(self, key: str, call: ToolCall) -> str:
        try:
            arguments = json.loads(call.arguments or "{}")
        except ValueError:
            return f"error: arguments are not valid JSON: {call.arguments[:200]!r}"
        if not isinstance(arguments, dict):
            return "error: arguments must be a JSON object"
        if call.name == "search_memory":
            return self._search_tool(key, arguments)
        if call.name == "read_memory_file":
            return self._read_tool(arguments)
        return f"error: unknown tool {call.name!r}; available: search_memory, read_memory_file"

    def _search_tool(self, key: str, arguments: dict[str, object]) -> str:
        query, limit = arguments.get("query"), arguments.get("limit", 5)
        if not isinstance(query, str) or not query.strip():
            return "error: 'query' must be a non-empty string"
        limit = limit if isinstance(limit, int) and 1 <= limit <= 20 else 5
        return self._search(query, limit, key)

    def _read_tool(self, arguments: dict[str, object]) -> str:
        name = arguments.get("name")
        for file_name in MEMORY_FILE_NAMES:
            if name == file_name:
                return self._stores.files.read(file_name) or "(empty)"
        return f"error: 'name' must be one of {', '.join(MEMORY_FILE_NAMES)}"

    @staticmethod
    def _result(
        reply: ChatReply,
        added: list[Message],
        tokens: int,
        calls: int,
        compactions: list[CompactionResult],
        *,
        stopped: bool,
    ) -> TurnResult:
        return TurnResult(
            reply=reply.text,
            messages=tuple(added),
            prompt_tokens=tokens,
            model_calls=calls,
            compactions=tuple(c for c in compactions if c.outcome != "not_needed"),
            stopped_early=stopped,
        )
