"""The audit repository: git history of the durable files and the dream cursor.

``AuditRepo`` owns ``WORKSPACE/.git`` (created with dulwich; no git binary is needed). It
tracks exactly ``TRACKED_PATHS`` (SOUL.md, USER.md, memory/MEMORY.md, memory/.dream_cursor)
and the skill files dream writes (``skills/<name>/SKILL.md``).
A person can read it with plain git; ``.git/info/exclude`` hides every other file from
``git status``. An existing ``.git`` (a nanobot workspace) is adopted with its history.

What it must not do: discover a repository upward (a workspace inside another git checkout
audits in its own ``.git`` and never touches the outer one), commit any path but the tracked
ones, rewrite history, or take a commit message from anywhere but the real diff.

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
  person's edit through ``reverie.dream.edit``); ``line_origins`` reads line ages
  (``audit_lines``) and writes nothing.
- dulwich and OS failures surface as ``AuditError`` (``raise ... from``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.errors import (
    ChecksumMismatch,
    CommitError,
    FileFormatException,
    NotGitRepository,
    ObjectMissing,
    RefFormatError,
    WrongObjectException,
)
from dulwich.file import FileLocked
from dulwich.objects import Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from reverie.clock import require_aware
from reverie.errors import AuditError
from reverie.store.audit_commits import (
    CommitDetail,
    CommitInfo,
    blob_at,
    commit_info,
    describe,
    first_parent,
    head_commit,
    resolve_revision,
    short_sha,
    subject_of,
    tree_diff,
)
from reverie.store.audit_diff import (
    AuditDiff,
    FileChange,
    FileVersions,
    commit_body,
    render_diff,
)
from reverie.store.audit_lines import LineOrigin, line_origins, person_identity
from reverie.store.audit_locks import sweep_git_locks
from reverie.store.audit_worktree import (
    TRACKED_PATHS,
    put_back,
    read_file,
    stage_tracked,
    tracked_paths,
    write_exclude,
)

if TYPE_CHECKING:
    from reverie.clock import Clock
    from reverie.store.locks import ProcessLock

__all__ = [
    "TRACKED_PATHS",
    "AuditDiff",
    "AuditRepo",
    "CommitDetail",
    "CommitInfo",
    "FileChange",
    "LineOrigin",
]

logger = logging.getLogger(__name__)

IDENTITY = b"reverie <reverie@localhost>"
SNAPSHOT_SUBJECT = "snapshot: uncommitted changes before restore"

_HEAD = Ref(b"HEAD")
_GIT_FAILURES = (
    OSError,
    KeyError,
    FileLocked,
    ChecksumMismatch,
    CommitError,
    FileFormatException,
    NotGitRepository,
    ObjectMissing,
    RefFormatError,
    WrongObjectException,
)


class AuditRepo:
    """The git audit repository of one workspace (see the module docstring)."""

    def __init__(self, root: Path, *, lock: ProcessLock, clock: Clock) -> None:
        self.root = root
        self.git_dir = root / ".git"
        self._lock = lock
        self._clock = clock

    def ensure(self) -> None:
        """Create the repository if missing and make the first commit ``init: workspace``.

        An existing repository is adopted as it is; only the reverie block of
        ``.git/info/exclude`` is (re)written, and a repository without commits gets its first.

        Raises:
            AuditError: the repository cannot be created or read.
        """
        with self._lock.hold():
            if not os.path.lexists(self.git_dir):
                try:
                    Repo.init(str(self.root), default_branch=b"main").close()
                except _GIT_FAILURES as exc:
                    raise AuditError(
                        f"cannot create the audit repository {self.git_dir}: {exc}"
                    ) from exc
            with self._open() as repo:
                sweep_git_locks(self.git_dir)
                write_exclude(Path(repo.commondir()) / "info" / "exclude")
                if head_commit(repo) is None:
                    self._commit_locked(repo, "init: workspace")

    def commit(self, subject: str, *, author: str | None = None) -> CommitInfo | None:
        """Commit the tracked files as they are on disk (an absent file is removed).

        Args:
            subject: the first line of the message (whitespace is collapsed to one line); the
                body is built from the diff.
            author: who made the change, ``Name`` or ``Name <email>`` (default: reverie, which
                is always the committer).

        Returns:
            The new commit, or None when the files equal HEAD (no commit is made).

        Raises:
            ValueError: the subject is blank.
            AuditError: git failed.
        """
        line = _one_line(subject)
        identity = IDENTITY if author is None else person_identity(author)
        with self._lock.hold(), self._open() as repo:
            sweep_git_locks(self.git_dir)
            return self._commit_locked(repo, line, identity)

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

    def close(self) -> None:
        """Release the lock file descriptor (the repository may be used again later)."""
        self._lock.close()

    @contextmanager
    def _open(self) -> Iterator[Repo]:
        # Open root/.git itself, never Repo.discover: a workspace nested in another checkout
        # must not fall through to the outer repository.
        if not os.path.lexists(self.git_dir):
            raise AuditError(f"no audit repository at {self.git_dir} (ensure() creates it)")
        try:
            repo = Repo(str(self.root), bare=False)
        except (*_GIT_FAILURES, ValueError) as exc:  # ValueError: a .git file without "gitdir:"
            raise AuditError(f"cannot open the audit repository {self.git_dir}: {exc}") from exc
        try:
            yield repo
        except _GIT_FAILURES as exc:
            raise AuditError(f"audit repository {self.git_dir} failed: {exc!r}") from exc
        finally:
            repo.close()

    def _commit_locked(
        self, repo: Repo, subject: str, author: bytes = IDENTITY
    ) -> CommitInfo | None:
        head = head_commit(repo)
        base = None if head is None else head.tree
        tree = stage_tracked(repo, base)
        if head is not None and tree == head.tree:
            return None
        diff = tree_diff(repo, base, tree)
        commit = self._new_commit(tree, head, f"{subject}\n\n{commit_body(diff)}", author)
        repo.object_store.add_object(commit)
        swapped = repo.refs.set_if_equals(
            _HEAD,
            None if head is None else head.id,
            commit.id,
            committer=IDENTITY,
            timestamp=commit.commit_time,
            timezone=commit.commit_timezone,
            message=f"commit: {subject}".encode(),
        )
        if not swapped:
            raise AuditError(
                f"HEAD of {self.git_dir} moved during a commit (a writer without the lock)"
            )
        info = commit_info(commit, diff)
        logger.info("audit commit %s: %s", info.short, subject)
        return info

    def _new_commit(
        self, tree: ObjectID, parent: Commit | None, message: str, author: bytes
    ) -> Commit:
        now = require_aware(self._clock())
        offset = now.utcoffset() or timedelta(0)
        commit = Commit()
        commit.tree = tree
        commit.parents = [] if parent is None else [parent.id]
        commit.author = author
        commit.committer = IDENTITY
        commit.author_time = commit.commit_time = int(now.timestamp())
        commit.author_timezone = commit.commit_timezone = int(offset.total_seconds())
        commit.message = message.encode("utf-8")
        return commit


def _one_line(subject: str) -> str:
    line = " ".join(subject.split())
    if not line:
        raise ValueError("an audit commit needs a non-blank subject")
    return line
