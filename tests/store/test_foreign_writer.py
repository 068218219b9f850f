"""Another program writing ``history.jsonl`` without reverie's lock (nanobot, whose lock is
thread-only): reverie's cursors never go backwards, no line leaves the file, ``doctor`` tells.

The deterministic test plays the foreign writer in between reverie's appends (duplicate and
stale cursors, a raised and a lowered ``.cursor``); the process test lets a real foreign
process append nanobot-style (read ``.cursor``, add one, append, write ``.cursor``) at the
same time as reverie.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from reverie.memory.doctor import examine
from reverie.storage.folder.workspace import Workspace
from tests.conftest import StepClock

FOREIGN_WRITER = """
import json, sys
from pathlib import Path
memory = Path(sys.argv[1])
for i in range(int(sys.argv[2])):
    cursor = int((memory / ".cursor").read_text() or 0) + 1
    line = {"cursor": cursor, "timestamp": "2026-11-01 10:00", "content": f"nanobot {i}"}
    with (memory / "history.jsonl").open("a") as handle:
        handle.write(json.dumps(line) + "\\n")
    (memory / ".cursor").write_text(str(cursor))
"""


def _foreign(workspace: Workspace, cursor: int, content: str) -> None:
    line = {"cursor": cursor, "timestamp": "2026-11-01 10:00", "content": content}
    with workspace.history.path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def _cursors_in_file(workspace: Workspace) -> list[int]:
    text = workspace.history.path.read_text(encoding="utf-8")
    return [json.loads(line)["cursor"] for line in text.splitlines()]


def test_foreign_duplicate_and_stale_cursors_never_turn_reverie_back(
    workspace: Workspace, clock: StepClock
) -> None:
    history, floor = workspace.history, workspace.root / "memory" / ".cursor"
    mine = [history.append(f"reverie {i}").cursor for i in range(3)]
    _foreign(workspace, 3, "nanobot: a duplicate of 3")
    mine.append(history.append("after a duplicate").cursor)
    _foreign(workspace, 2, "nanobot: stale 2, last in the file")
    floor.write_text("1")  # and a stale .cursor
    mine.append(history.append("after a stale line").cursor)
    floor.write_text("40")  # a cursor handed out, its line not yet written
    mine.append(history.append("after a raised .cursor").cursor)
    _foreign(workspace, 45, "nanobot: ahead")
    mine.append(history.append("after a line ahead").cursor)
    assert mine == [1, 2, 3, 4, 5, 41, 46]
    assert all(b > a for a, b in itertools.pairwise(mine))

    lines_before = workspace.history.path.read_bytes()
    workspace.close()
    reopened = Workspace.open(workspace.root, clock=clock)
    assert reopened.repairs == []
    assert reopened.quarantine.records() == []
    assert reopened.history.path.read_bytes() == lines_before
    assert _cursors_in_file(reopened) == [1, 2, 3, 3, 4, 2, 5, 41, 45, 46]
    assert reopened.history.append("after reopening").cursor == 47
    assert reopened.history.trim(keep=1000).dropped == 0

    report = examine(reopened)
    assert not report.ok
    [finding] = [f for f in report.findings if f.check == "history"]
    assert "2 duplicate cursor(s) (3, 2)" in finding.message
    assert "must not write one workspace at the same time" in finding.message
    reopened.close()


@pytest.mark.slow  # a second process
def test_a_foreign_process_appending_at_the_same_time_loses_nothing(
    workspace: Workspace, clock: StepClock
) -> None:
    memory = workspace.root / "memory"
    foreign = subprocess.Popen([sys.executable, "-c", FOREIGN_WRITER, str(memory), "400"])
    mine = [workspace.history.append(f"reverie {i}").cursor for i in range(400)]
    assert foreign.wait(timeout=60) == 0
    mine += [workspace.history.append(f"reverie late {i}").cursor for i in range(5)]
    assert all(b > a for a, b in itertools.pairwise(mine))

    workspace.close()
    reopened = Workspace.open(workspace.root, clock=clock)
    assert reopened.quarantine.records() == []
    contents = [e.content for e in reopened.history.entries()]
    assert len(contents) == 805
    assert sum(c.startswith("nanobot ") for c in contents) == 400
    cursors = _cursors_in_file(reopened)
    assert reopened.history.append("last").cursor == max(cursors) + 1
    duplicates = len(cursors) - len(set(cursors))
    found = [f for f in examine(reopened).findings if f.check == "history"]
    assert bool(found) == bool(duplicates or cursors != sorted(cursors))
    reopened.close()
