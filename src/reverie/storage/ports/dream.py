"""The storage seam's dream files, and the contract of ``DreamStores`` (``bundles``).

``DreamStores`` is ``Stores`` plus what dream, a restore and a person's edit need, the same on
a workspace folder and a database:

- ``dream_files`` (``DreamFilesPort``): the writable files as a run stages them (each checked
  where they live: on a folder with dream's strict link rule), the other files the model may
  read, and the workspace's instruction override (a folder's ``prompts/dream.md``);
- ``provenance``: where the sources of the lines a run adds are noted before it publishes;
- ``publish_dream``: a run's result as ONE step: the changed files, the dream cursor and one
  audit commit ``dream: <trigger>`` (message from the real diff), or nothing at all. It
  refuses, writing nothing, when a file is no longer the text the run started from
  (``bases``: a person's edit meanwhile), when the dream cursor is no longer
  ``expected_cursor``, or when the caller's hold on the ``dream`` lock lapsed (a fencing
  check). A folder journals the publish and recovers it (``finish_interrupted_publish``); a
  database publishes in one transaction and has nothing to recover;
- ``finish_interrupted_publish``: under the dream lock, roll forward a publish a crash cut
  short; every holder of the dream lock (a run, a restore, an edit, a forget) calls it first,
  so no later recovery can roll an older publish over what it did.

Nothing here does anything at run time: only protocols.
"""

from __future__ import annotations

from typing import Protocol


class DreamFilesPort(Protocol):
    """The files a dream run stages and reads, by canonical writable path."""

    def check(self, canonical: str) -> None:
        """Refuse a writable path that is unsafe where the files live (``ConfinementError``)."""

    def read(self, canonical: str) -> str:
        """A writable file's text as the run's base ('' when absent); checked as ``check``.

        Raises:
            ConfinementError: reaching it is unsafe.
            StorageError: it cannot be read (on a folder: or is not UTF-8).
        """

    def skill_paths(self) -> list[str]:
        """The ``skills/<name>/SKILL.md`` files that exist, sorted."""

    def read_other(self, raw_path: str, max_chars: int) -> bytes:
        """Up to ``max_chars`` characters' worth of bytes of another file the model may read.

        Raises:
            ConfinementError: the file may not be read, or does not exist.
            OSError: it could not be read.
        """

    def instructions(self, max_chars: int) -> str | None:
        """The workspace's own dream instructions, cut at ``max_chars`` (None: the built-in)."""
