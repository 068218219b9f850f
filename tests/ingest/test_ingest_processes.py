"""Ingest across real processes (issue #14): two at once, and a SIGKILL in every step.

Each case ends where one clean ingest ends: the same messages, history entries and durable
facts, nothing pending, no ingest marker left. The ingests are children forked from two warm
parents (``ingest_worker.py``) that the module shares, on either backend, with the clean run
of each backend, so a kill costs one partial and one full ingest, not a start-up. The kills
are scheduled by the progress the child reports, not by the clock: one in each step of a
clean run (opening the workspace, replaying each conversation with its compaction, each dream
run with its commit, finishing), halfway through it, and the test asserts that the child died
inside that step (before reporting the next), so every phase is hit however loaded the
machine is. On a PostgreSQL workspace, where a killed ingest's leases expire
``KILLED_LEASE_SECONDS`` later and the rerun waits for that, every other step and the last;
the two ingests at once keep the default lease time, which a loaded machine cannot outrun.
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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import IngestStores
from tests.forkserver import end
from tests.ingest.ingest_worker import KILLED_LEASE_SECONDS, database_name, progress_file
from tests.ingest.targets import KINDS

WORKER = Path(__file__).with_name("ingest_worker.py")
ROOT = Path(__file__).parents[2]
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


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ingest-source") / "chats.json"
    path.write_text(json.dumps([_conversation(n, 6) for n in range(2)]), encoding="utf-8")
    return path


class Worker:
    """One forking worker process (see ``ingest_worker.py``)."""

    def __init__(self, source: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), str(source)],
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

    def start(
        self, workspace: Path, store: str | None, lease: float | None = None
    ) -> tuple[int, float]:
        """Fork an ingest into ``workspace`` (on ``store``: its database workspace); return
        the child's pid and the monotonic instant of the fork."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{workspace}\t{lease or ''}\t{store or ''}\n")
        self.process.stdin.flush()
        pid, started = self._line().split()
        return int(pid), float(started)

    def wait(self) -> tuple[int, float]:
        _, status, seconds = self._line().split()
        return int(status), float(seconds)

    def run(self, workspace: Path, store: str | None, lease: float | None = None) -> float:
        self.start(workspace, store, lease)
        status, seconds = self.wait()
        assert status == 0, f"ingest into {workspace} failed (status {status})"
        return seconds

    def close(self) -> None:
        end(self.process)


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
        from reverie.storage.postgres.backend import PgBackend  # the postgres extra

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


@dataclass(frozen=True, slots=True)
class Clean:
    """A clean ingest: what it left, and each step it took as (what it follows, seconds).

    The steps are the child's life cut at the progress it reports: ``start`` (opening the
    workspace) up to the first report, then one step after each report (``replay 1 2`` is
    followed by the replay of the second conversation, ``dream 12 12`` by finishing).
    """

    outcome: Outcome
    steps: tuple[tuple[str, float], ...]


class Pool:
    """The module's two workers (each forks ingests on either backend) and the clean run of
    each backend, made on first use."""

    def __init__(self, source: Path, root: Path) -> None:
        self.source = source
        self.root = root / secrets.token_hex(4)  # new database workspace names for each run
        self.workers: dict[int, Worker] = {}
        self.cleans: dict[str, Clean] = {}

    def worker(self, number: int = 0) -> Worker:
        if number not in self.workers:
            self.workers[number] = Worker(self.source)
        return self.workers[number]

    def clean(self, kind: str, store: str | None) -> Clean:
        if kind not in self.cleans:
            workspace = self.root / kind / "clean"
            _, started = self.worker().start(workspace, store)
            status, seconds = self.worker().wait()
            assert status == 0, f"the clean ingest on {kind} failed"
            reports = [line.split(" ", 1) for line in _reports(workspace)]
            marks = [("start", started)] + [(text, float(at)) for at, text in reports]
            ends = [float(at) for at, _ in reports] + [started + seconds]
            steps = tuple((text, end - at) for (text, at), end in zip(marks, ends, strict=True))
            self.cleans[kind] = Clean(_outcome(workspace, store), steps)
        return self.cleans[kind]

    def close(self) -> None:
        for worker in self.workers.values():
            worker.close()


@pytest.fixture(scope="module")
def pool(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    workers = Pool(source, tmp_path_factory.mktemp("ingest"))
    yield workers
    workers.close()


def _reports(workspace: Path) -> list[str]:
    """The progress lines the child ingesting into ``workspace`` has written so far."""
    path = progress_file(workspace)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return text.splitlines()[: text.count("\n")]  # a line still being written is not one yet


def _reading(follows: str) -> bool:
    """Whether the step after the report ``follows`` is still reading the input (no kill:
    it parses the next record in memory and writes nothing)."""
    stage, done, total = [*follows.split(), "", ""][:3]
    return stage == "import" and done != total


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:  # the worker reaps its child as soon as it ends
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_two_ingests_of_one_file_at_once_equal_one_clean_ingest(
    pool: Pool, kind: str, request: pytest.FixtureRequest
) -> None:
    store = request.getfixturevalue("pg_url") if kind == "postgres" else None
    clean = pool.clean(kind, store).outcome
    first, second = pool.worker(), pool.worker(1)
    both = pool.root / kind / "both"
    first.start(both, store)
    second.start(both, store)
    assert first.wait()[0] == 0
    assert second.wait()[0] == 0
    assert clean.pending == 0
    assert clean.dreamt_all
    assert not clean.marker
    assert len(clean.entries) >= 6, clean
    assert len(clean.facts) >= 20, clean
    assert _outcome(both, store) == clean


def _kill_in_step(
    worker: Worker, workspace: Path, store: str | None, step: int, delay: float
) -> bool:
    """Start an ingest, SIGKILL it ``delay`` seconds into ``step``; whether it died there."""
    pid, _ = worker.start(workspace, store, KILLED_LEASE_SECONDS)
    while len(_reports(workspace)) < step and _alive(pid):
        time.sleep(0.002)
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):  # it may have finished already
        os.kill(pid, signal.SIGKILL)
    status, _ = worker.wait()
    return status != 0 and len(_reports(workspace)) == step


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sigkill_at_any_point_then_rerun_equals_one_clean_ingest(
    pool: Pool, kind: str, request: pytest.FixtureRequest
) -> None:
    store = request.getfixturevalue("pg_url") if kind == "postgres" else None
    clean = pool.clean(kind, store)
    worker = pool.worker()
    steps = [n for n, (follows, _) in enumerate(clean.steps) if not _reading(follows)]
    assert len(steps) >= 7, clean.steps  # open, two replays, three dream runs, finish
    if store is not None:  # a killed run's leases expire first: every other step, and the end
        steps = sorted({*steps[1::2], steps[-1]})
    for step in steps:
        follows, seconds = clean.steps[step]
        # Halfway through the step as long as it took in the clean run; should the machine
        # have sped up so that the step ended first, at its very start (up to twice).
        for attempt, delay in enumerate((seconds / 2, 0.0, 0.0)):
            workspace = pool.root / kind / f"killed-{step}-{attempt}"
            landed = _kill_in_step(worker, workspace, store, step, delay)
            if store is not None:  # else the rerun may find the dead run's dream lease busy
                time.sleep(KILLED_LEASE_SECONDS)
            worker.run(workspace, store, KILLED_LEASE_SECONDS)
            assert _outcome(workspace, store) == clean.outcome, f"killed after {follows!r}"
            if landed:
                break
        assert landed, f"no kill landed in the step after {follows!r}"
