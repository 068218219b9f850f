"""Background work over many principals: fair, bounded, and one failure backs off alone."""

from __future__ import annotations

import itertools
import threading
from datetime import timedelta
from pathlib import Path

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import EnginePool, FolderHome, Openers
from reverie.engine.owners.maintenance import CheckReport, Maintenance
from tests.conftest import StepClock


class Ticks:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def pool(tmp_path: Path, clock: StepClock) -> EnginePool:
    home = FolderHome(
        tmp_path / "home", openers=Openers(config=Config(), clock=clock, environ={}, dense="off")
    )
    return EnginePool(home, capacity=2)


def talk(engines: EnginePool, principal: str, session: str) -> None:
    with engines.lease(principal, create=True) as engine:
        engine.record(
            session,
            [
                {"role": "user", "content": f"{principal}: my harbour slot is number seven"},
                {"role": "assistant", "content": "noted"},
            ],
        )


def test_idle_sessions_of_each_principal_are_compacted_and_busy_ones_spared(
    tmp_path: Path, clock: StepClock
) -> None:
    engines = pool(tmp_path, clock)
    ticks = Ticks()
    for principal in ("alice", "bob", "carol"):
        talk(engines, principal, "api:default")
    work = Maintenance(
        engines,
        interval=30,
        busy=lambda principal: ["api:default"] if principal == "bob" else [],
        clock=ticks,
    )
    for principal in ("alice", "bob", "carol"):
        work.touch(principal)
    assert work.run_due() == []  # nothing is due before one interval has passed
    clock.advance(timedelta(minutes=16))
    ticks.now += 30
    done = {report.principal: report for report in work.run_due()}
    assert sorted(done) == ["alice", "bob", "carol"]
    assert any("idle compaction of api:default" in line for line in done["alice"].lines)
    assert done["bob"].lines == ()
    with engines.lease("bob") as bob:
        assert bob.session("api:default").compacted_upto == 0
    with engines.lease("carol") as carol:
        assert carol.session("api:default").compacted_upto == 2
    engines.close()


def test_a_failing_principal_backs_off_while_the_others_keep_their_turn(
    tmp_path: Path, clock: StepClock
) -> None:
    engines = pool(tmp_path, clock)
    ticks = Ticks()
    talk(engines, "alice", "api:default")
    (tmp_path / "home" / "gone").mkdir()  # a folder with no workspace: its check fails
    work = Maintenance(engines, interval=10, max_backoff=80, clock=ticks)
    work.touch("alice")
    work.touch("gone")
    failed_at: list[float] = []
    for _ in range(8):
        ticks.now += 10
        for report in work.run_due():
            if report.principal == "gone":
                assert report.error is not None
                failed_at.append(ticks.now)
    # alice is checked every interval; "gone" after 20, 40, 80, 80 ... seconds
    assert work.stats.checks - work.stats.failures == 8
    assert [b - a for a, b in itertools.pairwise(failed_at)] == [20, 40]
    engines.close()


def test_a_principal_quiet_past_the_watch_is_dropped(tmp_path: Path, clock: StepClock) -> None:
    engines = pool(tmp_path, clock)
    ticks = Ticks()
    talk(engines, "alice", "api:default")
    work = Maintenance(engines, interval=10, watch_seconds=25, clock=ticks)
    work.touch("alice")
    for _ in range(3):
        ticks.now += 10
        work.run_due()
    assert work.watched() == []
    engines.close()


def test_worker_threads_run_due_checks_and_stop_cleanly(tmp_path: Path, clock: StepClock) -> None:
    engines = pool(tmp_path, clock)
    for principal in ("alice", "bob"):
        talk(engines, principal, "api:default")
    seen: list[CheckReport] = []
    both = threading.Event()

    def report(found: CheckReport) -> None:
        seen.append(found)
        if {r.principal for r in seen} == {"alice", "bob"}:
            both.set()

    with Maintenance(engines, workers=2, interval=0.01, report=report) as work:
        work.touch("alice")
        work.touch("bob")
        assert both.wait(30)
    assert all(r.error is None for r in seen)
    engines.close()


class BuggyHome(FolderHome):
    """A real folder home whose principal ``buggy`` cannot be opened (a bug, not an error)."""

    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        if principal == "buggy":
            raise RuntimeError("a bug in opening")
        return super().open_engine(principal, create=create)


def test_a_bug_in_one_principals_check_neither_ends_the_worker_nor_the_others_turn(
    tmp_path: Path, clock: StepClock
) -> None:
    home = BuggyHome(
        tmp_path / "home", openers=Openers(config=Config(), clock=clock, environ={}, dense="off")
    )
    engines = EnginePool(home, capacity=2)
    talk(engines, "alice", "api:default")
    seen: list[CheckReport] = []
    twice = threading.Event()

    def report(found: CheckReport) -> None:
        seen.append(found)
        if sum(r.principal == "alice" for r in seen) >= 2:
            twice.set()

    with Maintenance(engines, workers=1, interval=0.01, report=report) as work:
        work.touch("buggy")
        work.touch("alice")
        assert twice.wait(30)  # the one worker lived on past the bug
    bugs = [r for r in seen if r.principal == "buggy"]
    assert bugs
    assert all(r.error is not None and "a bug in opening" in r.error for r in bugs)
    assert work.stats.failures >= 1
    engines.close()
