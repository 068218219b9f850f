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
from reverie.storage.ports.stores import DreamStatePort, SkillFilesPort

__all__ = ["DreamStatePort", "DreamStores", "SkillFilesPort"]

if TYPE_CHECKING:
    from reverie.storage.folder.audit_commits import CommitInfo


@runtime_checkable
class DreamStores(ProvenanceStores, Protocol):
    """``ProvenanceStores`` plus dream's one-step publish, where there is no workspace folder."""

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
