"""Reading the audit repository: revision names, commit values and their diffs.

This module owns how reverie reads git history: the small revision grammar it accepts (a full
commit sha, a unique short sha prefix of at least four hex digits, ``HEAD`` and ``HEAD~N`` along
first parents), the ``CommitInfo`` / ``CommitDetail`` values, and the diff of a commit against
its first parent (against nothing for a root commit). It reads the repository and never writes.

Invariant: a string that does not name exactly one commit raises ``RevisionNotFoundError``,
whether it is malformed, names no object, names a non-commit object or a prefix that several
commits share. It never guesses.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from dulwich.object_store import tree_lookup_path
from dulwich.objects import Commit, ObjectID, valid_hexsha
from dulwich.refs import Ref

from reverie.core.audit import SHORT_SHA_LENGTH, CommitInfo
from reverie.core.diff import AuditDiff, FileVersions, render_diff
from reverie.errors import AuditError, RevisionNotFoundError

if TYPE_CHECKING:
    from dulwich.repo import Repo

MIN_PREFIX = 4
"""The shortest sha prefix accepted as a revision."""

_HEAD = Ref(b"HEAD")
_HEAD_REVISION = re.compile(r"HEAD(?:~(\d*))?")

_HEX_REVISION = re.compile(rf"[0-9a-fA-F]{{{MIN_PREFIX},40}}")


def head_commit(repo: Repo) -> Commit | None:
    """Return the commit HEAD points at, or None while the branch has no commit yet."""
    try:
        sha = repo.refs[_HEAD]
    except KeyError:
        return None
    if not valid_hexsha(sha):
        raise AuditError(f"HEAD does not hold a commit sha: {sha!r}")
    return _commit(repo, sha)


def first_parent(repo: Repo, commit: Commit) -> Commit | None:
    """Return the first parent of ``commit``, or None for a root commit."""
    if not commit.parents:
        return None
    return _commit(repo, commit.parents[0])


def root_commit(repo: Repo) -> str | None:
    """The sha of the root commit reached along first parents from HEAD (None: no commit)."""
    commit = head_commit(repo)
    while commit is not None:
        parent = first_parent(repo, commit)
        if parent is None:
            return commit.id.decode("ascii")
        commit = parent
    return None


def resolve_revision(repo: Repo, revision: str) -> Commit:
    """Return the one commit that ``revision`` names.

    Args:
        repo: the audit repository.
        revision: a full sha, a unique sha prefix (≥ 4 hex digits), ``HEAD`` or ``HEAD~N``.

    Raises:
        RevisionNotFoundError: the string names no commit, or more than one.
    """
    text = revision.strip()
    head_match = _HEAD_REVISION.fullmatch(text)
    if head_match is not None:
        steps = head_match.group(1)  # None for "HEAD", "" for "HEAD~" (one step, as in git)
        return _walk_back(repo, revision, 0 if steps is None else int(steps or "1"))
    if _HEX_REVISION.fullmatch(text) is None:
        raise RevisionNotFoundError(revision)
    prefix = text.lower().encode("ascii")
    matches = [sha for sha in repo.object_store.iter_prefix(prefix) if _is_commit(repo, sha)]
    if len(matches) != 1:
        raise RevisionNotFoundError(revision)
    return _commit(repo, matches[0])


def _walk_back(repo: Repo, revision: str, steps: int) -> Commit:
    commit = head_commit(repo)
    for _ in range(steps):
        if commit is None:
            break
        commit = first_parent(repo, commit)
    if commit is None:
        raise RevisionNotFoundError(revision)
    return commit


def _is_commit(repo: Repo, sha: ObjectID) -> bool:
    return isinstance(repo.object_store[sha], Commit)


def _commit(repo: Repo, sha: ObjectID) -> Commit:
    obj = repo.object_store[sha]
    if not isinstance(obj, Commit):
        raise AuditError(
            f"object {sha.decode('ascii')} should be a commit but is a {obj.type_name.decode()}"
        )
    return obj


def describe(repo: Repo, commit: Commit) -> tuple[CommitInfo, AuditDiff]:
    """Return ``commit`` as a value, with its diff against its first parent."""
    parent = first_parent(repo, commit)
    diff = tree_diff(repo, None if parent is None else parent.tree, commit.tree)
    return commit_info(commit, diff), diff


def commit_info(commit: Commit, diff: AuditDiff) -> CommitInfo:
    """Build the value of ``commit`` whose changes are ``diff``."""
    sha = commit.id.decode("ascii")
    offset = timezone(timedelta(seconds=commit.commit_timezone))
    return CommitInfo(
        sha=sha,
        short=sha[:SHORT_SHA_LENGTH],
        subject=subject_of(commit),
        message=_message(commit),
        time=datetime.fromtimestamp(commit.commit_time, tz=offset),
        files=diff.files,
        author=bytes(commit.author).decode("utf-8", errors="replace"),
    )


def subject_of(commit: Commit) -> str:
    """Return the first line of the commit message."""
    return _message(commit).split("\n", 1)[0]


def short_sha(commit: Commit) -> str:
    """Return the abbreviated sha shown in subjects and logs."""
    return commit.id.decode("ascii")[:SHORT_SHA_LENGTH]


def tree_diff(repo: Repo, old: ObjectID | None, new: ObjectID) -> AuditDiff:
    """Render the changes from tree ``old`` (None: empty) to tree ``new``."""
    versions: list[FileVersions] = []
    store = repo.object_store
    for (old_path, new_path), _modes, (old_sha, new_sha) in store.tree_changes(old, new):
        path = new_path if new_path is not None else old_path
        versions.append(
            FileVersions(
                path=(path or b"").decode("utf-8", errors="replace"),
                old=None if old_sha is None else store[old_sha].as_raw_string(),
                new=None if new_sha is None else store[new_sha].as_raw_string(),
            )
        )
    return render_diff(versions)


def blob_at(repo: Repo, tree: ObjectID | None, path: str) -> bytes | None:
    """Return the bytes of ``path`` in ``tree``, or None when it is absent there."""
    if tree is None:
        return None
    try:
        _mode, sha = tree_lookup_path(repo.object_store.__getitem__, tree, path.encode("utf-8"))
    except KeyError:
        return None
    return repo.object_store[sha].as_raw_string()


def _message(commit: Commit) -> str:
    raw: bytes = commit.message
    return raw.decode("utf-8", errors="replace")
