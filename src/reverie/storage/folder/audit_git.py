"""The audit repository's git plumbing: open, create and commit with dulwich, errors translated.

``GitRepo`` is the base of ``AuditRepo`` (``reverie.storage.folder.audit``, which holds the
operations and the invariants). It opens ``root/.git`` itself, never by discovery (a workspace
inside another checkout must not reach the outer repository), creates a repository atomically (in a
scratch folder, then one rename), and writes a commit whose message body is built from the real diff
of the staged tree, moving HEAD only if no other writer moved it. Every dulwich and OS failure
surfaces as ``AuditError``. The callers hold the audit lock.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator
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

from reverie.core.audit import REPAIR_HINT, CommitInfo
from reverie.core.clock import require_aware
from reverie.core.diff import commit_body
from reverie.errors import AuditError
from reverie.storage.folder import layout
from reverie.storage.folder.audit_commits import commit_info, head_commit, tree_diff
from reverie.storage.folder.audit_foreign import refuse_foreign, refuse_git_file
from reverie.storage.folder.audit_worktree import stage_tracked

if TYPE_CHECKING:
    from reverie.core.clock import Clock
    from reverie.storage.folder.locks import ProcessLock


logger = logging.getLogger(__name__)

IDENTITY = b"reverie <reverie@localhost>"

_HEAD = Ref(b"HEAD")
GIT_FAILURES = (
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


class GitRepo:
    """The git repository under ``AuditRepo``: open, create, commit (see above)."""

    def __init__(self, root: Path, *, lock: ProcessLock, clock: Clock) -> None:
        self.root = root
        self.git_dir = root / layout.GIT
        self.record = root / layout.AUDIT_ROOT
        self._lock = lock
        self._clock = clock

    def _init_atomically(self) -> None:
        """Create ``.git`` in a scratch folder, then rename it into place.

        ``Repo.init`` writes many files; killed halfway in place it would leave a ``.git``
        that every later open refuses. A rename is all or nothing; a scratch folder a kill
        left behind is removed on the next try.
        """
        scratch_root = self.root / layout.GIT_INIT_SCRATCH
        shutil.rmtree(scratch_root, ignore_errors=True)
        try:
            scratch_root.mkdir()
            Repo.init(str(scratch_root), default_branch=b"main").close()
            (scratch_root / layout.GIT).rename(self.git_dir)
        except (*GIT_FAILURES, OSError) as exc:
            raise AuditError(f"cannot create the audit repository {self.git_dir}: {exc}") from exc
        finally:
            shutil.rmtree(scratch_root, ignore_errors=True)

    @contextmanager
    def _open(self) -> Iterator[Repo]:
        # Open root/.git itself, never Repo.discover: a workspace nested in another checkout
        # must not fall through to the outer repository.
        if not os.path.lexists(self.git_dir):
            raise AuditError(f"no audit repository at {self.git_dir}; {REPAIR_HINT}")
        refuse_git_file(self.root)
        try:
            repo = Repo(str(self.root), bare=False)
        except (*GIT_FAILURES, ValueError) as exc:  # ValueError: a .git file without "gitdir:"
            raise AuditError(f"cannot open the audit repository {self.git_dir}: {exc}") from exc
        try:
            yield repo
        except GIT_FAILURES as exc:
            raise AuditError(f"audit repository {self.git_dir} failed: {exc!r}") from exc
        finally:
            repo.close()

    def _commit_locked(
        self, repo: Repo, subject: str, author: bytes = IDENTITY, *, allow_empty: bool = False
    ) -> CommitInfo | None:
        refuse_foreign(repo, self.root)  # never a commit on a project's branch
        head = head_commit(repo)
        base = None if head is None else head.tree
        tree = stage_tracked(repo, base)
        if head is not None and tree == head.tree and not allow_empty:
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
