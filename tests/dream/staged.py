"""Publishing a folder's staging copy through the journal alone, for the journal's own tests.

``publish`` does what ``Workspace.publish_dream`` does before the cursor and the commit: the
base check, the journal, the replaced files (``dream_journal.publish_files``).
"""

from __future__ import annotations

from pathlib import Path

from reverie.memory.dream.staging import Staging
from reverie.storage.folder.dream_files import FolderDreamFiles
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL, publish_files


def root_of(staging: Staging) -> Path:
    """The workspace folder a folder's staging copy stands over."""
    files = staging.files
    assert isinstance(files, FolderDreamFiles)
    return files.root


def publish(
    staging: Staging, journal: Path | None = None, *, cursor: int, trigger: str
) -> tuple[str, ...]:
    """Journal and replace the staged changes; return the paths replaced."""
    root = root_of(staging)
    changes = staging.changes()
    publish_files(
        root,
        journal if journal is not None else root / DEFAULT_JOURNAL,
        changes,
        bases={path: staging.base(path) for path in changes},
        cursor=cursor,
        trigger=trigger,
    )
    return tuple(changes)
