"""Real processes on one database: cursors, session appends and leases under SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from reverie.postgres.audit import PgAudit
from reverie.postgres.database import Database, Tenant
from reverie.postgres.files import PgMemoryFiles
from reverie.postgres.history import PgHistoryLog
from reverie.postgres.leases import PgLeases
from reverie.postgres.sessions import PgSessionStore
from reverie.postgres_index import PgIndex

pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("pg_worker.py")
ROOT = Path(__file__).parents[2]


def _spawn(url: str, tenant: Tenant, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, tenant.name, *args],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def _acked(process: subprocess.Popen[str]) -> list[tuple[int, str]]:
    out, _ = process.communicate(timeout=120)
    pairs = [line.split("\t") for line in out.splitlines() if "\t" in line]
    return [(int(number), text) for number, text in pairs]


def test_four_processes_appending_get_distinct_gap_free_cursors(
    pg_url: str, tenant: Tenant
) -> None:
    workers = [_spawn(pg_url, tenant, "append", "100", f"w{i}") for i in range(4)]
    follower = PgHistoryLog(tenant)
    seen: list[int] = []
    while any(w.poll() is None for w in workers):
        seen += [e.cursor for e in follower.read_since(seen[-1] if seen else 0)]
    acked = [pair for w in workers for pair in _acked(w)]
    seen += [e.cursor for e in follower.read_since(seen[-1] if seen else 0)]
    assert sorted(c for c, _ in acked) == list(range(1, 401))
    assert seen == list(range(1, 401))  # the follower missed none and saw them in order
    stored = {e.cursor: e.content for e in follower.read_since(0)}
    assert all(stored[c] == text for c, text in acked)


def test_a_killed_appender_loses_no_acknowledged_entry_and_leaves_no_gap(
    pg_url: str, tenant: Tenant
) -> None:
    victim = _spawn(pg_url, tenant, "append", "100000", "victim")
    steady = _spawn(pg_url, tenant, "append", "60", "steady")
    assert victim.stdout is not None
    for _ in range(10):  # let the victim acknowledge some entries first
        victim.stdout.readline()
    victim.send_signal(signal.SIGKILL)
    rest, _ = victim.communicate()
    acked = [int(line.split("\t")[0]) for line in rest.splitlines() if "\t" in line]
    acked_steady = _acked(steady)
    log = PgHistoryLog(tenant)
    stored = [e.cursor for e in log.read_since(0)]
    assert stored == list(range(1, len(stored) + 1))
    assert set(acked) | {c for c, _ in acked_steady} <= set(stored)
    assert log.append("after the kill").cursor == len(stored) + 1


def test_two_processes_appending_to_one_session_keep_every_message(
    pg_url: str, tenant: Tenant
) -> None:
    workers = [_spawn(pg_url, tenant, "session", "60", f"s{i}", "tg:shared") for i in range(3)]
    acked = [pair for w in workers for pair in _acked(w)]
    session = PgSessionStore(tenant).load("tg:shared")
    assert sorted(i for i, _ in acked) == list(range(180))
    assert [m.content for m in session.messages] == [text for _, text in sorted(acked)]


def test_a_lease_is_granted_once_and_expires_after_its_holder_is_killed(
    pg_url: str, tenant: Tenant
) -> None:
    holder = _spawn(pg_url, tenant, "lease", "dream", "2", "60")
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "got 1"
    # The rival asks from this process: another holder on its own connection, as a second
    # server would (the holder is the process that gets killed).
    rival, ttl = PgLeases(tenant, holder="rival"), timedelta(seconds=2)
    assert rival.acquire("dream", ttl) is None
    time.sleep(2.5)
    assert rival.acquire("dream", ttl) is None, "the heartbeat keeps the lease past its ttl"
    holder.send_signal(signal.SIGKILL)
    holder.communicate()
    deadline = time.monotonic() + 10
    while (lease := rival.acquire("dream", ttl)) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lease is not None, "the killed holder's lease never expired"
    assert lease.token == 2  # the next grant has a larger fencing token
    rival.release(lease)


def test_two_dreaming_processes_consume_each_entry_once_when_one_is_killed(
    pg_url: str, tenant: Tenant
) -> None:
    log = PgHistoryLog(tenant)
    for i in range(60):
        log.append(f"fact {i}")
    victim = _spawn(pg_url, tenant, "dream", "1")
    survivor = _spawn(pg_url, tenant, "dream", "1")
    assert victim.stdout is not None
    victim.stdout.readline()  # the victim has published at least once (or the race went on)
    victim.send_signal(signal.SIGKILL)
    victim.communicate()
    survivor.communicate(timeout=120)
    subjects = [c.subject for c in PgAudit(tenant).log(100)]
    ranges = sorted(tuple(int(n) for n in s.removeprefix("dream: ").split("-")) for s in subjects)
    covered = [c for first, last in ranges for c in range(first, last + 1)]
    assert covered == list(range(1, 61))  # every entry dreamt once, none twice
    memory = PgMemoryFiles(tenant).read("MEMORY").splitlines()
    assert sorted(memory) == sorted(f"- fact {i}" for i in range(60))
    assert log.dream_cursor() == 60


def test_a_fact_written_through_one_process_is_found_by_another_at_once(
    pg_url: str, tenant: Tenant
) -> None:
    writer = _spawn(pg_url, tenant, "session", "1", "my locker code is 4817", "tg:alice")
    assert _acked(writer) == [(0, "my locker code is 4817-0")]
    other_server = Database(pg_url)
    try:
        index = PgIndex(other_server.tenant(tenant.name))
        hits = index.search("locker", session_key="tg:alice")
        assert [(h.session_key, h.message_index) for h in hits] == [("tg:alice", 0)]
    finally:
        other_server.close()
