"""Honest token counts for prompts, without a network call.

Three counters implement ``reverie.core.token_estimate.TokenCounter``:

- ``ExactCounter``: exact o200k_base (or cl100k_base) counts from ``toktok`` (the optional
  ``tokens`` extra: a small Rust extension with the encodings compiled in, so it never downloads
  anything — unlike plain ``tiktoken``, which fetches its encoding files on first use).
  ``ExactCounter.load()`` returns None when the package is not installed.
- ``EstimatingCounter`` (from ``reverie.core.token_estimate``): the calibrated offline estimate.
- ``CalibratedCounter``: wraps either and scales it by a smoothed, bounded ratio learned from the
  prompt tokens providers report, so one session's counts converge on what its model bills,
  whatever that model's tokenizer is.

``count_request`` prices a whole ``ChatRequest``: messages with their per-message overhead, tool
schemas, and the tokens that prime the reply. ``default_counter()`` returns the exact counter
when available, else the estimator.

Invariants: no counter does I/O or network; a calibration ratio stays within its bounds; a
counter is safe to share between threads.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import TYPE_CHECKING, Any

from reverie.core.token_estimate import EstimatingCounter, TokenCounter, message_tokens

if TYPE_CHECKING:
    from collections.abc import Callable

    from reverie.core.messages import Message
    from reverie.llm.provider import ChatReply, ChatRequest

REPLY_PRIMING_TOKENS = 3
"""Tokens every request costs for priming the assistant's reply (OpenAI's chat format)."""

TOOLS_OVERHEAD_TOKENS = 12
"""Tokens the tool section costs beyond the schemas themselves (its framing)."""

EXACT_ENCODINGS = ("o200k_base", "cl100k_base")
_CACHE_MAX_CHARS = 32_768


class ExactCounter:
    """Exact token counts in an OpenAI encoding, offline (needs the ``tokens`` extra)."""

    def __init__(self, count: Callable[[str], int], encoding: str) -> None:
        # Prompts re-count the same messages every turn: remember recent texts' counts.
        self._count = functools.lru_cache(maxsize=65_536)(count)
        self.encoding = encoding

    @classmethod
    def load(cls, encoding: str = "o200k_base") -> ExactCounter | None:
        """Return an exact counter for ``encoding``, or None when ``toktok`` is not installed.

        Raises:
            ValueError: ``encoding`` is not one of ``EXACT_ENCODINGS``.
        """
        if encoding not in EXACT_ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; known: {', '.join(EXACT_ENCODINGS)}")
        try:
            import toktok  # noqa: PLC0415 (optional extra)
        except ImportError:
            return None
        batch_count: Any = toktok.batch_count

        def count(text: str) -> int:
            # one thread: a prompt's texts are small and the pool would cost more than it saves
            return int(batch_count([text], encoding, threads=1)[0])

        return cls(count, encoding)

    def text(self, text: str) -> int:
        """Return the exact tokens of ``text`` (special-token strings count as plain text)."""
        if not text:
            return 0
        return self._count(text) if len(text) <= _CACHE_MAX_CHARS else self._count.__wrapped__(text)

    def message(self, message: Message) -> int:
        """Return the tokens of one message, overhead and tool calls included."""
        return message_tokens(message, self.text)


def default_counter() -> TokenCounter:
    """Return the exact o200k counter when installed, else the calibrated estimator."""
    exact = ExactCounter.load()
    return exact if exact is not None else EstimatingCounter()


def count_request(request: ChatRequest, counter: TokenCounter | None = None) -> int:
    """Return what ``request``'s prompt costs: messages, tool schemas and reply priming.

    Tool schemas are priced as their JSON text plus a fixed framing; providers render them more
    compactly, so this errs on the high side, which is the safe side for a budget.
    """
    counter = counter if counter is not None else EstimatingCounter()
    total = REPLY_PRIMING_TOKENS + sum(counter.message(message) for message in request.messages)
    if request.tools:
        total += TOOLS_OVERHEAD_TOKENS
        total += sum(counter.text(schema.canonical_text()) for schema in request.tools)
    return total


class CalibratedCounter:
    """A counter corrected by the prompt tokens a provider reported for real requests.

    Each observation compares the base counter's price of a request with the provider's
    ``prompt_tokens``; the ratio is smoothed (exponential moving average) and clamped to
    ``bounds``, so one odd report cannot swing the budget. Use one per session (or per model):
    the ratio then absorbs the gap between the base counter and that model's tokenizer.

    Args:
        base: the counter to correct (exact or estimating).
        smoothing: weight of a new observation in the moving average, in (0, 1].
        bounds: the lowest and highest ratio allowed.
    """

    def __init__(
        self,
        base: TokenCounter | None = None,
        *,
        smoothing: float = 0.3,
        bounds: tuple[float, float] = (0.5, 2.0),
    ) -> None:
        low, high = bounds
        if not 0 < smoothing <= 1:
            raise ValueError(f"smoothing must be in (0, 1], got {smoothing}")
        if not 0 < low <= 1 <= high:
            raise ValueError(f"bounds must satisfy 0 < low <= 1 <= high, got {bounds}")
        self.base = base if base is not None else EstimatingCounter()
        self._smoothing = smoothing
        self._low, self._high = low, high
        self._ratio = 1.0
        self._observations = 0
        self._lock = threading.Lock()

    @property
    def ratio(self) -> float:
        """The current correction factor (reported / counted); 1.0 before any observation."""
        with self._lock:
            return self._ratio

    @property
    def observations(self) -> int:
        """How many provider reports have been folded in."""
        with self._lock:
            return self._observations

    def text(self, text: str) -> int:
        """Return the corrected tokens of ``text``."""
        return self._scale(self.base.text(text))

    def message(self, message: Message) -> int:
        """Return the corrected tokens of one message."""
        return self._scale(self.base.message(message))

    def observe(self, request: ChatRequest, prompt_tokens: int) -> None:
        """Fold in that the provider billed ``prompt_tokens`` for ``request``."""
        counted = count_request(request, self.base)
        if counted <= 0 or prompt_tokens <= 0:
            return
        sample = min(self._high, max(self._low, prompt_tokens / counted))
        with self._lock:
            if self._observations == 0:
                self._ratio = sample
            else:
                self._ratio += self._smoothing * (sample - self._ratio)
            self._ratio = min(self._high, max(self._low, self._ratio))
            self._observations += 1

    def observe_reply(self, request: ChatRequest, reply: ChatReply) -> None:
        """Fold in the usage of ``reply`` to ``request``, if the provider reported it."""
        if reply.usage is not None:
            self.observe(request, reply.usage.prompt_tokens)

    def _scale(self, tokens: int) -> int:
        # round up: an undercount overflows a context window, an overcount only wastes a little
        return math.ceil(tokens * self.ratio)
