"""The audit repository: git history of the durable files and the dream cursor.

``AuditRepo`` owns ``WORKSPACE/.git`` (created with dulwich; no git binary is needed). It
tracks exactly ``TRACKED_PATHS`` (SOUL.md, USER.md, memory/MEMORY.md, memory/.dream_cursor)
and the skill files dream writes (``skills/<name>/SKILL.md``).
A person can read it with plain git; in reverie's own repository ``.git/info/exclude`` hides
every other file from ``git status``. An existing ``.git`` (a nanobot workspace) is adopted
with its history, and its ``info/exclude`` is left as its owner wrote it; a project's repository
(one holding files no memory workspace has) is refused before anything is written, and no
commit, restore or purge ever runs in one (``audit_foreign``). A ``.git`` that went
missing or was replaced is reported, never silently re-created (``audit_integrity``;
``repair`` is the explicit way back).

What it must not do: discover a repository upward (a workspace inside another git checkout
audits in its own ``.git`` and never touches the outer one), commit any path but the tracked
ones, rewrite history (except ``purge``, on a person's explicit ``forget --purge``), or take a
commit message from anywhere but the real diff.

Invariants:
- Writes (``ensure``, ``commit``, ``restore``) hold the workspace's ``audit`` lock, so
  threads and processes never race on the index or HEAD.
- ``commit`` is a no-op (returns None, makes no commit) when the tracked files equal HEAD.
- The message is ``subject``, a blank line, a per-file stat block and a capped unified diff,
  all computed from the blobs being committed (DESIGN.md invariant 9).
- ``restore`` puts every tracked file back as of a commit, the dream cursor included
  (invariant 7), and records that as a new commit. Uncommitted edits are committed first as
  a snapshot, so a restore never destroys anything history does not hold.
- reverie is the committer of every commit and its author unless a person is named (a
  person's edit through ``reverie.memory.dream.edit``); ``line_origins`` reads line ages
  (``audit_lines``) and writes nothing.
- dulwich and OS failures surface as ``AuditError`` (``raise ... from``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from reverie.core.audit import (
    REPAIR_HINT,
    AuditIntegrity,
    CommitDetail,
    CommitInfo,
    FileChange,
    LineOrigin,
    person_identity,
)
from reverie.core.diff import AuditDiff, FileVersions, render_diff
from reverie.errors import ForeignRepositoryError, InputError
from reverie.storage.folder.audit_commits import (
    blob_at,
    describe,
    first_parent,
    head_commit,
    resolve_revision,
    root_commit,
    short_sha,
    subject_of,
)
from reverie.storage.folder.audit_foreign import refuse_foreign
from reverie.storage.folder.audit_git import IDENTITY, GitRepo
from reverie.storage.folder.audit_integrity import read_root, write_root
from reverie.storage.folder.audit_lines import line_origins
from reverie.storage.folder.audit_locks import sweep_git_locks
from reverie.storage.folder.audit_purge import Scrub, purge_history
from reverie.storage.folder.audit_setup import holds_reverie_block, read_file, write_exclude
from reverie.storage.folder.audit_worktree import TRACKED_PATHS, put_back, tracked_paths

__all__ = [
    "IDENTITY",
    "SNAPSHOT_SUBJECT",
    "TRACKED_PATHS",
    "AuditDiff",
    "AuditRepo",
    "CommitDetail",
    "CommitInfo",
    "FileChange",
    "LineOrigin",
]

logger = logging.getLogger(__name__)

SNAPSHOT_SUBJECT = "snapshot: uncommitted changes before restore"


class AuditRepo(GitRepo):
    """The git audit repository of one workspace (see the module docstring)."""

    def ensure(self) -> None:
        """Create the repository if it never existed and make the first commit ``init: workspace``.

        An existing repository is adopted as it is, a repository without commits gets its
        first, and its root commit is recorded (``audit_integrity``). The reverie block of
        ``.git/info/exclude`` is (re)written only in reverie's own repository (created here,
        without commits yet, or already carrying the block): another program's repository
        (nanobot's) keeps its exclude file untouched. A repository that existed and went missing
        is *not* re-created: that takes ``repair``.

        Raises:
            AuditError: the repository cannot be created or read.
            ForeignRepositoryError: ``.git`` is a project's repository (``audit_foreign``).
        """
        with self._lock.hold():
            created = False
            if not os.path.lexists(self.git_dir):
                if read_root(self.record) is not None:
                    logger.warning(
                        "the audit repository %s is missing; %s", self.git_dir, REPAIR_HINT
                    )
                    return
                self._init_atomically()
                created = True
            self._adopt_locked(record=read_root(self.record) is None, created=created)

    def integrity(self) -> AuditIntegrity:
        """Whether ``.git`` is the repository reverie recorded (see ``audit_integrity``)."""
        if not os.path.lexists(self.git_dir):
            return AuditIntegrity(state="missing", detail=f"{self.git_dir} is gone; {REPAIR_HINT}")
        with self._open() as repo:
            try:
                refuse_foreign(repo, self.root)
            except ForeignRepositoryError as exc:
                return AuditIntegrity(state="foreign", detail=str(exc))
            root = root_commit(repo)
        if root is None:
            return AuditIntegrity(state="empty", detail="the audit repository has no commit")
        recorded = read_root(self.record)
        if recorded is not None and recorded != root:
            return AuditIntegrity(
                state="replaced",
                detail=f"its root commit is {root[:12]}, reverie recorded {recorded[:12]} "
                f"(history was replaced); {REPAIR_HINT} (this accepts the current one)",
            )
        return AuditIntegrity(state="ok")

    def repair(self) -> AuditIntegrity:
        """Start a new repository when missing, or accept the current one; record its root."""
        with self._lock.hold():
            created = not os.path.lexists(self.git_dir)
            if created:
                self._init_atomically()
                logger.warning("created a new audit repository at %s", self.git_dir)
            self._adopt_locked(record=True, created=created)
        return self.integrity()

    def _adopt_locked(self, *, record: bool, created: bool) -> None:
        with self._open() as repo:
            # Before any write: a project's repository (judged by its folder while empty).
            refuse_foreign(repo, self.root, judge_folder=not created)
            sweep_git_locks(self.git_dir)
            exclude = Path(repo.commondir()) / "info" / "exclude"
            fresh = head_commit(repo) is None
            if created or fresh or holds_reverie_block(exclude):
                write_exclude(exclude)
            if fresh:
                self._commit_locked(repo, "init: workspace")
            root = root_commit(repo) if record else None
        if root is not None:
            write_root(self.record, root)

    def commit(
        self, subject: str, *, allow_empty: bool = False, author: str | None = None
    ) -> CommitInfo | None:
        """Commit the tracked files as they are on disk (an absent file is removed).

        Args:
            subject: the first line of the message (whitespace is collapsed to one line); the
                body is built from the diff.
            allow_empty: commit even when nothing changed (``forget`` records every removal,
                also one that touched no durable file).
            author: who made the change, ``Name`` or ``Name <email>`` (default: reverie, which
                is always the committer).

        Returns:
            The new commit, or None when the files equal HEAD (no commit is made).

        Raises:
            InputError: the subject is blank.
            AuditError: git failed.
        """
        line = _one_line(subject)
        identity = IDENTITY if author is None else person_identity(author)
        with self._lock.hold(), self._open() as repo:
            sweep_git_locks(self.git_dir)
            return self._commit_locked(repo, line, identity, allow_empty=allow_empty)

    def pending_diff(self) -> AuditDiff:
        """Return the uncommitted changes of the tracked files against HEAD (for dry runs)."""
        with self._open() as repo:
            head = head_commit(repo)
            tree = None if head is None else head.tree
            return render_diff(
                FileVersions(
                    path=path, old=blob_at(repo, tree, path), new=read_file(self.root / path)
                )
                for path in tracked_paths(self.root, repo, tree)
            )

    def log(self, n: int = 20) -> list[CommitInfo]:
        """Return up to ``n`` commits along first parents from HEAD, newest first."""
        infos: list[CommitInfo] = []
        with self._open() as repo:
            commit = head_commit(repo)
            while commit is not None and len(infos) < n:
                infos.append(describe(repo, commit)[0])
                commit = first_parent(repo, commit)
        return infos

    def line_origins(
        self, texts: Mapping[str, str], *, depth: int = 200
    ) -> dict[str, tuple[LineOrigin, ...]]:
        """For each line of each file's current text, the commit that last added it.

        Args:
            texts: tracked paths and their current texts.
            depth: how many first-parent commits to walk back from HEAD at most.
        """
        with self._open() as repo:
            return line_origins(repo, texts, depth=depth)

    def show(self, rev: str) -> CommitDetail:
        """Return one commit with its full diff.

        Args:
            rev: a full sha, a unique sha prefix (≥ 4 hex digits), ``HEAD`` or ``HEAD~N``.

        Raises:
            RevisionNotFoundError: ``rev`` names no commit, or several.
        """
        with self._open() as repo:
            info, diff = describe(repo, resolve_revision(repo, rev))
        return CommitDetail(info=info, diff=diff.diff)

    def file_at(self, rev: str, path: str) -> bytes | None:
        """Return the bytes of tracked ``path`` as of ``rev`` (None when absent there).

        Raises:
            RevisionNotFoundError: ``rev`` names no commit, or several.
        """
        with self._open() as repo:
            return blob_at(repo, resolve_revision(repo, rev).tree, path)

    def restore(self, rev: str) -> CommitInfo:
        """Put every tracked file back as it was at ``rev`` and record that as a new commit.

        The dream cursor is a tracked file, so it rolls back with the durable files. A file
        absent at ``rev`` is removed. History is never rewritten. Uncommitted edits are first
        committed as ``SNAPSHOT_SUBJECT``; if writing fails part-way, the files already put
        back stay uncommitted and show in ``pending_diff``.

        Returns:
            The ``restore: <short> (<subject>)`` commit, or HEAD when nothing differed.

        Raises:
            RevisionNotFoundError: ``rev`` names no commit, or several.
            StorageError: a file could not be written.
            AuditError: git failed.
        """
        with self._lock.hold(), self._open() as repo:
            sweep_git_locks(self.git_dir)
            target = resolve_revision(repo, rev)
            self._commit_locked(repo, SNAPSHOT_SUBJECT)
            head = head_commit(repo)
            current = None if head is None else head.tree
            for path in tracked_paths(self.root, repo, target.tree, current):
                put_back(self.root / path, blob_at(repo, target.tree, path))
            subject = f"restore: {short_sha(target)} ({subject_of(target)})"
            made = self._commit_locked(repo, subject)
            if made is not None:
                logger.info("restored workspace files to %s", short_sha(target))
                return made
            head = head_commit(repo)
            assert head is not None, "the snapshot step commits whenever HEAD has no commit"
            return describe(repo, head)[0]

    def purge(self, scrub: Scrub, scrub_text: Callable[[str], str]) -> int:
        """Rewrite every commit through ``scrub`` and drop the old objects (``forget --purge``).

        The one exception to "never rewrite history", on a person's explicit request; see
        ``audit_purge``. Returns how many commits changed.

        Raises:
            AuditError: git failed.
        """
        with self._lock.hold(), self._open() as repo:
            refuse_foreign(repo, self.root)  # only ever reverie's (or nanobot's) own history
            sweep_git_locks(self.git_dir)
            changed = purge_history(repo, self.git_dir, scrub, scrub_text)
        logger.info("purged the audit history (%d commits rewritten)", changed)
        return changed

    def objects_holding(self, holds: Callable[[bytes], bool]) -> list[str]:
        """The shas of every object (loose or packed, decompressed) whose bytes ``holds``."""
        with self._open() as repo:
            store = repo.object_store
            return sorted(sha.decode("ascii") for sha in store if holds(store[sha].as_raw_string()))

    def close(self) -> None:
        """Release the lock file descriptor (the repository may be used again later)."""
        self._lock.close()


def _one_line(subject: str) -> str:
    line = " ".join(subject.split())
    if not line:
        raise InputError("an audit commit needs a non-blank subject")
    return line
