"""A person's changes on any backend: an edit of a durable file, a restore, dream's lock.

Both take the same road as a dream publish, so neither interleaves with a dream of any process
or server: they hold the workspace's ``dream`` lock (``hold_dream``: on a folder a lock file, on
PostgreSQL a lease every server honours) and under it first finish a publish a crash
interrupted (``DreamStores.finish_interrupted_publish``: a folder's journal; nothing on a
database), so no later recovery can roll an older publish over the change.

- ``edit_file``: a person (through the viewer, or any surface) replaces the text of a file
  dream may write (SOUL.md, USER.md, memory/MEMORY.md, skills/<name>/SKILL.md). The path goes
  through ``confine``'s text rules, then the backend's own check (``DreamFilesPort``: on a
  folder dream's strict link rule on the real tree); the change is one audit commit
  ``edit: <path>`` whose message is built from the real diff, with the person as author.
- ``restore``: the durable files, the skills and the dream cursor back as of a commit, as a
  new commit; refused with ``RestoreWouldLoseError`` when the commit is older than a trim
  (``rewind``), unless forced.

Invariants: nothing is written unless every check passed; text is stored with LF line ends
(browsers send CRLF) and ends with a newline when not empty; an edit made against a version of
the file that is no longer stored (``expected_sha256`` differs) is refused, so a person never
overwrites a dream or another edit they have not seen; an edit that changes nothing makes no
commit.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.core.durable import RELATIVE_PATHS
from reverie.core.writable import canonical_writable
from reverie.errors import EditError
from reverie.memory.dream.rewind import check_rewind

if TYPE_CHECKING:
    from collections.abc import Iterator

    from reverie.core.audit import CommitInfo
    from reverie.storage.ports import DreamStores

MAX_EDIT_CHARS = 64_000
"""The longest text a person may save into one durable file."""

EDIT_LOCK_TIMEOUT = 10.0
"""Seconds an edit waits for a running dream to finish before it reports the workspace busy."""

_NAMES = {path: name for name, path in RELATIVE_PATHS.items()}


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


@contextlib.contextmanager
def hold_dream(stores: DreamStores, *, timeout: float | None = None) -> Iterator[None]:
    """Hold the dream lock for a ``with`` block, after finishing an interrupted publish.

    Raises:
        LockTimeoutError: a dream held the lock for ``timeout`` seconds.
        DreamError: an interrupted publish could not be finished.
    """
    with stores.lock("dream").hold(timeout=timeout):
        stores.finish_interrupted_publish()
        yield


def restore(stores: DreamStores, rev: str, *, force: bool = False) -> CommitInfo:
    """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

    Holds the dream lock (waiting for a running dream) and first finishes an interrupted
    publish, so the restore cannot be rolled forward over later.

    Raises:
        RevisionNotFoundError: ``rev`` names no commit.
        RestoreWouldLoseError: ``rev`` is older than a trim (see ``rewind``), not forced.
        DreamError: an interrupted publish could not be recovered.
    """
    with hold_dream(stores):
        if not force:
            check_rewind(stores, rev)
        return stores.audit.restore(rev)


def edit_file(
    stores: DreamStores,
    path: str,
    text: str,
    *,
    author: str,
    expected_sha256: str | None = None,
    timeout: float = EDIT_LOCK_TIMEOUT,
) -> EditResult:
    """Replace a writable file's text and commit it with ``author`` (see the module docstring).

    Args:
        stores: the workspace.
        path: the file, as dream names it (``SOUL.md``, ``memory/MEMORY.md``, ...).
        text: the whole new text.
        author: the person, ``Name`` or ``Name <email>``.
        expected_sha256: ``text_sha256`` of the text the person started from; None skips the
            check.
        timeout: seconds to wait for a running dream.

    Raises:
        ConfinementError: the path is not writable or unsafe where the files live.
        EditError: the text is unacceptable or the file changed since ``expected_sha256``.
        LockTimeoutError: a dream kept the workspace busy for ``timeout`` seconds.
        ValueError: ``author`` is not a usable name.
    """
    canonical = canonical_writable(path)
    new_text = clean_edit(text, canonical)
    from reverie.core.audit import person_identity  # noqa: PLC0415 (dulwich: on use)

    person_identity(author)  # refuse a bad name before anything is written
    with hold_dream(stores, timeout=timeout):
        current = stores.dream_files.read(canonical)
        check_version(current, expected_sha256, canonical)
        if current == new_text:
            return EditResult(path=canonical, commit=None)
        name = _NAMES.get(canonical)
        if name is not None:
            stores.files.write(name, new_text)
        else:
            stores.skills.write(canonical, new_text)
        commit = stores.audit.commit(f"edit: {canonical}", author=author)
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
