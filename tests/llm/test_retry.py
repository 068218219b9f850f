"""The retry policy: what is retried, how long it waits, and what it raises at the end."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from reverie.errors import (
    ContextLengthExceededError,
    MalformedReplyError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelTimeoutError,
)
from reverie.llm.retry import Retrier, RetryPolicy, is_retryable


def failing(*errors: ModelError, result: str = "ok") -> Callable[[], str]:
    queue = list(errors)

    def call() -> str:
        if queue:
            raise queue.pop(0)
        return result

    return call


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (ModelRateLimitError("x", status=429), True),
        (ModelHTTPError("x", status=500), True),
        (ModelHTTPError("x", status=503), True),
        (ModelTimeoutError("x"), True),
        (ModelConnectionError("x"), True),
        (ModelHTTPError("x", status=400), False),
        (ModelHTTPError("x", status=401), False),
        (ModelHTTPError("x", status=404), False),
        (ContextLengthExceededError("x", status=500), False),
        (MalformedReplyError("x"), False),
    ],
)
def test_what_is_retried(error: ModelError, retryable: bool) -> None:
    assert is_retryable(error) is retryable


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    rng = random.Random(3)
    for retry, step in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (10, 5.0)]:
        waits = [policy.backoff(retry, rng) for _ in range(50)]
        assert all(step / 2 <= wait <= step for wait in waits)
        assert len(set(waits)) > 1


def test_retrier_returns_after_transient_failures_and_sleeps_between() -> None:
    sleeps: list[float] = []
    retrier = Retrier(RetryPolicy(max_attempts=3), sleep=sleeps.append, rng=random.Random(0))
    call = failing(ModelTimeoutError("t"), ModelRateLimitError("r", status=429, retry_after=4.0))
    assert retrier.run(call) == "ok"
    assert len(sleeps) == 2
    assert sleeps[1] == 4.0


def test_retrier_gives_up_after_max_attempts_with_the_last_error() -> None:
    sleeps: list[float] = []
    retrier = Retrier(RetryPolicy(max_attempts=2), sleep=sleeps.append)
    last = ModelHTTPError("second", status=502)
    with pytest.raises(ModelHTTPError) as caught:
        retrier.run(failing(ModelHTTPError("first", status=500), last))
    assert caught.value is last
    assert caught.value.attempts == 2
    assert len(sleeps) == 1


def test_non_retryable_error_is_raised_at_once_without_a_note() -> None:
    sleeps: list[float] = []
    error = ModelHTTPError("bad request", status=400)
    with pytest.raises(ModelHTTPError) as caught:
        Retrier(sleep=sleeps.append).run(failing(error))
    assert caught.value.attempts == 1
    assert not getattr(caught.value, "__notes__", [])
    assert sleeps == []


def test_single_attempt_policy_never_sleeps() -> None:
    sleeps: list[float] = []
    with pytest.raises(ModelTimeoutError):
        Retrier(RetryPolicy(max_attempts=1), sleep=sleeps.append).run(
            failing(ModelTimeoutError("t"))
        )
    assert sleeps == []


@pytest.mark.parametrize(
    "kwargs", [{"max_attempts": 0}, {"base_delay": -1.0}, {"max_retry_after": -0.5}]
)
def test_policy_rejects_nonsense(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must"):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]
