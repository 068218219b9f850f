"""Invariants 1 and 3 with real processes: concurrent appends and SIGKILL at random moments.

The writers are forked from one warm parent (``tests/forkserver.py``), side by side or one
at a time, so a round costs the appends and the kill, not an interpreter start.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie.storage.folder.workspace import Workspace
from tests.forkserver import Server


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    forks = Server("tests.store.history_worker")
    yield forks
    forks.close()


def _acknowledged(output: str) -> dict[int, str]:
    acked: dict[int, str] = {}
    for line in output.splitlines():
        if line.count("\t") == 1:
            cursor, content = line.split("\t")
            acked[int(cursor)] = content
    return acked


@pytest.mark.slow
def test_append_from_four_processes_never_repeats_or_skips_a_cursor(
    tmp_path: Path, server: Server
) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    workers = [server.start(tmp_path / f"p{n}.out", str(root), "500", f"p{n}") for n in range(4)]
    seen: list[int] = []
    deadline = time.monotonic() + 120
    # A cursor-following reader runs alongside the writers: it must see every cursor once.
    while len(seen) < 2000 and time.monotonic() < deadline:
        batch = workspace.history.read_since(seen[-1] if seen else 0)
        seen.extend(entry.cursor for entry in batch)
    outputs = [worker.finish() for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    assert seen == list(range(1, 2001))
    entries = list(workspace.history.entries())
    assert [e.cursor for e in entries] == list(range(1, 2001))
    acked: dict[int, str] = {}
    for output in outputs:
        acked.update(_acknowledged(output))
    assert len(acked) == 2000
    assert {e.cursor: e.content for e in entries} == acked
    for tag in ("p0", "p1", "p2", "p3"):
        own = [int(e.content.split("-")[1]) for e in entries if e.session_key == f"proc:{tag}"]
        assert own == list(range(500))
    assert (root / "memory" / ".cursor").read_text() == "2000"


@pytest.mark.slow
def test_sigkill_during_appends_loses_no_acknowledged_entry(tmp_path: Path, server: Server) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    rng = random.Random(2026)
    acked: dict[int, str] = {}
    kills = 0
    for round_no in range(24):
        worker = server.spawn(str(root), "100000", f"k{round_no}", "big")
        first = worker.readline()  # wait until it is really appending
        time.sleep(rng.uniform(0.0, 0.05))
        worker.kill()
        output = first + worker.finish()
        if worker.returncode == -signal.SIGKILL:
            kills += 1
        acked.update(_acknowledged(output))
        reopened = Workspace.open(root)
        entries = {e.cursor: e for e in reopened.history.entries()}
        for cursor, content in acked.items():
            assert entries[cursor].content.split(" ")[0] == content
        cursors = list(entries)
        assert cursors == sorted(set(cursors))
        assert int((root / "memory" / ".cursor").read_text()) >= max(cursors)
        assert reopened.history.last_cursor() == max(cursors)
        reopened.close()
    assert kills >= 20
    assert not list(root.rglob("*.rvtmp"))
    lines = (root / "memory" / "history.jsonl").read_bytes()
    assert lines.endswith(b"\n")
