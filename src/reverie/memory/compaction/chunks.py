"""Summarising a chunk of any size without ever sending an over-budget request.

A chunk whose transcript fits the summariser's input budget is summarised in one call. A larger
one is packed into pieces of whole messages that each fit (a single message over the budget is
cut first, with a marker, until its rendered block fits), every piece is summarised, and when
the pieces' summaries together are still over the budget they are merged by summarising groups
of them, level by level; a summary handed back for merging is a ``system`` message named
``summary`` (``SUMMARY_NAME``). Summarisers receive messages with their roles, never rendered
text, so who said what is never re-read from text. The number of model calls is capped
(invariant 11); going over the cap is a failure like any other, and compaction then keeps the
raw transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reverie.core.entries import truncate
from reverie.core.messages import Message
from reverie.core.token_estimate import TokenCounter
from reverie.memory.compaction.attempt import Summariser, Summary, SummaryFailure, SummaryOutcome
from reverie.memory.compaction.transcript import render_message

SUMMARY_NAME = "summary"
"""The ``name`` of a system message that carries an earlier summary to be merged."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkSummary:
    """The outcome of summarising one chunk, and how many model calls it took."""

    outcome: SummaryOutcome
    calls: int


class ChunkSummariser:
    """Summarises chunks of messages in as many budget-sized calls as they need."""

    def __init__(
        self, summariser: Summariser, *, counter: TokenCounter, max_calls: int = 16
    ) -> None:
        self._summariser = summariser
        self._counter = counter
        self._max_calls = max_calls

    @property
    def round_tokens(self) -> int:
        """The largest chunk one compaction round should hand over: half the call cap's worth."""
        return max(1, self._max_calls // 2) * self._summariser.input_budget

    def summarise(self, messages: Sequence[Message], *, session_key: str | None) -> ChunkSummary:
        """Summarise ``messages``; never sends a transcript over the input budget."""
        budget = self._summariser.input_budget
        pieces = self._pack([self._fit(m, budget) for m in messages], budget)
        calls = tokens_in = tokens_out = 0
        texts: list[str] = []
        while True:
            for piece in pieces:
                if calls >= self._max_calls:
                    reason = f"needed more than {self._max_calls} model calls for one chunk"
                    failure = SummaryFailure(
                        reason=reason, tokens_in=tokens_in, tokens_out=tokens_out
                    )
                    return ChunkSummary(outcome=failure, calls=calls)
                outcome = self._summariser.summarise(piece, session_key=session_key)
                calls += 1
                tokens_in += outcome.tokens_in
                tokens_out += outcome.tokens_out
                if isinstance(outcome, SummaryFailure):
                    failure = SummaryFailure(
                        reason=outcome.reason, tokens_in=tokens_in, tokens_out=tokens_out
                    )
                    return ChunkSummary(outcome=failure, calls=calls)
                if not outcome.nothing:
                    texts.append(outcome.text)
            merged = "\n".join(texts)
            if len(pieces) == 1 or self._counter.text(merged) <= budget:
                summary = Summary(text=merged, tokens_in=tokens_in, tokens_out=tokens_out)
                return ChunkSummary(outcome=summary, calls=calls)
            # The pieces' facts are still too long together: summarise them in turn.
            summaries = [Message(role="system", name=SUMMARY_NAME, content=t) for t in texts]
            pieces, texts = self._pack([self._fit(s, budget) for s in summaries], budget), []

    def _cost(self, message: Message, budget: int) -> int:
        return self._counter.text(render_message(message, block_cap=budget * 4))

    def _fit(self, message: Message, budget: int) -> Message:
        """Cut a message's text until its block costs at most ``budget`` tokens (with markers)."""
        block = render_message(message, block_cap=budget * 4)
        if len(block) < len(message.text):
            message = replace(message, content=truncate(message.text, len(block)))
        while self._cost(message, budget) > budget and len(message.text) > 64:
            message = replace(message, content=truncate(message.text, len(message.text) * 3 // 4))
        return message

    def _pack(self, messages: Sequence[Message], budget: int) -> list[tuple[Message, ...]]:
        pieces: list[tuple[Message, ...]] = []
        current: list[Message] = []
        used = 0
        for message in messages:
            cost = self._cost(message, budget) + 2
            if current and used + cost > budget:
                pieces.append(tuple(current))
                current, used = [], 0
            current.append(message)
            used += cost
        if current:
            pieces.append(tuple(current))
        return pieces
