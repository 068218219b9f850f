"""The storage seam's dream stores: what a backend adds so dream runs on it without a folder.

A folder workspace dreams through ``reverie.memory.dream.runner.Dreamer`` (a staging copy over the
disk, a publish journal, git). A backend that keeps its files elsewhere (PostgreSQL) offers
``DreamStores``: the skill files, the dream's back-off state, and ``publish_dream``, which
lands a run's result as ONE step: the changed files, the dream cursor and one audit commit
``dream: <trigger>`` (message from the real diff), or nothing at all. It refuses, writing
nothing, when a file is no longer the text the run started from (``bases``: a person's edit
meanwhile), when the dream cursor is no longer ``expected_cursor`` (another run consumed the
batch), or when the caller's hold on the ``dream`` lock lapsed (a fencing check), so a crash
or a lost lease at any instant leaves no partial publish.

Nothing here does anything at run time: only protocols.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from reverie.storage.ports.bundles import ProvenanceStores

if TYPE_CHECKING:
    from reverie.storage.folder.audit_commits import CommitInfo


class SkillFilesPort(Protocol):
    """The ``skills/<name>/SKILL.md`` files dream may create and edit, by canonical path."""

    def paths(self) -> list[str]:
        """Every skill file that exists, sorted."""

    def read(self, path: str) -> str:
        """A skill file's text ('' when absent); ``ValueError`` for a path that is not one."""

    def write(self, path: str, text: str) -> None:
        """Replace a skill file's text (not committed: the caller commits)."""


class DreamStatePort(Protocol):
    """The dream's back-off state, as the text ``reverie.memory.dream.state.DreamState`` reads."""

    def read_text(self) -> str | None:
        """The stored text (None before the first run)."""

    def write_text(self, text: str) -> None:
        """Replace the stored text in one step."""


@runtime_checkable
class DreamStores(ProvenanceStores, Protocol):
    """``ProvenanceStores`` plus what dream needs where there is no workspace folder."""

    @property
    def skills(self) -> SkillFilesPort:
        """The skill files."""

    @property
    def dream_state(self) -> DreamStatePort:
        """The dream's back-off state."""

    def publish_dream(
        self,
        changes: Mapping[str, str],
        *,
        bases: Mapping[str, str],
        subject: str,
        dream_cursor: int,
        expected_cursor: int,
    ) -> CommitInfo | None:
        """Write ``changes`` (canonical path -> text), the cursor and one commit, all or none.

        Raises:
            DreamError: nothing was written: a file is not its ``bases`` text any more
                (``PublishConflictError``), the cursor moved, or the dream lock was lost.
        """
