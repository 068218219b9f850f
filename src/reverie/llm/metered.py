"""``MeteredModel``: the one path by which a memory job (compaction, dream) calls a model.

Every call through it is timed, priced and written down once:

- **tokens**: the request is priced with the counter before it is sent (``estimated_in``);
  the provider's reported usage wins when there is one, else the estimate stands (and the
  reply is priced with the counter);
- **calibration**: reported prompt tokens are folded into the counter when it is a
  ``CalibratedCounter``, so later budgets converge on what this model bills;
- **the record**: one ``ModelCall`` per call goes to the call log (the workspace ledger),
  failed calls included, with the caller's judgement of the reply as its outcome.

A provider error is never raised to the caller: it comes back as ``CallFailed`` (with the
error), so a job can keep its raw facts and say why. The wrapper has no other logic: it never
retries (the provider's retry policy does), never edits a request and never reads a reply's
meaning beyond the caller's ``judge``.

The call log is a protocol (``CallLog``): ``reverie.storage.folder.ledger.Ledger`` meets it, and
this module imports nothing from the store (the model layer and the store never meet).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from reverie.errors import ModelError
from reverie.llm.tokens import CalibratedCounter, count_request

if TYPE_CHECKING:
    from reverie.core.clock import Clock
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import ChatReply, ChatRequest, Provider

FAILED = "error"
"""The outcome recorded for a call the provider failed (timeout, refusal, bad response)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCall:
    """The facts of one model call, as the ledger keeps them."""

    time: datetime
    job: str
    outcome: str
    model: str
    tokens_in: int
    tokens_out: int
    estimated_in: int
    """The counter's price of the prompt, kept beside the billed figure to show its error."""
    duration_ms: float
    session_key: str | None = None
    reason: str | None = None


class CallLog(Protocol):
    """Where metered calls are written down (``Ledger.append_call``)."""

    def append_call(self, call: ModelCall) -> None:
        """Write down one call."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Answered:
    """The model replied (whatever the reply is worth: the caller judges that)."""

    reply: ChatReply
    tokens_in: int
    tokens_out: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CallFailed:
    """The provider failed; ``tokens_in`` is the estimate (a timed-out call may be billed)."""

    error: ModelError
    tokens_in: int
    tokens_out: int = 0

    @property
    def reason(self) -> str:
        """The error, named by its kind: ``ModelTimeoutError: no answer in 120s``."""
        return f"{type(self.error).__name__}: {self.error}"


Judge = Callable[["ChatReply"], tuple[str, str | None]]
"""The caller's verdict on a reply: the ledger outcome and, for a bad reply, the reason."""


def _answered(reply: ChatReply) -> tuple[str, str | None]:
    del reply  # any reply will do
    return "ok", None


class MeteredModel:
    """A provider, metered for one job (see the module docstring)."""

    def __init__(
        self,
        provider: Provider,
        *,
        job: str,
        counter: TokenCounter,
        log: CallLog,
        clock: Clock,
        label: str = "",
    ) -> None:
        """Meter ``provider`` for ``job``; ``label`` names the model (else the reply's name)."""
        self._provider = provider
        self._counter = counter
        self._log = log
        self._clock = clock
        self.job = job
        self.label = label

    @property
    def counter(self) -> TokenCounter:
        """The counter that prices requests (calibrated by the calls made through here)."""
        return self._counter

    def price(self, request: ChatRequest) -> int:
        """The counter's price of ``request``'s prompt."""
        return count_request(request, self._counter)

    def complete(
        self, request: ChatRequest, *, session_key: str | None = None, judge: Judge = _answered
    ) -> Answered | CallFailed:
        """Send ``request``; record the call once; return the reply or the failure."""
        estimated = self.price(request)
        started = time.perf_counter()
        try:
            reply = self._provider.complete(request)
        except ModelError as exc:
            failed = CallFailed(error=exc, tokens_in=estimated)
            self._write(failed, estimated, started, session_key, FAILED, failed.reason, "")
            return failed
        if reply.usage is not None:
            answered = Answered(
                reply=reply,
                tokens_in=reply.usage.prompt_tokens,
                tokens_out=reply.usage.completion_tokens,
            )
            if isinstance(self._counter, CalibratedCounter):
                self._counter.observe_reply(request, reply)
        else:
            answered = Answered(reply=reply, tokens_in=estimated, tokens_out=self._priced(reply))
        outcome, reason = judge(reply)
        self._write(answered, estimated, started, session_key, outcome, reason, reply.model)
        return answered

    def _priced(self, reply: ChatReply) -> int:
        return self._counter.text(reply.text) + sum(
            self._counter.text(call.name) + self._counter.text(call.arguments)
            for call in reply.tool_calls
        )

    def _write(
        self,
        result: Answered | CallFailed,
        estimated: int,
        started: float,
        session_key: str | None,
        outcome: str,
        reason: str | None,
        reply_model: str,
    ) -> None:
        self._log.append_call(
            ModelCall(
                time=self._clock(),
                job=self.job,
                outcome=outcome,
                model=self.label or reply_model or "unknown",
                tokens_in=result.tokens_in,
                tokens_out=result.tokens_out,
                estimated_in=estimated,
                duration_ms=(time.perf_counter() - started) * 1000,
                session_key=session_key,
                reason=reason,
            )
        )
