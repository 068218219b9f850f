"""Stale lock files in the audit repository: what a writer killed mid-write leaves in ``.git``.

dulwich writes every file of a repository through ``<file>.lock`` and renames it into place;
a process SIGKILLed in between leaves the ``.lock`` behind, and every later write of that file
fails with ``FileLocked`` — so one crash during an audit commit would block every later commit
(and with it the recovery of an interrupted dream publish). ``sweep_git_locks`` removes them.

It must only run while the caller holds the workspace's ``audit`` lock: every reverie writer
of ``.git`` holds that lock, so any ``.lock`` file found then belongs to a dead reverie writer,
or to a git command a person runs in the workspace's ``.git`` at that very moment, which
reverie does not support (``AuditRepo`` already refuses a HEAD moved under it). Only the
places dulwich writes through locks are swept: ``index``, ``HEAD``, ``packed-refs``, ``config``,
and everything under ``refs/`` and ``objects/``; nothing else in ``.git`` is touched.
"""

from __future__ import annotations

import logging
from pathlib import Path

logger = logging.getLogger(__name__)

_TOP_LEVEL = ("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock")
_TREES = ("refs", "objects")


def sweep_git_locks(git_dir: Path) -> list[Path]:
    """Remove dulwich's ``*.lock`` files left in ``git_dir``; return what was removed.

    The caller holds the workspace's audit lock (see the module docstring). Files that vanish
    meanwhile or cannot be removed are skipped; the next git write then reports the problem.
    """
    removed: list[Path] = []
    for path in stale_git_locks(git_dir):
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    if removed:
        logger.warning("removed %d stale lock file(s) from %s", len(removed), git_dir)
    return removed


def stale_git_locks(git_dir: Path) -> list[Path]:
    """The lock files ``sweep_git_locks`` would remove (regular files, not symlinks); no writes.

    Without the audit lock held, a file found may belong to a live writer: the answer then
    only says that the repository is not quiet.
    """
    found = [git_dir / name for name in _TOP_LEVEL]
    for tree in _TREES:
        found.extend((git_dir / tree).rglob("*.lock"))
    stale: list[Path] = []
    for path in found:
        try:
            if path.is_symlink() or not path.is_file():
                continue
        except OSError:
            continue
        stale.append(path)
    return stale
