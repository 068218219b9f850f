"""Dream across real processes: one run at a time, and SIGKILL at any instant is recovered.

The killed dreamers are forked from one warm parent (``tests/forkserver.py``), so a round
costs the dreaming and the kill, not an interpreter start.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reverie.memory.dream.edit import hold_dream
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL
from reverie.storage.folder.workspace import Workspace
from tests.barrier import release_together
from tests.dream.dream_worker import PATHS, content
from tests.forkserver import Server

WORKER = Path(__file__).with_name("dream_worker.py")
ROOT = Path(__file__).parents[2]
KILLS = 12


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


@pytest.mark.slow
def test_two_processes_triggering_dream_at_once_run_it_once(tmp_path: Path) -> None:
    root, release = tmp_path / "ws", tmp_path / "release"
    workspace = Workspace.open(root, create=True)
    workspace.history.append("one fact")
    commits = len(workspace.audit.log(100))
    workers = [_spawn("once", str(root), str(release)) for _ in range(2)]
    try:
        release_together(workers)
        firsts = [worker.stdout.readline().strip() for worker in workers if worker.stdout]
        assert firsts.count("in-model") == 1, firsts
        busy = next(json.loads(first) for first in firsts if first != "in-model")
        assert busy == {"outcome": "busy", "cursor": 0}
    finally:
        release.touch()
        outputs = [worker.communicate(timeout=30)[0] for worker in workers]
    holder = next(out for first, out in zip(firsts, outputs, strict=True) if first == "in-model")
    assert json.loads(holder) == {"outcome": "completed", "cursor": 1}
    assert workspace.dream_cursor.read() == 1
    assert len(workspace.audit.log(100)) == commits + 1


def _check_consistent(root: Path) -> int:
    workspace = Workspace.open(root)
    try:
        with hold_dream(workspace):  # finishes an interrupted publish
            pass
        cursor = workspace.dream_cursor.read()
        for path in PATHS:
            text = (root / path).read_text()
            if cursor == 0:
                assert "generation" not in text
            else:
                assert text == content(path, cursor), (path, text[:40], cursor)
        assert workspace.audit.pending_diff().files == ()
        assert not (root / DEFAULT_JOURNAL).exists()
        return cursor
    finally:
        workspace.close()


@pytest.mark.slow
def test_sigkill_at_any_moment_leaves_files_cursor_and_commit_agreeing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    rng = random.Random(6)
    interrupted = 0
    server = Server("tests.dream.dream_worker")
    for kill in range(KILLS):
        worker = server.spawn("loop", str(root))
        assert worker.readline() == "ready\n"
        # Scheduled by progress, not only by time: the first worker always completes a run
        # (a loaded machine may otherwise finish none), later ones a random 0 or 1 first.
        for _ in range(1 if kill == 0 else rng.randint(0, 1)):
            worker.readline()
        time.sleep(rng.uniform(0.0, 0.25))  # about one run
        worker.kill()
        worker.finish()
        interrupted += (root / DEFAULT_JOURNAL).exists()
        _check_consistent(root)
    server.close()
    assert _check_consistent(root) > 0
    print(f"runs interrupted mid-publish: {interrupted} of {KILLS}")
