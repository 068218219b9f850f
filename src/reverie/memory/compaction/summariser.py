"""The model summariser: messages to ``- [mark] fact`` lines by asking a model.

``ModelSummariser`` renders the messages it is given as a transcript for the built-in
compaction prompt (for its own prompt only; the roles travel as messages up to here), sends it
fenced as data (``prompts.fence``) under instructions that say it is never instructions to the
summariser, and judges the reply. It calls the model only through ``MeteredModel``, which
times the call, prices it, calibrates the counter and writes its one ledger line
(``job="compaction"``), failed calls included.

A failure is a ``SummaryFailure`` with its reason, never an exception, so compaction can keep
the raw facts instead: provider errors and timeouts, a truncated reply (finish reason
``length``), an empty reply, or tool calls where none were asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.config.sections import ModelConfig
from reverie.core.entries import strip_reasoning
from reverie.core.messages import Message
from reverie.llm.metered import CallFailed, MeteredModel
from reverie.llm.provider import ChatReply, ChatRequest
from reverie.memory.compaction.attempt import NOTHING, Summary, SummaryFailure, SummaryOutcome
from reverie.memory.compaction.transcript import render
from reverie.prompts import fence, load

SUMMARY_OUTPUT_TOKENS = 3_000
"""Output tokens asked for one summary (the entry cap is 8,000 chars, about 2,000 tokens)."""

_FENCE_TOKENS = 96
"""Tokens the data fence around the transcript may cost."""


class ModelSummariser:
    """A ``Summariser`` backed by a metered model."""

    def __init__(self, model: MeteredModel, *, config: ModelConfig) -> None:
        """Summarise with ``model`` (metered for ``compaction``) whose limits are ``config``."""
        self._model = model
        self._config = config
        self._instructions = load("compaction")
        self._output_tokens = min(config.max_output_tokens, SUMMARY_OUTPUT_TOKENS)

    @property
    def label(self) -> str:
        """The model's name."""
        return self._config.model

    @property
    def input_budget(self) -> int:
        """The model's input budget for a summary's reply, less the instructions and fence."""
        window = self._config.input_budget_for(self._output_tokens)
        return max(256, window - self._model.counter.text(self._instructions) - _FENCE_TOKENS)

    def summarise(self, messages: Sequence[Message], *, session_key: str | None) -> SummaryOutcome:
        """Ask the model for the facts of ``messages``; a failure is a ``SummaryFailure``."""
        # The caller has already cut each message to fit; the block cap here only guards.
        transcript = render(messages, block_cap=self.input_budget * 4)
        request = ChatRequest(
            messages=(
                Message(role="system", content=self._instructions),
                Message(role="user", content=fence("TRANSCRIPT", transcript)),
            ),
            tool_choice="none",
            max_output_tokens=self._output_tokens,
            temperature=0.0,
        )
        result = self._model.complete(request, session_key=session_key, judge=_verdict)
        if isinstance(result, CallFailed):
            return SummaryFailure(reason=result.reason, tokens_in=result.tokens_in)
        _, reason = _verdict(result.reply)
        if reason is not None:
            return SummaryFailure(
                reason=reason, tokens_in=result.tokens_in, tokens_out=result.tokens_out
            )
        return Summary(
            text=strip_reasoning(result.reply.text),
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
        )


def _verdict(reply: ChatReply) -> tuple[str, str | None]:
    """The ledger outcome of a reply (``ok``, ``nothing``, ``failed``) and a failure's reason."""
    text = strip_reasoning(reply.text)
    if reply.tool_calls:
        return "failed", "the model called tools where none were offered"
    if reply.finish_reason == "length":
        return "failed", "the reply was cut off (finish reason: length)"
    if not text:
        return "failed", "the reply was empty"
    return ("nothing" if text.strip() == NOTHING else "ok"), None
