"""The workspace side of the audit repository: tracked files, the index and putting files back.

This module owns what the audit repository sees of the workspace folder: exactly
``TRACKED_PATHS`` plus every ``skills/<name>/SKILL.md`` dream wrote, staged into the index
so a person's ``git status`` agrees with the last commit, and writing files back on restore
(the reverie block of ``.git/info/exclude``, which hides every other file from that
``git status``, is ``audit_setup``'s). It never creates commits or moves refs.

Invariants: a tree built here differs from its base only at tracked paths (an adopted
repository keeps every other path it committed); an absent tracked file is removed from the
tree; files are put back atomically (``atomic_write``), removals are fsynced.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.index import IndexEntry, commit_tree

from reverie.core.writable import SKILL_FILE
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write, fsync_dir
from reverie.storage.folder.audit_setup import read_file

if TYPE_CHECKING:
    from dulwich.objects import ObjectID
    from dulwich.repo import Repo

TRACKED_PATHS: tuple[str, ...] = layout.AUDITED
"""The fixed paths the audit repository commits, relative to the workspace."""

SKILL_PATH = SKILL_FILE
"""Skill files dream may write; each one that exists (or existed) is tracked too."""


def skill_paths(root: Path, repo: Repo, *trees: ObjectID | None) -> set[str]:
    """Skill files on disk in ``root`` and in any of ``trees`` (so removals are seen).

    Only paths with no symlink on disk count (``layout.skill_files``): a symlinked
    ``skills/<name>/`` folder is never tracked, committed, or touched by a restore, even when an
    older commit holds a file at that path.
    """
    found = set(layout.skill_files(root))
    for tree in trees:
        if tree is not None:
            found.update(
                entry.path.decode("utf-8", "replace")
                for entry in repo.object_store.iter_tree_contents(tree)
                if entry.path.startswith(b"skills/")
            )
    return {path for path in found if SKILL_PATH.fullmatch(path) and _no_link(root, path)}


def _no_link(root: Path, relative: str) -> bool:
    """True when no existing component of ``relative`` below ``root`` is a symlink."""
    current = root
    for part in relative.split("/"):
        current = current / part
        if current.is_symlink():
            return False
        if not current.exists():
            return True
    return True


def tracked_paths(root: Path, repo: Repo, *trees: ObjectID | None) -> tuple[str, ...]:
    """Every path a commit, diff or restore looks at: the fixed ones and the skill files."""
    return TRACKED_PATHS + tuple(sorted(skill_paths(root, repo, *trees)))


def stage_tracked(repo: Repo, base: ObjectID | None) -> ObjectID:
    """Stage the tracked files and return the tree of ``base`` with only those replaced."""
    config = repo.get_config()  # the repository's own settings, not the user's global ones
    paths = tracked_paths(Path(repo.path), repo, base)
    repo.get_worktree().stage(list(paths), config=config)
    index = repo.open_index(config=config)
    entries: dict[bytes, tuple[ObjectID, int]] = {}
    if base is not None:
        for entry in repo.object_store.iter_tree_contents(base):
            entries[entry.path] = (entry.sha, entry.mode)
    for path in paths:
        key = path.encode("utf-8")
        try:
            staged = index[key]
        except KeyError:
            staged = None
        if isinstance(staged, IndexEntry):
            entries[key] = (staged.sha, staged.mode)
        else:
            entries.pop(key, None)
    blobs = [(path, sha, mode) for path, (sha, mode) in sorted(entries.items())]
    return commit_tree(repo.object_store, blobs, object_format=repo.object_format)


def put_back(path: Path, data: bytes | None) -> None:
    """Make ``path`` hold ``data`` (None: make it absent), rewriting it only when it differs."""
    if data is None:
        try:
            path.unlink()
        except FileNotFoundError:
            return
        fsync_dir(path.parent)
        return
    if read_file(path) == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)
