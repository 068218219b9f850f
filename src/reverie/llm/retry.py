"""reverie's one retry policy for model calls: exponential backoff with jitter, Retry-After first.

Adapters turn every failure into a ``ModelError`` first, then ``Retrier.run`` decides: rate
limits (429), server errors (5xx), timeouts and connection failures are retried; other HTTP
errors (400, 401, 404, ...) and context-length errors never are, nor are malformed replies.
The SDKs' own retries are switched off so this is the only policy. Sleep and randomness are
injected, so tests never really wait.

Invariants: at most ``max_attempts`` calls; a Retry-After the endpoint sent is honoured exactly,
and one longer than ``max_retry_after`` ends the retries instead of blocking a thread for long;
the error raised after the last attempt is the last one seen, with ``attempts`` set on it.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from reverie.errors import (
    ContextLengthExceededError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelTimeoutError,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """How often and how patiently to retry a failed model call.

    Attributes:
        max_attempts: calls in total, the first included (1 disables retries).
        base_delay: seconds before the first retry; doubles on each later one.
        max_delay: cap on one backoff wait.
        max_retry_after: the longest Retry-After honoured; a longer one ends the retries.
    """

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("retry delays must not be negative")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """Return the wait before retry number ``retry`` (1-based) without a Retry-After.

        "Equal jitter": half the exponential step is fixed, the other half random, so waits
        grow but concurrent clients do not retry in lockstep.
        """
        step = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        return step / 2 + rng.uniform(0, step / 2)


def is_retryable(error: ModelError) -> bool:
    """Return whether a failed call may succeed if simply sent again."""
    if isinstance(error, ContextLengthExceededError):
        return False
    if isinstance(error, ModelRateLimitError | ModelTimeoutError | ModelConnectionError):
        return True
    return isinstance(error, ModelHTTPError) and error.status >= 500


class Retrier:
    """Runs a call under a ``RetryPolicy`` with an injected sleep and random source."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        sleep: Sleep = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.policy = policy if policy is not None else RetryPolicy()
        self._sleep = sleep
        self._rng = rng if rng is not None else random.Random()  # noqa: S311 (jitter, not crypto)

    def run(self, call: Callable[[], T], *, what: str = "model call") -> T:
        """Return ``call()``, retrying it on retryable ``ModelError``s per the policy.

        Raises:
            ModelError: the last failure, once retries are exhausted or not allowed.
        """
        attempt = 1
        while True:
            try:
                return call()
            except ModelError as error:
                wait = self._wait_before_next(error, attempt)
                if wait is None:
                    error.attempts = attempt
                    if attempt > 1:
                        error.add_note(f"gave up after {attempt} attempts")
                    raise
                logger.warning(
                    "%s failed (%s); retrying in %.2fs (attempt %d of %d)",
                    what, error, wait, attempt + 1, self.policy.max_attempts,
                )  # fmt: skip
                self._sleep(wait)
                attempt += 1

    def _wait_before_next(self, error: ModelError, attempt: int) -> float | None:
        if attempt >= self.policy.max_attempts or not is_retryable(error):
            return None
        retry_after = error.retry_after if isinstance(error, ModelHTTPError) else None
        if retry_after is None:
            return self.policy.backoff(attempt, self._rng)
        if retry_after > self.policy.max_retry_after:
            return None
        return retry_after
