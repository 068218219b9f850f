from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import Message
from reverie.storage.folder.workspace import Workspace

ROOT = Path(__file__).parents[2]
WORKER = Path(__file__).with_name("compaction_worker.py")


@pytest.mark.slow
def test_two_processes_compacting_one_session_write_no_duplicate_entries(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True)
    for index in range(40):
        workspace.sessions.append(
            "cli:shared", Message(role="user", content=f"q{index} " + "w " * 120)
        )
        workspace.sessions.append("cli:shared", Message(role="assistant", content="a " * 120))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(workspace.root), "cli:shared"],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    outputs = [worker.communicate(timeout=120)[0].split() for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    assert sorted(output[0] for output in outputs) == ["not_needed", "summarised"]
    ranges = [entry.range for entry in workspace.history.entries()]
    assert ranges
    assert all(r is not None for r in ranges)
    ends = [r[1] for r in ranges if r is not None]
    starts = [r[0] for r in ranges if r is not None]
    assert starts == [0, *ends[:-1]]  # contiguous, no overlap, no duplicate
    assert workspace.sessions.load("cli:shared").compacted_upto == ends[-1]
