"""When dream runs: interval, cron, pending count and age, idle, and back-off after failures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reverie import ModelTimeoutError, ScriptedProvider
from reverie.config.sections import DreamConfig
from reverie.core.token_estimate import EstimatingCounter
from reverie.errors import ConfigError
from reverie.memory.dream.result import DreamResult
from reverie.memory.dream.runner import Dreamer
from reverie.memory.dream.schedule import Pending, Schedule
from reverie.memory.dream.state import DreamState, DreamStateText
from reverie.storage.folder.dream_files import FolderDreamState
from reverie.storage.folder.workspace import Workspace
from tests.conftest import StepClock

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
FRESH = DreamState()


def _ago(**delta: float) -> datetime:
    return NOW - timedelta(**delta)


def _interval(minutes: float = 120.0, pending_trigger: int = 20) -> Schedule:
    return Schedule(DreamConfig(interval_minutes=minutes, pending_trigger=pending_trigger))


def test_an_idle_workspace_never_runs_whatever_the_schedule_says() -> None:
    state = DreamState(last_attempt=_ago(days=30))
    decision = _interval().decide(NOW, pending=Pending(count=0), state=state)
    assert not decision.run
    assert decision.reason.startswith("idle")
    cron = Schedule(DreamConfig(cron="* * * * *"), tz=UTC)
    assert not cron.decide(NOW, pending=Pending(count=0), state=state).run


def test_manual_always_runs() -> None:
    failing = DreamState(consecutive_failures=9, last_failure=NOW)
    decision = _interval().decide(NOW, pending=Pending(count=0), state=failing, manual=True)
    assert (decision.run, decision.trigger) == (True, "manual")


def test_enough_pending_entries_run_at_once() -> None:
    state = DreamState(last_attempt=_ago(minutes=1))
    decision = _interval().decide(
        NOW, pending=Pending(count=20, oldest=_ago(minutes=2)), state=state
    )
    assert (decision.run, decision.trigger) == (True, "pending-count")
    fewer = _interval().decide(NOW, pending=Pending(count=19, oldest=_ago(minutes=2)), state=state)
    assert not fewer.run


def test_an_old_pending_entry_runs_even_when_few_are_pending() -> None:
    state = DreamState(last_attempt=_ago(minutes=10))
    old = Pending(count=1, oldest=_ago(minutes=121))
    decision = _interval().decide(NOW, pending=old, state=state)
    assert (decision.run, decision.trigger) == (True, "pending-age")
    young = Pending(count=1, oldest=_ago(minutes=119))
    assert not _interval().decide(NOW, pending=young, state=state).run


def test_the_interval_runs_when_the_last_attempt_is_old_enough() -> None:
    pending = Pending(count=1, oldest=_ago(minutes=5))
    due = _interval().decide(NOW, pending=pending, state=DreamState(last_attempt=_ago(hours=2)))
    assert (due.run, due.trigger) == (True, "interval")
    early = DreamState(last_attempt=_ago(minutes=119))
    assert not _interval().decide(NOW, pending=pending, state=early).run


def test_a_disabled_interval_leaves_only_the_pending_count() -> None:
    schedule = _interval(minutes=0)
    old = Pending(count=3, oldest=_ago(days=2))
    assert not schedule.decide(NOW, pending=old, state=DreamState(last_attempt=_ago(days=2))).run
    assert schedule.decide(NOW, pending=Pending(count=20), state=FRESH).run


def test_cron_runs_when_a_fire_time_passed_since_the_last_attempt() -> None:
    nightly = Schedule(DreamConfig(cron="0 3 * * *"), tz=UTC)
    pending = Pending(count=2, oldest=_ago(days=3))
    ran_last_night = DreamState(last_attempt=datetime(2026, 11, 30, 3, 0, 5, tzinfo=UTC))
    decision = nightly.decide(NOW, pending=pending, state=ran_last_night)
    assert not decision.run
    assert "2026-12-01T03:00:00+00:00" in decision.reason
    missed = DreamState(last_attempt=datetime(2026, 11, 29, 3, 0, 5, tzinfo=UTC))
    due = nightly.decide(NOW, pending=pending, state=missed)
    assert (due.run, due.trigger) == (True, "cron")


def test_cron_replaces_the_interval_rules_and_starts_from_the_oldest_entry() -> None:
    nightly = Schedule(DreamConfig(cron="0 3 * * *", interval_minutes=1), tz=UTC)
    young = Pending(count=1, oldest=datetime(2026, 11, 30, 4, 0, tzinfo=UTC))
    assert not nightly.decide(NOW, pending=young, state=FRESH).run
    older = Pending(count=1, oldest=datetime(2026, 11, 30, 2, 0, tzinfo=UTC))
    assert nightly.decide(NOW, pending=older, state=FRESH).trigger == "cron"
    assert nightly.decide(NOW, pending=Pending(count=20), state=FRESH).trigger == "pending-count"


def test_an_invalid_cron_expression_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="cron"):
        Schedule(DreamConfig(cron="every night"))


def test_back_off_starts_after_three_failures_and_doubles() -> None:
    schedule = _interval()
    pending = Pending(count=50)
    for failures, wait in ((3, 30), (4, 60), (5, 120)):
        state = DreamState(consecutive_failures=failures, last_failure=NOW)
        held = schedule.decide(NOW + timedelta(minutes=wait - 1), pending=pending, state=state)
        assert not held.run
        assert held.not_before == NOW + timedelta(minutes=wait)
        assert schedule.decide(NOW + timedelta(minutes=wait), pending=pending, state=state).run
    two = DreamState(consecutive_failures=2, last_failure=NOW)
    assert schedule.decide(NOW, pending=pending, state=two).run


def test_back_off_is_capped() -> None:
    state = DreamState(consecutive_failures=500, last_failure=NOW)
    assert _interval().backoff_until(state) == NOW + timedelta(days=1)


def _failing_dreamer(workspace: Workspace, provider: ScriptedProvider) -> Dreamer:
    return Dreamer(
        workspace, provider, config=DreamConfig(pending_trigger=1), counter=EstimatingCounter()
    )


def test_three_failed_runs_back_off_then_a_success_resets(
    workspace: Workspace, clock: StepClock
) -> None:
    workspace.history.append("a fact")
    provider = ScriptedProvider()
    dreamer = _failing_dreamer(workspace, provider)
    for number in range(1, 4):
        assert dreamer.should_run().run
        provider.fail(ModelTimeoutError("down"))
        assert dreamer.run(trigger="pending-count").outcome == "failed"
        assert dreamer.state().consecutive_failures == number
    held = dreamer.should_run()
    assert not held.run
    assert held.not_before is not None
    assert "3 failed runs" in held.reason
    clock.advance(timedelta(minutes=31))
    assert dreamer.should_run().run
    provider.reply("done")
    assert dreamer.run().outcome == "completed"
    state = dreamer.state()
    assert (state.consecutive_failures, state.last_outcome) == (0, "completed")
    assert not dreamer.should_run().run  # idle now


def test_back_off_state_survives_a_restart(workspace: Workspace, clock: StepClock) -> None:
    workspace.history.append("a fact")
    provider = ScriptedProvider(*[ModelTimeoutError("down")] * 3)
    dreamer = _failing_dreamer(workspace, provider)
    for _ in range(3):
        dreamer.run()
    again = Dreamer(workspace, ScriptedProvider(), config=DreamConfig(pending_trigger=1))
    assert not again.should_run().run
    assert again.state() == dreamer.state()


def test_busy_and_no_pending_and_dry_runs_do_not_count_as_failures(workspace: Workspace) -> None:
    dreamer = _failing_dreamer(workspace, ScriptedProvider())
    assert dreamer.run().outcome == "no_pending"
    workspace.history.append("fact")
    dreamer.provider = ScriptedProvider(ModelTimeoutError("down"))
    assert dreamer.run(dry_run=True).outcome == "failed"
    assert dreamer.state() == DreamState()


def test_state_round_trips_and_a_damaged_file_reads_as_fresh(workspace: Workspace) -> None:
    path = workspace.root / ".reverie" / "dream-state.json"
    store = DreamStateText(FolderDreamState(path))
    state = FRESH.after(DreamResult(outcome="step_limit", trigger="cron"), NOW)
    store.write(state)
    assert store.read() == state
    assert state.last_failure == NOW
    for damaged in (
        "{not json",
        '{"format": "other"}',
        '{"format": "reverie-dream-state", "version": 1, "consecutive_failures": "3"}',
    ):
        path.write_text(damaged)
        assert store.read() == DreamState()


def test_pending_age_uses_the_nanobot_timestamp_when_an_entry_has_no_precise_time(
    workspace: Workspace,
) -> None:
    line = '{"cursor": 1, "timestamp": "2026-11-29 08:00", "content": "from nanobot"}\n'
    (workspace.root / "memory" / "history.jsonl").write_text(line)
    pending = Dreamer(workspace, ScriptedProvider()).pending()
    assert pending.count == 1
    assert pending.oldest == datetime(2026, 11, 29, 8, 0).astimezone()
