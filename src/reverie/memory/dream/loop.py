"""The bounded tool loop of one dream run: model call, tool calls, repeat, until a final answer.

``DreamLoop`` owns the conversation with the model and the three bounds of invariant 11:

- rounds: at most ``max_rounds`` rounds of tool calls; a reply that still asks for tools after
  the last round ends the run (``step_limit``) without running them;
- tokens: the prompt and completion tokens of every call are summed (the provider's reported
  usage, else a count with the injected counter); a call whose counted prompt would cross
  ``token_budget`` is not made, and a run whose spend crossed it ends (``over_budget``), even
  when that last reply was final;
- progress: every round's tool outcomes go to a ``ProgressDetector`` (``no_progress``).

The model is called only through ``MeteredModel`` (``job="dream"``), which times and prices
each call, calibrates the counter and appends its one ledger line (outcome ``tool_calls``,
``final`` or ``error``), failed calls included. A model error
ends the run as ``failed``; a bad tool call never does: ``DreamTools`` turns it into a tool
message that starts with ``error:`` and the model may fix it. The run *completes* only when a
reply has no tool calls and was not cut off (finish reason ``length`` or ``content_filter``).
The loop edits only the ``Staging`` behind its tools; it never publishes or touches cursors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from reverie.core.messages import Message
from reverie.llm.metered import CallFailed
from reverie.llm.provider import ChatReply, ChatRequest, ToolSchema
from reverie.memory.dream.tool_specs import TOOL_SPECS

if TYPE_CHECKING:
    from reverie.core.clock import Clock
    from reverie.core.messages import ToolCall
    from reverie.llm.metered import MeteredModel
    from reverie.memory.dream.progress import ProgressDetector
    from reverie.memory.dream.staging import Staging
    from reverie.memory.dream.tools import DreamTools, ToolOutcome

LoopOutcome = Literal["completed", "failed", "over_budget", "step_limit", "no_progress"]

TOOL_SCHEMAS: tuple[ToolSchema, ...] = tuple(
    ToolSchema(name=spec.name, description=spec.description, parameters=spec.parameters)
    for spec in TOOL_SPECS
)
"""The four dream tools in the model layer's schema type."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopLimits:
    """The bounds of one run."""

    max_rounds: int
    token_budget: int
    max_output_tokens: int = 4_096
    """Cap asked of each reply (lowered further when the budget has less left)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopResult:
    """How the loop ended, what it cost, and the whole conversation."""

    outcome: LoopOutcome
    reason: str
    rounds: int
    model_calls: int
    tokens_in: int
    tokens_out: int
    transcript: tuple[Message, ...]


class DreamLoop:
    """One run's conversation with the model (create one per run)."""

    def __init__(
        self,
        *,
        model: MeteredModel,
        tools: DreamTools[Staging],
        detector: ProgressDetector,
        limits: LoopLimits,
        clock: Clock,
    ) -> None:
        self._model = model
        self._tools = tools
        self._detector = detector
        self._limits = limits
        self._clock = clock
        self._transcript: list[Message] = []
        self._rounds = self._calls = self._tokens_in = self._tokens_out = 0

    def run(self, messages: tuple[Message, ...]) -> LoopResult:
        """Talk with the model from ``messages`` until a final answer or a bound ends the run."""
        self._transcript = list(messages)
        while True:
            request = self._request()
            if request is None:
                return self._end("over_budget", self._budget_reason("the next call would cross"))
            reply = self._call(request)
            if isinstance(reply, CallFailed):
                return self._end("failed", f"model call failed: {reply.error}")
            self._transcript.append(reply.to_message(timestamp=self._clock()))
            if self._tokens_in + self._tokens_out > self._limits.token_budget:
                return self._end("over_budget", self._budget_reason("the run crossed"))
            if not reply.tool_calls:
                return self._final(reply)
            if self._rounds >= self._limits.max_rounds:
                return self._end(
                    "step_limit",
                    f"the model still called tools after {self._rounds} rounds "
                    f"(max_rounds {self._limits.max_rounds})",
                )
            verdict = self._detector.observe(self._run_tools(reply.tool_calls))
            if verdict.stop:
                return self._end("no_progress", f"{verdict.outcome}: {verdict.detail}")

    def _request(self) -> ChatRequest | None:
        """The next request, with its reply capped by what the budget has left; None if spent."""
        probe = ChatRequest(messages=tuple(self._transcript), tools=TOOL_SCHEMAS)
        left = self._limits.token_budget - self._tokens_in - self._tokens_out
        left -= self._model.price(probe)
        if left <= 0:
            return None
        return ChatRequest(
            messages=probe.messages,
            tools=TOOL_SCHEMAS,
            tool_choice="auto",
            max_output_tokens=min(left, self._limits.max_output_tokens),
        )

    def _call(self, request: ChatRequest) -> ChatReply | CallFailed:
        """One metered call; its tokens count against the run's budget, failed or not."""
        result = self._model.complete(request, judge=_verdict)
        self._calls += 1
        self._tokens_in += result.tokens_in
        self._tokens_out += result.tokens_out
        return result if isinstance(result, CallFailed) else result.reply

    def _run_tools(self, calls: tuple[ToolCall, ...]) -> list[ToolOutcome]:
        self._rounds += 1
        outcomes: list[ToolOutcome] = []
        for call in calls:
            outcome = self._tools.call(call.name, call.arguments)
            outcomes.append(outcome)
            text = outcome.text if outcome.ok else f"error: {outcome.text}"
            self._transcript.append(
                Message(
                    role="tool",
                    content=text,
                    tool_call_id=call.id,
                    name=call.name,
                    timestamp=self._clock(),
                )
            )
        return outcomes

    def _final(self, reply: ChatReply) -> LoopResult:
        if reply.finish_reason in ("length", "content_filter"):
            return self._end(
                "failed", f"the final answer was cut off (finish reason {reply.finish_reason})"
            )
        return self._end("completed", "")

    def _budget_reason(self, what: str) -> str:
        spent = self._tokens_in + self._tokens_out
        return f"{what} the token budget ({spent:,} spent of {self._limits.token_budget:,})"

    def _end(self, outcome: LoopOutcome, reason: str) -> LoopResult:
        return LoopResult(
            outcome=outcome,
            reason=reason,
            rounds=self._rounds,
            model_calls=self._calls,
            tokens_in=self._tokens_in,
            tokens_out=self._tokens_out,
            transcript=tuple(self._transcript),
        )


def _verdict(reply: ChatReply) -> tuple[str, str | None]:
    """A dream reply's ledger outcome: it asked for tools, or it is the final answer."""
    return ("tool_calls" if reply.tool_calls else "final"), None
