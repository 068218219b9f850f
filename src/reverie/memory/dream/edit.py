"""A person's edit of a durable file: dream's confinement, dream's lock, one audit commit.

``edit_file`` is how a person (through the viewer, or any surface) replaces the text of a file
dream may write (SOUL.md, USER.md, memory/MEMORY.md, skills/<name>/SKILL.md). It takes the same
road as a dream publish, so the two can never interleave: the path goes through ``confine``
(text rules, then the real tree), the write happens while the caller holds the workspace's
``dream`` lock (``Dreamer.exclusive``, which first finishes an interrupted publish, so an edit
is never rolled back by a later recovery), and the change is one audit commit ``edit: <path>``
whose message is built from the real diff, with the person as author and reverie as committer.

Invariants: nothing is written unless every check passed; text is stored with LF line ends
(browsers send CRLF) and ends with a newline when not empty; an edit made against a version of
the file that is no longer on disk (``expected_sha256`` differs) is refused, so a person never
overwrites a dream or another edit they have not seen; an edit that changes nothing makes no
commit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

from reverie.errors import EditError, StorageError
from reverie.memory.dream.confine import canonical_writable
from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.layout import check_writable_on_disk

if TYPE_CHECKING:
    from reverie.storage.folder.audit import CommitInfo
    from reverie.storage.folder.workspace import Workspace

MAX_EDIT_CHARS = 64_000
"""The longest text a person may save into one durable file."""

EDIT_LOCK_TIMEOUT = 10.0
"""Seconds an edit waits for a running dream to finish before it reports the workspace busy."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EditResult:
    """What an edit did.

    Attributes:
        path: the canonical path edited (``memory/MEMORY.md``).
        commit: the ``edit: <path>`` commit, or None when the text was unchanged.
    """

    path: str
    commit: CommitInfo | None


def text_sha256(text: str) -> str:
    """The hex SHA-256 of ``text`` in UTF-8: the version stamp an editor sends back."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_writable(workspace: Workspace, path: str) -> str:
    """Return the current text of a file dream may write ('' when absent).

    Raises:
        ConfinementError: ``path`` is not a writable path, or reaching it is unsafe.
        StorageError: the file cannot be read.
    """
    canonical = canonical_writable(path)
    check_writable_on_disk(workspace.root, canonical)
    target = workspace.root / canonical
    try:
        return target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read {canonical} ({exc})", path=target) from exc


def edit_file(
    workspace: Workspace,
    path: str,
    text: str,
    *,
    author: str,
    exclusive: AbstractContextManager[object],
    expected_sha256: str | None = None,
) -> EditResult:
    """Replace a writable file's text and commit it with ``author`` (see the module docstring).

    Args:
        workspace: the workspace.
        path: the file, as dream names it (``SOUL.md``, ``memory/MEMORY.md``, ...).
        text: the whole new text.
        author: the person, ``Name`` or ``Name <email>``.
        exclusive: entered around the read-check-write-commit step; it must keep dreams out
            (``Dreamer.exclusive``).
        expected_sha256: ``text_sha256`` of the text the person started from; None skips the
            check.

    Raises:
        ConfinementError: the path is not writable or unsafe on disk.
        EditError: the text is unacceptable or the file changed since ``expected_sha256``.
        LockTimeoutError: ``exclusive`` timed out (a dream kept the workspace busy).
        ValueError: ``author`` is not a usable name.
    """
    canonical = canonical_writable(path)
    new_text = clean_edit(text, canonical)
    from reverie.storage.folder.audit_lines import person_identity  # noqa: PLC0415 (dulwich: on use)

    person_identity(author)  # refuse a bad name before anything is written
    with exclusive:
        current = read_writable(workspace, canonical)
        check_version(current, expected_sha256, canonical)
        if current == new_text:
            return EditResult(path=canonical, commit=None)
        atomic_write_text(workspace.root / canonical, new_text)
        commit = workspace.audit.commit(f"edit: {canonical}", author=author)
        return EditResult(path=canonical, commit=commit)


def check_version(current: str, expected_sha256: str | None, canonical: str) -> None:
    """Raise ``EditError`` when the file is no longer the version the person started from."""
    if expected_sha256 is not None and text_sha256(current) != expected_sha256:
        raise EditError(
            "the file changed since you opened it (a dream or another edit); "
            "reload it and edit again",
            path=canonical,
        )


def clean_edit(text: str, canonical: str) -> str:
    """The text to store: LF line ends, a final newline; ``EditError`` for NUL or too long."""
    cleaned = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in cleaned:
        raise EditError("the text holds a NUL character", path=canonical)
    if len(cleaned) > MAX_EDIT_CHARS:
        raise EditError(
            f"the text has {len(cleaned):,} characters, more than {MAX_EDIT_CHARS:,}",
            path=canonical,
        )
    if cleaned and not cleaned.endswith("\n"):
        cleaned += "\n"
    return cleaned
