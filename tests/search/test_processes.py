"""Several processes appending and refreshing one index at once: every item indexed once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace

WORKER = Path(__file__).with_name("search_worker.py")
ROOT = Path(__file__).parents[2]


def _spawn(root: Path, tag: str, rounds: int) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    args = [sys.executable, str(WORKER), str(root), tag, str(rounds)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)


@pytest.mark.slow
def test_processes_refreshing_at_once_index_every_item_exactly_once(
    workspace: Workspace, index: SearchIndex
) -> None:
    tags, rounds = ("alpha", "beta", "gamma"), 40
    workers = [_spawn(workspace.root, tag, rounds) for tag in tags]
    added_history = added_messages = 0
    for worker in workers:
        output, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        for line in output.splitlines():
            _kind, history, messages = line.split("\t")
            added_history, added_messages = (
                added_history + int(history),
                added_messages + int(messages),
            )
    final = index.refresh()

    total = len(tags) * rounds
    assert added_history + final.history_added == total
    assert added_messages + final.messages_added == total
    hits = index.search("shared", limit=10 * total)
    assert len(hits) == 2 * total
    assert len({(hit.cursor, hit.session_key, hit.message_index) for hit in hits}) == 2 * total
    for tag in tags:
        for number in (0, rounds - 1):
            found = index.search(f"{tag}x{number}")
            assert sorted(hit.kind for hit in found) == ["history", "message"]
