"""Fingerprints of every file the soak must not change, taken before and after the run.

The soak root holds the workspace, a canary file and a folder beside it (``../x`` targets),
and the ack folder. ``fingerprint`` hashes every file and symlink under the root except the
ack folder and, inside the workspace, what reverie may legitimately change: the writable set
of dream (SOUL.md, USER.md, memory/MEMORY.md, skills/<name>/SKILL.md) and reverie's own
bookkeeping (history, cursors, ledger, quarantine, sessions/, .reverie/, .git/ except
.git/config). Anything else that appears, disappears or changes is a violation of the
confinement invariant (DESIGN.md 8), wherever it happened.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

WRITABLE = re.compile(
    r"(SOUL\.md|USER\.md|memory/MEMORY\.md|skills/[a-z0-9][a-z0-9_-]{0,63}/SKILL\.md)"
)
BOOKKEEPING = frozenset(
    {
        "memory/history.jsonl",
        "memory/.cursor",
        "memory/.dream_cursor",
        "memory/ledger.jsonl",
        "memory/history.quarantine.jsonl",
    }
)
BOOKKEEPING_FOLDERS = ("sessions/", ".reverie/", ".git/")


def may_change(relative: str) -> bool:
    """Whether reverie may change the workspace file at ``relative`` (POSIX form)."""
    if WRITABLE.fullmatch(relative) or relative in BOOKKEEPING:
        return True
    if relative == ".git/config":
        return False
    return relative.startswith(BOOKKEEPING_FOLDERS)


def fingerprint(
    root: Path, workspace: Path, skip: Path, extra: tuple[Path, ...] = ()
) -> dict[str, str]:
    """Map every guarded path under ``root`` to a hash of its bytes (or its link target).

    ``extra`` names single files elsewhere (absolute paths as keys) that hostile paths aim at.
    """
    found = {str(path): _digest(path) for path in extra if path.exists() or path.is_symlink()}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == skip:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = here / name
            if path.is_dir() and not path.is_symlink():
                continue
            if path.is_relative_to(workspace) and may_change(
                path.relative_to(workspace).as_posix()
            ):
                continue
            found[path.relative_to(root).as_posix()] = _digest(path)
    return found


def _digest(path: Path) -> str:
    if path.is_symlink():
        return f"link:{path.readlink()}"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compare(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What changed outside the writable set, one line per path."""
    problems = [
        f"{path} appeared outside the writable set" for path in sorted(after.keys() - before.keys())
    ]
    problems += [f"{path} disappeared" for path in sorted(before.keys() - after.keys())]
    problems += [
        f"{path} changed outside the writable set"
        for path in sorted(before.keys() & after.keys())
        if before[path] != after[path]
    ]
    return problems
