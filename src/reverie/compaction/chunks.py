"""Summarising a chunk of any size without ever sending an over-budget request.

A chunk whose transcript fits the summariser's input budget is summarised in one call. A larger
one is packed into pieces of whole message blocks that each fit (a single block over the budget
was already cut with a marker by ``transcript``), every piece is summarised, and when the
pieces' summaries together are still over the budget they are merged by summarising groups of
them, level by level. The number of model calls is capped (invariant 11); going over the cap is
a failure like any other, and compaction then keeps the raw transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reverie.compaction.attempt import Summariser, SummaryAttempt
from reverie.compaction.transcript import render_message
from reverie.messages import Message
from reverie.store.entries import truncate
from reverie.token_estimate import TokenCounter


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkSummary:
    """The outcome of summarising one chunk, and how many model calls it took."""

    attempt: SummaryAttempt
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
        blocks = [self._fit(render_message(m, block_cap=budget * 4), budget) for m in messages]
        pieces = self._pack(blocks, budget)
        calls = 0
        texts: list[str] = []
        tokens_in = tokens_out = 0
        while True:
            for piece in pieces:
                if calls >= self._max_calls:
                    reason = f"needed more than {self._max_calls} model calls for one chunk"
                    return ChunkSummary(
                        attempt=SummaryAttempt(ok=False, reason=reason), calls=calls
                    )
                attempt = self._summariser.summarise(piece, session_key=session_key)
                calls += 1
                tokens_in, tokens_out = (
                    tokens_in + attempt.tokens_in,
                    tokens_out + attempt.tokens_out,
                )
                if not attempt.ok:
                    return ChunkSummary(attempt=attempt, calls=calls)
                if not attempt.nothing:
                    texts.append(attempt.text)
            merged = "\n".join(texts)
            if len(pieces) == 1 or self._counter.text(merged) <= budget:
                result = SummaryAttempt(
                    ok=True, text=merged, tokens_in=tokens_in, tokens_out=tokens_out
                )
                return ChunkSummary(attempt=result, calls=calls)
            # The pieces' facts are still too long together: summarise them in turn.
            pieces, texts = self._pack([self._fit(t, budget) for t in texts], budget), []

    def _fit(self, block: str, budget: int) -> str:
        """Cut a block until it costs at most ``budget`` tokens (markers included)."""
        while self._counter.text(block) > budget and len(block) > 64:
            block = truncate(block, max(64, len(block) * 3 // 4))
        return block

    def _pack(self, blocks: Sequence[str], budget: int) -> list[str]:
        pieces: list[str] = []
        current: list[str] = []
        used = 0
        for block in blocks:
            cost = self._counter.text(block) + 2
            if current and used + cost > budget:
                pieces.append("\n\n".join(current))
                current, used = [], 0
            current.append(block)
            used += cost
        if current:
            pieces.append("\n\n".join(current))
        return pieces
