"""The staging copy the dream tools edit, whatever holds the durable files.

``Staging`` is an in-memory copy of the writable files (SOUL.md, USER.md, memory/MEMORY.md,
skills/<name>/SKILL.md) over the stores' ``DreamFilesPort``: the first time a file is touched
its stored text is kept as its *base* (read through the port, which checks the path where the
files live: on a folder dream's strict rule on the real tree, no symlink, no hard link, strict
UTF-8); writes go to memory only. ``changes``, ``diff`` and ``rejected`` compare the staged
text with that base, after the publish guard (``guard``: secrets redacted in every writable
file, the three fixed files always looked at; new SOUL.md lines screened), so no curator, dry
run or publish can bypass it. The publish itself is the stores' (``DreamStores.publish_dream``,
which checks every changed file is still its base text).

Invariant: only canonical writable paths (``confine``) can be staged; nothing here writes a
store, commits, moves a cursor or takes a lock.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from reverie.core.screening import RejectedRule
from reverie.core.writable import FIXED_WRITABLE, canonical_writable
from reverie.errors import ConfinementError, StorageError

if TYPE_CHECKING:
    from reverie.storage.ports import DreamFilesPort
from reverie.memory.dream.guard import GuardedText, guard_text


class Staging:
    """An in-memory overlay of the writable files over ``files`` (see the module docstring)."""

    def __init__(self, files: DreamFilesPort) -> None:
        self.files = files
        self._base: dict[str, str] = {}
        self._staged: dict[str, str] = {}

    def resolve(self, raw_path: str) -> str:
        """Return the canonical writable path the model may write, or refuse it.

        Raises:
            ConfinementError: the text rules (``confine``) or the stores' check refuse it.
        """
        canonical = canonical_writable(raw_path)
        self.files.check(canonical)
        return canonical

    def read_other(self, raw_path: str, max_chars: int) -> bytes:
        """Return up to ``max_chars`` characters' worth of bytes of a non-writable file.

        Raises:
            ConfinementError: the file may not be read (or does not exist).
            OSError: it could not be read.
        """
        return self.files.read_other(raw_path, max_chars)

    def skill_paths(self) -> list[str]:
        """The ``skills/<name>/SKILL.md`` paths that exist in the stores, sorted."""
        return self.files.skill_paths()

    def read(self, canonical: str) -> str:
        """Return the staged text, else the source text ('' when the file does not exist).

        Raises:
            ConfinementError: ``canonical`` is not writable, or not safe in the source.
            StorageError: the source text cannot be read.
        """
        if canonical in self._staged:
            return self._staged[canonical]
        return self._base_text(canonical)

    def write(self, canonical: str, text: str) -> None:
        """Stage ``text`` as the new content of ``canonical`` (nothing touches the source).

        Raises:
            ConfinementError: ``canonical`` is not writable, or not safe in the source.
            StorageError: the source text cannot be read.
        """
        self._base_text(canonical)
        self._staged[canonical] = text

    def base(self, canonical: str) -> str:
        """The source text ``canonical`` had when first staged (what a publish checks)."""
        return self._base_text(canonical)

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

    def diff(self) -> str:
        """Return a unified diff (``a/``/``b/`` prefixes) of every changed file, for dry runs."""
        return "".join(
            unified_diff(path, self._base[path], text) for path, text in self.changes().items()
        )

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

    def _base_text(self, canonical: str) -> str:
        if canonical not in self._base:
            if canonical_writable(canonical) != canonical:
                raise ConfinementError("not a canonical writable path", path=canonical)
            self._base[canonical] = self.files.read(canonical)
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
