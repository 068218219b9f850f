"""The workspace side of the audit repository: tracked files, the index and the exclude file.

This module owns what the audit repository sees of the workspace folder: exactly
``TRACKED_PATHS`` plus every ``skills/<name>/SKILL.md`` dream wrote, staged into the index
so a person's ``git status`` agrees with the last commit, the reverie block of
``.git/info/exclude`` that hides every other file from that ``git status``, and writing files
back on restore. It never creates commits or moves refs.

Invariants: a tree built here differs from its base only at tracked paths (an adopted
repository keeps every other path it committed); an absent tracked file is removed from the
tree; files are put back atomically (``atomic_write``), removals are fsynced; the exclude
file keeps every line a person wrote outside the reverie block.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.index import IndexEntry, commit_tree

from reverie.store import layout
from reverie.store.atomic import atomic_write, atomic_write_text, fsync_dir

if TYPE_CHECKING:
    from dulwich.objects import ObjectID
    from dulwich.repo import Repo

TRACKED_PATHS: tuple[str, ...] = layout.AUDITED
"""The fixed paths the audit repository commits, relative to the workspace."""

SKILL_PATH = layout.SKILL_FILE
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


_BEGIN_MARK = "# >>> reverie"
_EXCLUDE_BEGIN = f"{_BEGIN_MARK}: audit only the durable files (block managed by reverie)"
_EXCLUDE_END = "# <<< reverie"
# Later patterns win: ignore everything, then re-include the tracked files and their folder.
_EXCLUDE_BLOCK = f"""{_EXCLUDE_BEGIN}
/*
!/SOUL.md
!/USER.md
!/memory/
/memory/*
!/memory/MEMORY.md
!/memory/.dream_cursor
!/skills/
/skills/*/*
!/skills/*/SKILL.md
{_EXCLUDE_END}
"""


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


def read_file(path: Path) -> bytes | None:
    """Return the bytes of ``path``, or None when it (or its folder) does not exist."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


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


def holds_reverie_block(path: Path) -> bool:
    """Return whether ``info/exclude`` at ``path`` carries a reverie block (any version)."""
    current = read_file(path)
    return current is not None and _BEGIN_MARK.encode() in current


def write_exclude(path: Path) -> None:
    """Make ``info/exclude`` hold the reverie block, keeping any other lines a person wrote."""
    current = read_file(path)
    text = "" if current is None else current.decode("utf-8", errors="replace")
    if _EXCLUDE_BLOCK in text:
        return
    begin, end = text.find(_BEGIN_MARK), text.find(_EXCLUDE_END)
    if begin != -1 and end > begin:  # an older reverie block: replace it
        text = text[:begin] + text[end + len(_EXCLUDE_END) :].lstrip("\n")
    kept = text.rstrip("\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, f"{kept}\n\n{_EXCLUDE_BLOCK}" if kept else _EXCLUDE_BLOCK)
