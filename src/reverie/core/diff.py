"""Diff rendering for the audit repository: per-file line counts and unified diffs.

This module owns turning two versions of some files into text a person reads: a stat block
(``path | +A -R``) and a unified diff, and capping that diff for a commit message. It works on
bytes handed to it and never touches git or the disk, so the commit message of an audit commit
is always computed from the real contents (DESIGN.md invariant 9), never from anyone's account.

Invariants: files whose two versions are equal are left out; files come out sorted by path;
counts and diff are computed from the same ``difflib`` output, so they always agree; a capped
diff ends with a line saying how many diff lines were left out.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from reverie.core.audit import FileChange

DIFF_CAP_CHARS = 6_000
"""How many characters of unified diff an audit commit message carries at most."""

_NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditDiff:
    """The changes between two versions of the audited files.

    Attributes:
        files: one entry per changed file, sorted by path.
        diff: the full unified diff of those files (empty when nothing changed).
    """

    files: tuple[FileChange, ...]
    diff: str

    @property
    def changed(self) -> bool:
        """True when at least one file differs."""
        return bool(self.files)


@dataclass(frozen=True, slots=True, kw_only=True)
class FileVersions:
    """Two versions of one file; None means the file is absent in that version."""

    path: str
    old: bytes | None
    new: bytes | None


def render_diff(versions: Iterable[FileVersions]) -> AuditDiff:
    """Compare each file's two versions and render the changed ones.

    Args:
        versions: the files to compare (unchanged ones are skipped).

    Returns:
        The per-file counts and the unified diff, sorted by path.
    """
    files: list[FileChange] = []
    chunks: list[str] = []
    for version in sorted(versions, key=lambda item: item.path):
        if version.old == version.new:
            continue
        header, body = _file_diff(version)
        added = sum(1 for line in body if line.startswith("+"))
        removed = sum(1 for line in body if line.startswith("-"))
        files.append(FileChange(path=version.path, added=added, removed=removed))
        chunks.append("".join(header + body))
    return AuditDiff(files=tuple(files), diff="".join(chunks))


def stat_block(files: Iterable[FileChange]) -> str:
    """Render one ``path | +A -R`` line per file and a total line.

    Returns:
        The block without a trailing newline (``no file changed`` when empty).
    """
    changes = list(files)
    if not changes:
        return "no file changed"
    width = max(len(change.path) for change in changes)
    lines = [
        f"{change.path.ljust(width)} | +{change.added} -{change.removed}" for change in changes
    ]
    added = sum(change.added for change in changes)
    removed = sum(change.removed for change in changes)
    noun = "file" if len(changes) == 1 else "files"
    lines.append(f"{len(changes)} {noun} changed, +{added} -{removed}")
    return "\n".join(lines)


def commit_body(diff: AuditDiff, *, cap: int = DIFF_CAP_CHARS) -> str:
    """Build the body of an audit commit message: the stat block, then the capped diff."""
    return f"{stat_block(diff.files)}\n\n{cap_diff(diff.diff, cap=cap)}".rstrip("\n") + "\n"


def cap_diff(diff: str, *, cap: int = DIFF_CAP_CHARS) -> str:
    """Keep whole lines of ``diff`` up to ``cap`` characters and say how many were left out.

    Returns:
        ``diff`` unchanged when it fits, else its head and a closing line such as
        ``[... 120 more diff lines not shown]``.
    """
    if len(diff) <= cap:
        return diff
    lines = diff.splitlines(keepends=True)
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) > cap:
            break
        kept.append(line)
        size += len(line)
    left_out = len(lines) - len(kept)
    return "".join(kept) + f"[... {left_out} more diff lines not shown]\n"


def _file_diff(version: FileVersions) -> tuple[list[str], list[str]]:
    """Return the header lines and the hunk lines of one file's unified diff."""
    old_name = "/dev/null" if version.old is None else f"a/{version.path}"
    new_name = "/dev/null" if version.new is None else f"b/{version.path}"
    header = [f"--- {old_name}\n", f"+++ {new_name}\n"]
    raw = difflib.unified_diff(_lines(version.old), _lines(version.new), n=3)
    body: list[str] = []
    for line in list(raw)[2:]:  # difflib's own ---/+++ header is replaced by ours
        if line.endswith("\n"):
            body.append(line)
        else:
            body.extend((line + "\n", _NO_NEWLINE))
    return header, body


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    # Split on "\n" only: str.splitlines would also cut at "\r", form feeds and U+2028,
    # which git does not treat as line ends.
    parts = data.decode("utf-8", errors="replace").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
