"""Summarisers: turn messages into ``- [mark] fact`` lines, and say plainly when they fail.

``Summariser`` is the protocol compaction talks to; ``ModelSummariser`` renders the messages
as a transcript for the built-in compaction prompt and asks a model, and a model-free
summariser can stand in for it. A failure is a
typed ``SummaryAttempt`` (``ok=False`` with a reason), never an exception, so compaction can
keep the raw facts instead: provider errors and timeouts, a truncated reply (finish reason
``length``), an empty reply, or tool calls where none were asked for. Every model call is
recorded in the ledger with its tokens and outcome. The transcript is sent fenced as data
(``prompts.fence``), under instructions that say it is never instructions to the summariser.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from reverie.clock import Clock
from reverie.compaction.attempt import SummaryAttempt
from reverie.compaction.transcript import render
from reverie.config import ModelConfig
from reverie.errors import ModelError
from reverie.llm.provider import ChatReply, ChatRequest, Provider
from reverie.messages import Message
from reverie.ports import LedgerPort
from reverie.prompts import fence, load
from reverie.store.entries import strip_reasoning
from reverie.store.ledger import LedgerRecord
from reverie.token_estimate import TokenCounter

SUMMARY_OUTPUT_TOKENS = 3_000
"""Output tokens asked for one summary (the entry cap is 8,000 chars, about 2,000 tokens)."""


class ModelSummariser:
    """A ``Summariser`` backed by a model provider."""

    def __init__(
        self,
        provider: Provider,
        *,
        model: ModelConfig,
        counter: TokenCounter,
        ledger: LedgerPort,
        clock: Clock,
        job: str = "compaction",
    ) -> None:
        self._provider = provider
        self._model = model
        self._counter = counter
        self._ledger = ledger
        self._clock = clock
        self._job = job
        self._instructions = load("compaction")

    @property
    def label(self) -> str:
        """The model's name."""
        return self._model.model

    @property
    def input_budget(self) -> int:
        """The model's input budget less the instructions and a small margin."""
        output = min(self._model.max_output_tokens, SUMMARY_OUTPUT_TOKENS)
        window = self._model.context_window - output - 1024
        return max(256, window - self._counter.text(self._instructions) - 96)  # + the fence

    def summarise(self, messages: Sequence[Message], *, session_key: str | None) -> SummaryAttempt:
        """Ask the model for the facts of ``messages``; failures come back as ``ok=False``."""
        # The caller has already cut each message to fit; the block cap here only guards.
        transcript = render(messages, block_cap=self.input_budget * 4)
        request = ChatRequest(
            messages=(
                Message(role="system", content=self._instructions),
                Message(role="user", content=fence("TRANSCRIPT", transcript)),
            ),
            tool_choice="none",
            max_output_tokens=min(self._model.max_output_tokens, SUMMARY_OUTPUT_TOKENS),
            temperature=0.0,
        )
        started = time.monotonic()
        estimated_in = self._counter.text(self._instructions) + self._counter.text(
            request.messages[1].text
        )
        try:
            reply = self._provider.complete(request)
        except ModelError as exc:
            attempt = SummaryAttempt(ok=False, reason=f"{type(exc).__name__}: {exc}", tokens_in=0)
        else:
            attempt = _judge(reply, estimated_in)
        self._record(attempt, session_key, time.monotonic() - started)
        return attempt

    def _record(self, attempt: SummaryAttempt, session_key: str | None, seconds: float) -> None:
        outcome = "ok" if attempt.ok else "failed"
        if attempt.nothing:
            outcome = "nothing"
        self._ledger.append(
            LedgerRecord(
                time=self._clock(),
                job=self._job,
                outcome=outcome,
                model=self._model.model,
                tokens_in=attempt.tokens_in,
                tokens_out=attempt.tokens_out,
                duration_ms=seconds * 1000,
                session_key=session_key,
                reason=attempt.reason,
            )
        )


def _judge(reply: ChatReply, estimated_in: int) -> SummaryAttempt:
    text = strip_reasoning(reply.text)
    tokens_in = reply.usage.prompt_tokens if reply.usage else estimated_in
    tokens_out = reply.usage.completion_tokens if reply.usage else 0
    failure: str | None = None
    if reply.tool_calls:
        failure = "the model called tools where none were offered"
    elif reply.finish_reason == "length":
        failure = "the reply was cut off (finish reason: length)"
    elif not text:
        failure = "the reply was empty"
    if failure is not None:
        return SummaryAttempt(ok=False, reason=failure, tokens_in=tokens_in, tokens_out=tokens_out)
    return SummaryAttempt(ok=True, text=text, tokens_in=tokens_in, tokens_out=tokens_out)
