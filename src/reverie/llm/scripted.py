"""``ScriptedProvider``: a ``Provider`` that replays a script, for tests and offline demos.

Public API, shipped in the package so every layer above the model can be tested without a
model: queue replies (text, tool calls, finish reasons, usage), exceptions to raise, or
functions that build a reply from the request; each ``complete`` call consumes the next step
and records the request. Usage a step leaves out is filled in from a token counter (prompt:
``count_request``; completion: the reply's text and tool calls), so budget code sees
realistic numbers.

Invariants: steps are consumed strictly in order, one per call, under a lock (threads may
share a provider); every request is recorded, including the ones that raise; running past the
end of the script raises ``ScriptExhaustedError`` naming how many steps were scripted and the
request that found the script empty — it never invents a reply.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

from reverie.core.token_estimate import EstimatingCounter, TokenCounter
from reverie.errors import ScriptExhaustedError
from reverie.llm.provider import ChatReply, FinishReason, Usage
from reverie.llm.tokens import count_request

if TYPE_CHECKING:
    from reverie.core.messages import ToolCall
    from reverie.llm.provider import ChatRequest

ReplyFunction: TypeAlias = Callable[["ChatRequest"], ChatReply]
Step: TypeAlias = ChatReply | Exception | ReplyFunction


class ScriptedProvider:
    """Replays queued replies, exceptions and reply functions, recording every request.

    Args:
        steps: the script, in order (more can be added with ``reply``, ``fail``, ``respond``).
        model: the model name filled into replies that name none.
        counter: prices usage that a reply leaves out (default: the offline estimator).
        auto_usage: when False, replies without usage stay without usage.

    Example:
        >>> from reverie import ChatRequest, Message
        >>> provider = ScriptedProvider().reply("hello")
        >>> provider.complete(ChatRequest(messages=(Message(role="user", content="hi"),))).text
        'hello'
    """

    def __init__(
        self,
        *steps: Step,
        model: str = "scripted",
        counter: TokenCounter | None = None,
        auto_usage: bool = True,
    ) -> None:
        self.model = model
        self._counter = counter if counter is not None else EstimatingCounter()
        self._auto_usage = auto_usage
        self._steps: deque[Step] = deque(steps)
        self._scripted = len(steps)
        self._requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    def reply(
        self,
        text: str = "",
        *,
        tool_calls: Sequence[ToolCall] = (),
        finish_reason: FinishReason | None = None,
        usage: Usage | None = None,
        model: str = "",
    ) -> ScriptedProvider:
        """Queue a reply; the finish reason defaults to "tool_calls" when calls are given."""
        reason = finish_reason or ("tool_calls" if tool_calls else "stop")
        step = ChatReply(
            text=text, tool_calls=tuple(tool_calls), finish_reason=reason, usage=usage, model=model
        )
        return self.add(step)

    def fail(self, error: Exception) -> ScriptedProvider:
        """Queue an exception to raise (typically a ``reverie.errors.ModelError``)."""
        return self.add(error)

    def respond(self, function: ReplyFunction) -> ScriptedProvider:
        """Queue a function that builds the reply from the request it receives."""
        return self.add(function)

    def add(self, *steps: Step) -> ScriptedProvider:
        """Queue steps of any kind, in order; returns the provider for chaining."""
        with self._lock:
            self._steps.extend(steps)
            self._scripted += len(steps)
        return self

    @property
    def requests(self) -> tuple[ChatRequest, ...]:
        """Every request received so far, in order."""
        with self._lock:
            return tuple(self._requests)

    @property
    def remaining(self) -> int:
        """How many scripted steps are still unused."""
        with self._lock:
            return len(self._steps)

    def complete(self, request: ChatRequest) -> ChatReply:
        """Consume the next step: return its reply or raise its exception.

        Raises:
            ScriptExhaustedError: no step is left for this request.
        """
        with self._lock:
            self._requests.append(request)
            number = len(self._requests)
            step = self._steps.popleft() if self._steps else None
            scripted = self._scripted
        if step is None:
            raise ScriptExhaustedError(
                f"ScriptedProvider ran out of script: {scripted} step(s) scripted, "
                f"request #{number} found none left ({request.describe()})"
            )
        if isinstance(step, Exception):
            raise step
        reply = step if isinstance(step, ChatReply) else step(request)
        return self._complete_reply(reply, request)

    def _complete_reply(self, reply: ChatReply, request: ChatRequest) -> ChatReply:
        model = reply.model or request.model or self.model
        usage = reply.usage
        if usage is None and self._auto_usage:
            completion = self._counter.text(reply.text) + sum(
                self._counter.text(call.name) + self._counter.text(call.arguments)
                for call in reply.tool_calls
            )
            usage = Usage(
                prompt_tokens=count_request(request, self._counter), completion_tokens=completion
            )
        return replace(reply, model=model, usage=usage)
