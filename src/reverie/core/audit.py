"""Audit values: a commit of the durable files, the files it changed, where a line comes from.

Every change to SOUL.md, USER.md and MEMORY.md is a commit a person can read, diff and
restore; these are the values the audit hands up to the engine, the CLI and the viewer
(``CommitInfo``, ``CommitDetail``, ``FileChange``, ``LineOrigin``), whichever backend keeps
the commits. This module does no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from reverie.errors import InputError


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


AuditState = Literal["ok", "missing", "replaced", "empty", "foreign"]
"""ok: the recorded repository is there; missing: ``.git`` is gone; replaced: its root commit
is not the recorded one; empty: it has no commit; foreign: it is a project's repository
(``audit_foreign``: never written)."""


REPAIR_HINT = "run `reverie doctor --repair-audit` to start a new audit repository"


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditIntegrity:
    """The state of the audit repository against its record, and what to do about it."""

    state: AuditState
    detail: str = ""

    @property
    def ok(self) -> bool:
        """True when the repository is the recorded one."""
        return self.state == "ok"


_IDENTITY = re.compile(r"([^<>\x00-\x1f]+?) *<([^<>\x00-\x1f\s]*)>")


_NAME = re.compile(r"[^<>\x00-\x1f]+")


def person_identity(author: str) -> bytes:
    """Return a git identity for a person: ``Name <email>`` kept, a bare ``Name`` given one.

    Raises:
        InputError: the name is blank or holds ``<``, ``>`` or control characters.
    """
    cleaned = author.strip()
    whole = _IDENTITY.fullmatch(cleaned)
    if whole is not None:
        return f"{whole.group(1).strip()} <{whole.group(2)}>".encode()
    if not cleaned or _NAME.fullmatch(cleaned) is None:
        raise InputError(f"an author is 'Name' or 'Name <email>', got {author!r}")
    return f"{cleaned} <{cleaned.replace(' ', '.').lower()}@localhost>".encode()
