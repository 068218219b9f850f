"""The audit repository's set-up as files: the exclude block, and whether set-up has work to do.

``AuditRepo.ensure`` (``reverie.storage.folder.audit``) sets a repository up: it creates ``.git``,
sweeps stale lock files, writes the reverie block of ``.git/info/exclude``, makes the first
commit and records the root commit. ``settled`` answers, from plain files and without git,
whether all of that is already done, so a read-only open (status, search, log) can skip
``ensure`` and start without importing dulwich.

What it must not do: guess. ``settled`` is True only for the plain layout reverie itself
writes (a ``.git`` folder, HEAD on a loose branch ref holding a sha); anything else (packed
refs, a linked worktree, a missing record) reads as "not settled", and the caller runs
``ensure`` exactly as before. It writes nothing; ``write_exclude`` is the one writer here.
"""

from __future__ import annotations

import string
from pathlib import Path

from reverie.errors import StorageError
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.audit_integrity import read_root
from reverie.storage.folder.audit_locks import stale_git_locks

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
_SHA_LENGTHS = (40, 64)  # SHA-1 and SHA-256 object names


def read_file(path: Path) -> bytes | None:
    """Return the bytes of ``path``, or None when it (or its folder) does not exist."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


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


def settled(root: Path) -> bool:
    """Whether ``AuditRepo.ensure`` would find nothing to do in the workspace at ``root``.

    True when ``.git`` is a plain folder whose HEAD holds a commit, its root commit is
    recorded, no stale lock file is left in it, and its exclude file needs no rewrite.
    False when any of that is not so, or cannot be told from the files (then run ``ensure``).
    """
    git_dir = root / layout.GIT
    if git_dir.is_symlink() or not git_dir.is_dir() or (git_dir / "commondir").exists():
        return False
    try:
        if read_root(root / layout.AUDIT_ROOT) is None:
            return False
    except StorageError:
        return False
    if stale_git_locks(git_dir):
        return False
    exclude = read_file(git_dir / "info" / "exclude") or b""
    if _BEGIN_MARK.encode() in exclude and _EXCLUDE_BLOCK.encode() not in exclude:
        return False  # an older reverie block, which ensure would rewrite
    return _head_holds_a_commit(git_dir)


def _head_holds_a_commit(git_dir: Path) -> bool:
    """HEAD names a sha directly or through a loose ref (packed refs: not told, False)."""
    head = _read_text(git_dir / "HEAD")
    if head is None:
        return False
    if head.startswith("ref: "):
        name = head.removeprefix("ref: ")
        if not name.startswith("refs/heads/") or ".." in name.split("/"):
            return False
        head = _read_text(git_dir / name)
    return head is not None and _is_sha(head)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _is_sha(text: str) -> bool:
    return len(text) in _SHA_LENGTHS and all(char in string.hexdigits for char in text)
