"""The history scan checkpoint is a cache that must never be trusted into damaging the log.

ext4 hands a freed inode number to the next new file: a log replaced twice by trim (atomic
rename) often gets back the inode number of an earlier version. A checkpoint (in the marker
file, or remembered in memory by a long-lived process) that names that number describes
another file; its offset may fall inside a line of the current one. Found by bench/soak.py:
repair scanned from the middle of a line, quarantined the line's tail and glued its head to
the next line, so two valid, acknowledged entries left the log.
"""

from __future__ import annotations

import json

from reverie.storage.folder.workspace import Workspace


def _stale_checkpoint(workspace: Workspace, offset: int, cursor: int) -> None:
    path = workspace.history.path
    marker = workspace.root / ".reverie" / "history.checked"
    state = {"inode": path.stat().st_ino, "size": offset, "line": 2, "cursor": cursor}
    marker.write_text(json.dumps(state), encoding="utf-8")


def test_a_checkpoint_whose_offset_falls_inside_a_line_is_not_trusted(workspace: Workspace) -> None:
    for n in range(6):
        workspace.history.append(f"entry {n} " + "x" * 40)
    workspace.close()
    data = workspace.history.path.read_bytes()
    _stale_checkpoint(workspace, data.index(b"entry 2"), cursor=2)
    reopened = Workspace.open(workspace.root)
    assert [entry.cursor for entry in reopened.history.entries()] == [1, 2, 3, 4, 5, 6]
    assert reopened.quarantine.records() == []
    assert reopened.history.path.read_bytes() == data
    reopened.close()


def test_a_checkpoint_at_a_line_end_with_another_cursor_is_not_trusted(
    workspace: Workspace,
) -> None:
    for n in range(6):
        workspace.history.append(f"entry {n}")
    workspace.close()
    data = workspace.history.path.read_bytes()
    end_of_second = data.index(b"\n", data.index(b"entry 1")) + 1
    # A valid line end, but the checkpoint claims cursor 5 there: it describes another file,
    # and trusting it would make entries 3 and 4 look out of order.
    _stale_checkpoint(workspace, end_of_second, cursor=5)
    reopened = Workspace.open(workspace.root)
    assert [entry.cursor for entry in reopened.history.entries()] == [1, 2, 3, 4, 5, 6]
    assert reopened.quarantine.records() == []
    reopened.close()
