"""Ingest across real processes (issue #14): two at once, and a SIGKILL at any instant.

Each case ends where one clean ingest ends: the same messages, history entries and durable
facts, nothing pending, no ingest marker left. The workers fork from one imported parent
(``ingest_worker.py``), so a kill point costs one partial and one full ingest, not a start-up;
the ``KILL_POINTS`` instants are spread evenly over the measured length of a clean run (a
deterministic schedule), so they land in the import, the replay and compaction, and the dream
runs and their commits. The kill test runs on a workspace folder and on a PostgreSQL
workspace (where a killed ingest's leases expire ``KILLED_LEASE_SECONDS`` later, so fewer
points; the two ingests at once keep the default lease time, which a loaded machine cannot
outrun).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from reverie.file_backend import FileBackend
from reverie.ports import IngestStores
from tests.ingest.ingest_worker import KILLED_LEASE_SECONDS, database_name
from tests.ingest.targets import KINDS

WORKER = Path(__file__).with_name("ingest_worker.py")
ROOT = Path(__file__).parents[2]
KILL_POINTS = 8
CITIES = ("Oslo", "Lyon", "Porto", "Gdansk", "Utrecht", "Bergen", "Turin", "Ghent")
TOOLS = ("Postgres", "DuckDB", "Redis", "SQLite", "Kafka", "Flink", "Spark", "Arrow")


def _conversation(number: int, turns: int) -> dict[str, object]:
    messages: list[dict[str, str]] = []
    for turn in range(turns):
        stamp = f"2026-03-{1 + number:02d}T{9 + turn % 8:02d}:{(7 * turn) % 60:02d}:00+00:00"
        city, tool = CITIES[(number + turn) % 8], TOOLS[(number * 3 + turn) % 8]
        user = (
            f"I live near {city} and I prefer {tool} for project {number}-{turn}. "
            f"We decided to use {tool} version {turn + 10} for the harbour job {number}. "
            + "Some background chatter about the weather and the trains. "
            * 3
        )
        answer = f"Noted: {tool} near {city}, step {turn}. " * 4
        messages.append({"role": "user", "content": user, "timestamp": stamp})
        messages.append({"role": "assistant", "content": answer, "timestamp": stamp})
    return {"id": f"conv-{number}", "title": f"Conversation {number}", "messages": messages}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "chats.json"
    path.write_text(json.dumps([_conversation(n, 6) for n in range(2)]), encoding="utf-8")
    return path


class Worker:
    """One forking worker process (see ``ingest_worker.py``)."""

    def __init__(self, source: Path, store: str | None = None, lease: float | None = None) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        options = [store, str(lease)] if store and lease else [store] if store else []
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), str(source), *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        assert self._line() == "ready"

    def _line(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def start(self, workspace: Path) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{workspace}\n")
        self.process.stdin.flush()
        return int(self._line())

    def wait(self) -> tuple[int, float]:
        _, status, seconds = self._line().split()
        return int(status), float(seconds)

    def run(self, workspace: Path) -> float:
        self.start(workspace)
        status, seconds = self.wait()
        assert status == 0, f"ingest into {workspace} failed (status {status})"
        return seconds

    def close(self) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an ingest left: comparable between a clean run and a killed-then-rerun one."""

    messages: int
    pending: int
    entries: tuple[tuple[str | None, str], ...]
    facts: tuple[str, ...]
    dreamt_all: bool
    marker: bool


def _outcome(workspace: Path, store: str | None = None) -> Outcome:
    stores: IngestStores
    if store is None:
        stores = FileBackend.open(workspace)
    else:
        from reverie.postgres_backend import PgBackend  # the postgres extra

        stores = PgBackend.open(store, database_name(workspace))
    try:
        return _described(stores)
    finally:
        stores.close()


def _described(stores: IngestStores) -> Outcome:
    sessions = [s for s in stores.sessions.list() if not s.key.startswith("dream:")]
    facts = [
        line
        for name in ("SOUL", "USER", "MEMORY")
        for line in stores.files.read(name).splitlines()
        if line.startswith("- ")
    ]
    return Outcome(
        messages=sum(s.message_count for s in sessions),
        pending=sum(s.message_count - s.compacted_upto for s in sessions),
        entries=tuple((e.session_key, e.content) for e in stores.history.entries()),
        facts=tuple(sorted(facts)),
        dreamt_all=stores.dream_cursor.read() == stores.history.last_cursor(),
        marker=stores.ingest_records.running() is not None,
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_two_ingests_of_one_file_at_once_equal_one_clean_ingest(
    tmp_path: Path, source: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    store = request.getfixturevalue("pg_url") if kind == "postgres" else None
    tmp_path /= secrets.token_hex(4)  # a new name for each run's database workspaces
    first, second = Worker(source, store), Worker(source, store)
    try:
        first.run(tmp_path / "clean")
        clean = _outcome(tmp_path / "clean", store)
        first.start(tmp_path / "both")
        second.start(tmp_path / "both")
        assert first.wait()[0] == 0
        assert second.wait()[0] == 0
    finally:
        first.close()
        second.close()
    assert clean.pending == 0
    assert clean.dreamt_all
    assert not clean.marker
    assert len(clean.entries) >= 6, clean
    assert len(clean.facts) >= 20, clean
    assert _outcome(tmp_path / "both", store) == clean


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sigkill_at_any_point_then_rerun_equals_one_clean_ingest(
    tmp_path: Path, source: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    store = request.getfixturevalue("pg_url") if kind == "postgres" else None
    points = KILL_POINTS if store is None else KILL_POINTS // 2
    tmp_path /= secrets.token_hex(4)  # a new name for each run's database workspaces
    worker = Worker(source, store, KILLED_LEASE_SECONDS)
    try:
        # The first run pays for cold caches; the shorter of two sets the schedule.
        length = min(worker.run(tmp_path / "warm-up"), worker.run(tmp_path / "clean"))
        clean = _outcome(tmp_path / "clean", store)
        interrupted = 0
        # Kill points spread over the run; under a changing load a run can end before its
        # kill, so the schedule shrinks when that happens and more points are tried, until
        # most kills have landed inside an ingest (at most three rounds of points).
        for attempt in range(3 * points):
            if attempt >= points and interrupted >= points // 2:
                break
            point = attempt % points
            workspace = tmp_path / f"killed-{attempt}"
            pid = worker.start(workspace)
            time.sleep(0.9 * length * (point + 0.5) / points)
            with contextlib.suppress(ProcessLookupError):  # it may have finished already
                os.kill(pid, signal.SIGKILL)
            status, _ = worker.wait()
            interrupted += status != 0
            if status == 0:
                length *= 0.8
            worker.run(workspace)
            assert _outcome(workspace, store) == clean, f"kill point {point} of {points}"
    finally:
        worker.close()
    assert interrupted >= points // 2, interrupted  # most kills landed inside the ingest
