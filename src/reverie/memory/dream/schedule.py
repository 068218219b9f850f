"""When dream should run: triggers and back-off as pure logic over an injected time.

``Schedule.decide`` answers one question — should a dream run start at ``now``? — from the
settings, what is pending and the persisted ``DreamState``. It does no I/O and reads no clock.
Rules, first match wins:

1. ``manual``: a person asked; always runs (back-off is for automatic triggers).
2. idle: nothing pending after the dream cursor; never runs, so idle workspaces cost nothing.
3. back-off: after ``failures_before_backoff`` (3) failed runs in a row, wait
   ``backoff_base * 2 ** (failures - 3)`` (capped at ``backoff_max``) after the last failure.
4. ``pending-count``: at least ``pending_trigger`` entries are pending.
5. With a cron expression: ``cron`` when a fire time of the expression lies after the last
   attempt (or, before any attempt, after the oldest pending entry) and at or before ``now``.
   The expression is read in ``tz`` (default: the machine's local time).
6. Without one, when ``interval_minutes`` > 0: ``pending-age`` when the oldest pending entry
   is older than the interval, so short sessions reach long-term memory; ``interval`` when the
   last attempt is at least the interval ago.

A cron expression replaces the interval rules: a nightly cron means nightly, not "nightly and
every two hours". Invalid cron text is a ``ConfigError`` when the schedule is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from reverie.config.sections import DreamConfig
from reverie.core.clock import require_aware
from reverie.errors import ConfigError
from reverie.memory.dream.state import DreamState


@dataclass(frozen=True, slots=True, kw_only=True)
class Pending:
    """What waits after the dream cursor: how many entries (possibly capped) and the oldest's time.

    ``count`` may be capped by the caller at ``pending_trigger``; the rules only compare it.
    ``oldest`` is None when nothing is pending or the entry's time is unknown.
    """

    count: int
    oldest: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """Whether to run now, the trigger to name in the commit subject, and why (or why not)."""

    run: bool
    trigger: str | None
    reason: str
    not_before: datetime | None = None
    """While backing off: the earliest time an automatic run may start."""


class Schedule:
    """The trigger and back-off rules of one workspace (see the module docstring)."""

    def __init__(
        self,
        config: DreamConfig,
        *,
        backoff_base: timedelta = timedelta(minutes=30),
        backoff_max: timedelta = timedelta(days=1),
        failures_before_backoff: int = 3,
        tz: tzinfo | None = None,
    ) -> None:
        """Build the schedule.

        Raises:
            ConfigError: ``config.cron`` is not a valid cron expression.
        """
        if config.cron is not None:
            from croniter import croniter  # noqa: PLC0415 (~0.1 s to import; only cron needs it)

            if not croniter.is_valid(config.cron):
                message = f"dream.cron is not a cron expression: {config.cron!r}"
                raise ConfigError(message, key="cron")
        self.config = config
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.failures_before_backoff = failures_before_backoff
        self.tz = tz

    def decide(
        self, now: datetime, *, pending: Pending, state: DreamState, manual: bool = False
    ) -> Decision:
        """Decide whether a dream run should start at ``now``."""
        require_aware(now)
        if manual:
            return Decision(run=True, trigger="manual", reason="asked for")
        if pending.count <= 0:
            return Decision(run=False, trigger=None, reason="idle: nothing pending")
        until = self.backoff_until(state)
        if until is not None and now < until:
            return Decision(
                run=False,
                trigger=None,
                reason=f"backing off after {state.consecutive_failures} failed runs in a row",
                not_before=until,
            )
        if pending.count >= self.config.pending_trigger:
            return Decision(
                run=True, trigger="pending-count", reason=f"{pending.count} entries pending"
            )
        if self.config.cron is not None:
            return self._cron(now, pending, state)
        return self._interval(now, pending, state)

    def backoff_until(self, state: DreamState) -> datetime | None:
        """The end of the current back-off, or None when not backing off."""
        extra = state.consecutive_failures - self.failures_before_backoff
        if extra < 0 or state.last_failure is None:
            return None
        delay = self.backoff_base * (1 << min(extra, 20))
        return state.last_failure + min(delay, self.backoff_max)

    def _cron(self, now: datetime, pending: Pending, state: DreamState) -> Decision:
        assert self.config.cron is not None
        reference = state.last_attempt or pending.oldest
        if reference is None:
            return Decision(run=False, trigger=None, reason="cron: no reference time yet")
        start = reference.astimezone(self.tz)
        from croniter import croniter  # noqa: PLC0415

        fire = croniter(self.config.cron, start).get_next(datetime)
        if fire <= now:
            return Decision(run=True, trigger="cron", reason=f"cron fired at {fire.isoformat()}")
        return Decision(run=False, trigger=None, reason=f"cron: next at {fire.isoformat()}")

    def _interval(self, now: datetime, pending: Pending, state: DreamState) -> Decision:
        minutes = self.config.interval_minutes
        if minutes <= 0:
            return Decision(run=False, trigger=None, reason="no schedule (interval disabled)")
        interval = timedelta(minutes=minutes)
        if pending.oldest is not None and now - pending.oldest >= interval:
            return Decision(
                run=True, trigger="pending-age", reason=f"oldest pending entry is over {interval}"
            )
        if state.last_attempt is not None and now - state.last_attempt >= interval:
            return Decision(run=True, trigger="interval", reason=f"last run over {interval} ago")
        return Decision(run=False, trigger=None, reason=f"within the {interval} interval")
