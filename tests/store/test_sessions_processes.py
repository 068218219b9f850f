"""Invariants 3 and 4 with real processes: concurrent appenders, SIGKILL at random moments.

The session store is SQLite in WAL mode: a kill during a transaction leaves the state before
it, so after every kill each acknowledged write is there and nothing needs repairing. The
workers are forked from one warm parent (``tests/forkserver.py``), side by side or one at a
time, so a round costs the writes and the kill, not an interpreter start.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie.storage.folder.workspace import Workspace
from tests.forkserver import Child, Server

KEY = "telegram:4242"


def _fields(output: str, kind: str) -> list[str]:
    found = []
    for line in output.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[0] == kind:
            found.append(parts[1])
    return found


def _kill_after(worker: Child, rng: random.Random) -> str:
    """Once the worker acknowledged something, SIGKILL it at a random moment; return stdout."""
    first = worker.readline()
    time.sleep(rng.uniform(0.0, 0.02))
    worker.kill()
    return first + worker.finish()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    forks = Server("tests.store.sessions_worker")
    yield forks
    forks.close()


@pytest.mark.slow
def test_two_processes_appending_to_one_session_lose_nothing_and_keep_their_order(
    tmp_path: Path, server: Server
) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    workers = [
        server.start(tmp_path / f"{tag}.out", str(root), KEY, tag, "100", "append")
        for tag in ("p", "q")
    ]
    outputs = [worker.finish() for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    workspace = Workspace.open(root)
    texts = [message.text for message in workspace.sessions.load(KEY).messages]
    assert len(texts) == 200
    for tag, output in zip(("p", "q"), outputs, strict=True):
        own = [text for text in texts if text.startswith(f"{tag}-")]
        assert own == [f"{tag}-{index}" for index in range(100)]
        assert _fields(output, "ack") == own
    [info] = workspace.sessions.list()
    assert info.message_count == 200
    assert workspace.sessions.quarantine.records() == []


@pytest.mark.slow
def test_sigkill_during_appends_loses_no_acknowledged_message(
    tmp_path: Path, server: Server
) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    rng = random.Random(3)
    acknowledged: list[str] = []
    for round_no in range(22):
        mode = "big" if round_no % 2 else "append"
        worker = server.spawn(str(root), KEY, f"k{round_no}", "1000000", mode)
        output = _kill_after(worker, rng)
        assert worker.returncode == -signal.SIGKILL
        acknowledged += _fields(output, "ack")
        workspace = Workspace.open(root)
        seen = {message.text.split(" ")[0] for message in workspace.sessions.load(KEY).messages}
        workspace.close()
        assert set(acknowledged) <= seen, f"round {round_no} lost a message"
    workspace = Workspace.open(root)
    texts = [message.text.split(" ")[0] for message in workspace.sessions.load(KEY).messages]
    assert len(texts) == len(set(texts))
    assert [t for t in texts if t in set(acknowledged)] == acknowledged
    assert workspace.sessions.list()[0].message_count == len(texts)
    assert workspace.sessions.quarantine.records() == []  # a transaction is whole or absent


@pytest.mark.slow
def test_sigkill_during_state_updates_loses_no_acknowledged_record(
    tmp_path: Path, server: Server
) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    rng = random.Random(5)
    acknowledged: list[str] = []
    for round_no in range(22):
        worker = server.spawn(str(root), KEY, f"s{round_no}", "1000000", "state")
        output = _kill_after(worker, rng)
        acknowledged += _fields(output, "ack")
        workspace = Workspace.open(root)
        session = workspace.sessions.load(KEY)
        workspace.close()
        assert set(acknowledged) <= {message.text for message in session.messages}
        marks = [int(n) for n in _fields(output, "mark")]
        metas = [int(n) for n in _fields(output, "meta")]
        if marks:
            assert session.compacted_upto >= marks[-1]
        if metas:
            assert isinstance(session.metadata["j"], int)
            assert session.metadata["j"] >= metas[-1]
    workspace = Workspace.open(root)
    assert workspace.sessions.quarantine.records() == []
