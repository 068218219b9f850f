"""What a restore cannot bring back: history trimmed after the commit it goes back to.

A restore rolls the dream cursor back with the durable files, so the entries after the old
cursor are dreamt again. But ``trim`` drops entries dream has consumed: when the commit is
older than a trim, some entries it would need are gone, and what dream had learnt from them
would be lost (issue #14: 13 USER facts became 6). ``check_rewind`` finds that gap; the
restore then refuses with ``RestoreWouldLoseError`` naming the cursors, unless forced.
Works on any stores (a folder, or a database workspace: ``reverie.memory.dream.edit.restore``).
"""

from __future__ import annotations

from pathlib import Path

from reverie.core.cursors import parse_cursor_text
from reverie.core.durable import DREAM_CURSOR
from reverie.errors import RestoreWouldLoseError
from reverie.storage.ports import Stores

DREAM_CURSOR_PATH = DREAM_CURSOR


def trimmed_gap(workspace: Stores, rev: str) -> tuple[int, int] | None:
    """The cursors ``(first, last)`` a restore to ``rev`` needs but history no longer holds."""
    raw = workspace.audit.file_at(rev, DREAM_CURSOR_PATH)
    text = "" if raw is None else raw.decode("utf-8", errors="replace")
    target = parse_cursor_text(text, path=Path(DREAM_CURSOR_PATH)) or 0
    first_kept = next((entry.cursor for entry in workspace.history.entries()), None)
    end = first_kept - 1 if first_kept is not None else workspace.history.last_cursor()
    return (target + 1, end) if end > target else None


def check_rewind(workspace: Stores, rev: str) -> None:
    """Raise ``RestoreWouldLoseError`` when restoring ``rev`` needs trimmed entries."""
    gap = trimmed_gap(workspace, rev)
    if gap is not None:
        raise RestoreWouldLoseError(rev, first=gap[0], last=gap[1])
