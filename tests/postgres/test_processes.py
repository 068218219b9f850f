"""Real processes on one database: cursors, session appends and leases under SIGKILL.

The workers are children forked side by side from one parent that imported them
(``tests/forkserver.py``), each with its own connections, killed as abruptly as any process.
"""

from __future__ import annotations

import itertools
import signal
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from reverie.storage.postgres.audit import PgAudit
from reverie.storage.postgres.database import Database, Tenant
from reverie.storage.postgres.files import PgMemoryFiles
from reverie.storage.postgres.history import PgHistoryLog
from reverie.storage.postgres.index import PgIndex
from reverie.storage.postgres.leases import PgLeases
from reverie.storage.postgres.sessions import PgSessionStore
from tests.forkserver import Background, Server

pytestmark = pytest.mark.slow

Spawn = Callable[..., Background]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    forks = Server("tests.postgres.pg_worker")
    yield forks
    forks.close()


@pytest.fixture
def spawn(server: Server, pg_url: str, tenant: Tenant, tmp_path: Path) -> Spawn:
    """Start a worker on the test's workspace: ``spawn("append", "100", "w0")``."""
    count = itertools.count()

    def start(*args: str) -> Background:
        return server.start(tmp_path / f"worker-{next(count)}.out", pg_url, tenant.name, *args)

    return start


def _acked(process: Background) -> list[tuple[int, str]]:
    pairs = [line.split("\t") for line in process.finish().splitlines() if "\t" in line]
    return [(int(number), text) for number, text in pairs]


def test_four_processes_appending_get_distinct_gap_free_cursors(
    spawn: Spawn, tenant: Tenant
) -> None:
    workers = [spawn("append", "100", f"w{i}") for i in range(4)]
    follower = PgHistoryLog(tenant)
    seen: list[int] = []
    while len(seen) < 400 and any(len(w.lines()) < 100 for w in workers):
        seen += [e.cursor for e in follower.read_since(seen[-1] if seen else 0)]
    acked = [pair for w in workers for pair in _acked(w)]
    seen += [e.cursor for e in follower.read_since(seen[-1] if seen else 0)]
    assert sorted(c for c, _ in acked) == list(range(1, 401))
    assert seen == list(range(1, 401))  # the follower missed none and saw them in order
    stored = {e.cursor: e.content for e in follower.read_since(0)}
    assert all(stored[c] == text for c, text in acked)


def test_a_killed_appender_loses_no_acknowledged_entry_and_leaves_no_gap(
    spawn: Spawn, tenant: Tenant
) -> None:
    victim = spawn("append", "100000", "victim")
    steady = spawn("append", "60", "steady")
    for _ in range(10):  # let the victim acknowledge some entries first
        victim.readline()
    victim.kill()
    acked = [number for number, _ in _acked(victim)]
    assert victim.returncode == -signal.SIGKILL
    acked_steady = _acked(steady)
    log = PgHistoryLog(tenant)
    stored = [e.cursor for e in log.read_since(0)]
    assert stored == list(range(1, len(stored) + 1))
    assert set(acked) | {c for c, _ in acked_steady} <= set(stored)
    assert log.append("after the kill").cursor == len(stored) + 1


def test_two_processes_appending_to_one_session_keep_every_message(
    spawn: Spawn, tenant: Tenant
) -> None:
    workers = [spawn("session", "60", f"s{i}", "tg:shared") for i in range(3)]
    acked = [pair for w in workers for pair in _acked(w)]
    session = PgSessionStore(tenant).load("tg:shared")
    assert sorted(i for i, _ in acked) == list(range(180))
    assert [m.content for m in session.messages] == [text for _, text in sorted(acked)]


def test_a_lease_is_granted_once_and_expires_after_its_holder_is_killed(
    spawn: Spawn, tenant: Tenant
) -> None:
    holder = spawn("lease", "dream", "2", "60")
    assert holder.readline().strip() == "got 1"
    # The rival asks from this process: another holder on its own connection, as a second
    # server would (the holder is the process that gets killed).
    rival, ttl = PgLeases(tenant, holder="rival"), timedelta(seconds=2)
    assert rival.acquire("dream", ttl) is None
    time.sleep(2.5)
    assert rival.acquire("dream", ttl) is None, "the heartbeat keeps the lease past its ttl"
    holder.kill()
    holder.finish()
    deadline = time.monotonic() + 10
    while (lease := rival.acquire("dream", ttl)) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lease is not None, "the killed holder's lease never expired"
    assert lease.token == 2  # the next grant has a larger fencing token
    rival.release(lease)


def test_two_dreaming_processes_consume_each_entry_once_when_one_is_killed(
    spawn: Spawn, tenant: Tenant
) -> None:
    log = PgHistoryLog(tenant)
    for i in range(60):
        log.append(f"fact {i}")
    victim = spawn("dream", "1")
    survivor = spawn("dream", "1")
    victim.readline()  # the victim has published at least once (or the race went on)
    victim.kill()
    victim.finish()
    survivor.finish()
    subjects = [c.subject for c in PgAudit(tenant).log(100)]
    ranges = sorted(tuple(int(n) for n in s.removeprefix("dream: ").split("-")) for s in subjects)
    covered = [c for first, last in ranges for c in range(first, last + 1)]
    assert covered == list(range(1, 61))  # every entry dreamt once, none twice
    memory = PgMemoryFiles(tenant).read("MEMORY").splitlines()
    assert sorted(memory) == sorted(f"- fact {i}" for i in range(60))
    assert log.dream_cursor() == 60


def test_a_fact_written_through_one_process_is_found_by_another_at_once(
    spawn: Spawn, pg_url: str, tenant: Tenant
) -> None:
    writer = spawn("session", "1", "my locker code is 4817", "tg:alice")
    assert _acked(writer) == [(0, "my locker code is 4817-0")]
    other_server = Database(pg_url)
    try:
        index = PgIndex(other_server.tenant(tenant.name))
        hits = index.search("locker", session_key="tg:alice")
        assert [(h.session_key, h.message_index) for h in hits] == [("tg:alice", 0)]
    finally:
        other_server.close()
