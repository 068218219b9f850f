"""Audit values: a commit of the durable files, the files it changed, where a line comes from.

Every change to SOUL.md, USER.md and MEMORY.md is a commit a person can read, diff and
restore; these are the values the audit hands up to the engine, the CLI and the viewer
(``CommitInfo``, ``CommitDetail``, ``FileChange``, ``LineOrigin``), whichever backend keeps
the commits. This module does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    """How many lines one file gained and lost.

    Attributes:
        path: the file's path relative to the workspace, with ``/`` separators.
        added: lines added.
        removed: lines removed.
    """

    path: str
    added: int
    removed: int


SHORT_SHA_LENGTH = 7
"""How many hex digits ``CommitInfo.short`` keeps."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitInfo:
    """One audit commit.

    Attributes:
        sha: the full hex sha.
        short: the first seven hex digits.
        subject: the message's first line.
        message: the whole message.
        time: the commit time (timezone-aware, in the committer's offset).
        files: the files changed against the first parent, with line counts.
        author: who made the change, as git records it (``Name <email>``).
    """

    sha: str
    short: str
    subject: str
    message: str
    time: datetime
    files: tuple[FileChange, ...]
    author: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitDetail:
    """One audit commit with its full unified diff against its first parent (or nothing)."""

    info: CommitInfo
    diff: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LineOrigin:
    """Where one line of a tracked file comes from.

    Attributes:
        line: the line's text (without its newline).
        sha: the commit that last added it, or None when no commit holds it (not committed
            yet) or the line is blank.
        subject: that commit's subject (``dream: manual``, ``edit: SOUL.md``, ...).
        author: that commit's author.
        time: that commit's time.
        at_or_before: True when the line was already there in the oldest commit read, so it
            was added at that commit or earlier.
    """

    line: str
    sha: str | None = None
    subject: str = ""
    author: str = ""
    time: datetime | None = None
    at_or_before: bool = False

    @property
    def short(self) -> str:
        """The abbreviated sha ('' without a commit)."""
        return "" if self.sha is None else self.sha[:SHORT_SHA_LENGTH]
