"""The staging copy of a workspace folder's writable files: ``Overlay`` over the disk.

``Staging`` never writes the disk until ``publish``. Its base texts are the disk texts, and
every disk access re-checks the path on the real filesystem (``confine``: no symlink, no hard
link, the real path where it belongs). The overlay (``overlay.Overlay``) guards what is
published: ``changes``, ``diff`` and ``publish`` all see the guarded text.

``publish`` refuses (``PublishConflictError``, nothing written) when a file's disk text changed
since it was first staged, so an edit a person made during a dream run is never overwritten;
otherwise it hands the changes to the publish journal (``journal``), which replaces them as
one crash-safe set. This module does not commit, advance cursors or take locks.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reverie.errors import ConfinementError, PublishConflictError
from reverie.memory.dream.confine import resolve_readable, resolve_writable
from reverie.memory.dream.journal import disk_text, replace_file, write_journal
from reverie.memory.dream.overlay import Overlay, unified_diff
from reverie.storage.folder import layout
from reverie.storage.folder.layout import check_writable_on_disk

__all__ = ["Staging", "read_regular", "unified_diff"]


class Staging(Overlay):
    """An in-memory overlay of the writable files of one workspace folder."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def resolve(self, raw_path: str) -> str:
        """The canonical writable path, checked on the real tree (``confine``)."""
        return resolve_writable(self.root, raw_path)

    def read_other(self, raw_path: str, max_chars: int) -> bytes:
        """Read a readable workspace file (``confine.resolve_readable``), refusing a non-file."""
        return read_regular(resolve_readable(self.root, raw_path), max_chars)

    def skill_paths(self) -> list[str]:
        """The skill files that exist through no link at all."""
        try:
            return layout.skill_files(self.root)
        except OSError:
            return []

    def _load(self, canonical: str) -> str:
        check_writable_on_disk(self.root, canonical)
        return disk_text(self.root, canonical)

    def publish(self, journal: Path, *, cursor: int, trigger: str) -> tuple[str, ...]:
        """Journal the changes, then replace each changed file atomically (see ``journal``).

        Always writes the journal, even with no changes, so a crash before the caller advances
        the cursor is recovered the same way. The caller then commits, advances the cursor and
        calls ``finish_publish(journal)``.

        Returns:
            The canonical paths that were replaced, sorted.

        Raises:
            PublishConflictError: a file's disk text changed since it was staged.
            ConfinementError: a path stopped being safe on disk (nothing was written).
            StorageError: a write failed (recovery will roll the journal forward).
        """
        changes = self.changes()
        for path in changes:
            check_writable_on_disk(self.root, path)
            if disk_text(self.root, path) != self.base(path):
                raise PublishConflictError(path)
        write_journal(journal, cursor=cursor, trigger=trigger, files=changes)
        for path, text in changes.items():
            replace_file(self.root, path, text)
        return tuple(changes)


def read_regular(real: Path, max_chars: int) -> bytes:
    """Read up to ``max_chars`` characters' worth of bytes, refusing a swapped-in non-file."""
    # O_NOFOLLOW and O_NONBLOCK: a symlink or FIFO put in place since the check neither
    # redirects nor blocks the read; fstat then sees what was really opened.
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfinementError("not a regular file", path=str(real))
        return handle.read(max_chars * 4 + 4)
