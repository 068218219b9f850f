"""The staging copy of the writable files: an in-memory overlay the dream tools edit.

``Staging`` never writes the disk until ``publish``. The first time a file is touched its disk
text is kept as the *base*; ``changes`` and ``diff`` compare staged text with that base. Only
canonical writable paths (``confine``) can be staged, and every disk access re-checks them on
the real filesystem.

What is published is never the raw staged text but its guarded form (``guard``): secrets
redacted in every writable file (the three fixed files are always looked at, so a secret
already on disk goes too) and new SOUL.md lines screened, refused ones reported by
``rejected``. ``changes``, ``diff`` and ``publish`` all see the guarded text, so no curator,
dry run or recovery can bypass it.

``publish`` refuses (``PublishConflictError``, nothing written) when a file's disk text changed
since it was first staged, so an edit a person made during a dream run is never overwritten;
otherwise it hands the changes to the publish journal (``journal``), which replaces them as
one crash-safe set. This module does not commit, advance cursors or take locks.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from reverie.dream.confine import FIXED_WRITABLE, canonical_writable, check_writable_on_disk
from reverie.dream.guard import GuardedText, guard_text
from reverie.dream.journal import disk_text, replace_file, write_journal
from reverie.errors import ConfinementError, PublishConflictError, StorageError
from reverie.screening import RejectedRule


class Staging:
    """An in-memory overlay of the writable files of one workspace."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._base: dict[str, str] = {}
        self._staged: dict[str, str] = {}

    def read(self, canonical: str) -> str:
        """Return the staged text, else the disk text ('' when the file does not exist).

        Raises:
            ConfinementError: ``canonical`` is not writable, or not safe on disk.
            StorageError: the disk file cannot be read as UTF-8 text.
        """
        if canonical in self._staged:
            return self._staged[canonical]
        return self._base_text(canonical)

    def write(self, canonical: str, text: str) -> None:
        """Stage ``text`` as the new content of ``canonical`` (nothing touches the disk).

        Raises:
            ConfinementError: ``canonical`` is not writable, or not safe on disk.
            StorageError: the disk file cannot be read as UTF-8 text.
        """
        self._base_text(canonical)
        self._staged[canonical] = text

    def changes(self) -> dict[str, str]:
        """Return canonical path -> guarded text, for files whose text differs from their base."""
        return {
            path: guarded.text
            for path, guarded in self._guarded().items()
            if guarded.text != self._base[path]
        }

    def rejected(self) -> tuple[RejectedRule, ...]:
        """The candidate rules the guard refused (they are not in ``changes``)."""
        return tuple(rule for guarded in self._guarded().values() for rule in guarded.rejected)

    def _guarded(self) -> dict[str, GuardedText]:
        for path in FIXED_WRITABLE:  # look at files nobody staged too: old secrets go
            if path not in self._staged:
                try:
                    self._staged[path] = self._base_text(path)
                except (ConfinementError, StorageError):
                    continue
        return {
            path: guard_text(path, self._base[path], text)
            for path, text in sorted(self._staged.items())
        }

    def diff(self) -> str:
        """Return a unified diff (``a/``/``b/`` prefixes) of every changed file, for dry runs."""
        return "".join(
            unified_diff(path, self._base[path], text) for path, text in self.changes().items()
        )

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
            if disk_text(self.root, path) != self._base[path]:
                raise PublishConflictError(path)
        write_journal(journal, cursor=cursor, trigger=trigger, files=changes)
        for path, text in changes.items():
            replace_file(self.root, path, text)
        return tuple(changes)

    def _base_text(self, canonical: str) -> str:
        if canonical not in self._base:
            if canonical_writable(canonical) != canonical:
                raise ConfinementError("not a canonical writable path", path=canonical)
            check_writable_on_disk(self.root, canonical)
            self._base[canonical] = disk_text(self.root, canonical)
        return self._base[canonical]


def unified_diff(path: str, old: str, new: str) -> str:
    """Return the unified diff of one file, marking a missing final newline like git does."""
    before = "/dev/null" if old == "" else f"a/{path}"
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=before,
        tofile=f"b/{path}",
    )
    out: list[str] = []
    for line in lines:
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
