"""The dream publish journal: several files replaced as one, surviving a crash at any instant.

The journal is written (atomically, fsynced) before any file is replaced, and deleted only
after the caller has committed the diff and advanced the dream cursor::

    publish_files(journal)    bases checked, journal written, each file replaced atomically
    <caller>                  advances the dream cursor, commits the diff
    finish_publish(journal)   journal deleted

A crash before the journal exists leaves every file old (no file is touched before it exists);
once it exists, ``recover_publish`` rolls forward: it rewrites every file whose disk text
differs from its journaled text (idempotent) and hands back the cursor and trigger so the
caller can finish the commit and cursor, then call ``finish_publish``. So once recovery ran,
the files hold either all their old texts or all their new ones, never a mix.

Journal format (UTF-8 JSON object, version 1)::

    {"format": "reverie-dream-publish", "version": 1,
     "cursor": <int >= 0>, "trigger": <str>,
     "files": [{"path": "<writable canonical path>", "text": "<full new text>"}, ...]}

``cursor`` and ``trigger`` are the caller's: the dream cursor to advance to and the commit
subject's trigger. A reader refuses another ``format`` or a higher ``version``, and re-checks
every path against the writable set and on disk, so a tampered journal cannot make recovery
write elsewhere. This module does not commit, advance cursors or take locks; the caller holds
the dream lock around publish, commit, cursor and recovery.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reverie.core.cursors import validate_cursor
from reverie.core.writable import canonical_writable
from reverie.errors import ConfinementError, PublishConflictError, PublishJournalError, StorageError
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text, fsync_dir, sweep_temp_files
from reverie.storage.folder.layout import check_writable_on_disk

JOURNAL_FORMAT = "reverie-dream-publish"
JOURNAL_VERSION = 1
DEFAULT_JOURNAL = Path(layout.DREAM_JOURNAL)
"""Where the caller should keep the journal, relative to the workspace."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RecoveredPublish:
    """What an interrupted publish journal held, after its files were rolled forward."""

    cursor: int
    trigger: str
    files: Mapping[str, str]
    """Canonical path -> the text now on disk (the journaled new text)."""
    rewritten: tuple[str, ...]
    """Paths whose disk text differed from the journal and were rewritten by recovery."""


def write_journal(journal: Path, *, cursor: int, trigger: str, files: Mapping[str, str]) -> None:
    """Write the publish journal atomically and durably (see the module docstring).

    Raises:
        CursorError: ``cursor`` is not a non-negative integer.
        StorageError: the journal could not be written.
    """
    document = {
        "format": JOURNAL_FORMAT,
        "version": JOURNAL_VERSION,
        "cursor": validate_cursor(cursor),
        "trigger": trigger,
        "files": [{"path": path, "text": text} for path, text in sorted(files.items())],
    }
    try:
        journal.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create folder ({exc.strerror})", path=journal.parent) from exc
    atomic_write_text(journal, json.dumps(document, ensure_ascii=False))


def publish_files(
    root: Path,
    journal: Path,
    changes: Mapping[str, str],
    *,
    bases: Mapping[str, str],
    cursor: int,
    trigger: str,
) -> None:
    """Journal ``changes`` (canonical path -> text), then replace each file atomically.

    Always writes the journal, even with no changes, so a crash before the caller advances
    the cursor is recovered the same way. The caller then advances the cursor, commits and
    calls ``finish_publish(journal)``.

    Raises:
        PublishConflictError: a file's disk text is not its ``bases`` text (nothing written).
        ConfinementError: a path stopped being safe on disk (nothing was written).
        StorageError: a write failed (recovery will roll the journal forward).
    """
    for path in changes:
        check_writable_on_disk(root, path)
        if disk_text(root, path) != bases.get(path, ""):
            raise PublishConflictError(path)
    write_journal(journal, cursor=cursor, trigger=trigger, files=changes)
    for path, text in changes.items():
        replace_file(root, path, text)


def finish_publish(journal: Path) -> None:
    """Delete the journal once the commit and cursor are done (absent is fine)."""
    try:
        journal.unlink()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"cannot delete publish journal ({exc.strerror})", path=journal) from exc
    fsync_dir(journal.parent)


def recover_publish(root: Path, journal: Path) -> RecoveredPublish | None:
    """Roll an interrupted publish forward; None when no journal is left.

    The journal stays in place: the caller finishes the commit and cursor with what is
    returned, then calls ``finish_publish``. Safe to run any number of times. Temp files that
    killed writers left next to the journal and the journaled files are removed.

    Raises:
        PublishJournalError: the journal is unreadable, of another format or version, or names
            a path outside the writable set.
        ConfinementError: a journaled path is not safe on disk (a symlink was planted).
        StorageError: a file could not be rewritten.
    """
    sweep_temp_files(journal.parent)
    try:
        raw = journal.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise PublishJournalError(f"cannot read publish journal ({exc})", path=journal) from exc
    cursor, trigger, files = _parse_journal(raw, journal)
    for path in files:
        check_writable_on_disk(root, path)  # all before any write: refuse as a whole
    rewritten: list[str] = []
    for path, text in files.items():
        sweep_temp_files((root / path).parent)
        if disk_text(root, path, lenient=True) != text:
            replace_file(root, path, text)
            rewritten.append(path)
    return RecoveredPublish(cursor=cursor, trigger=trigger, files=files, rewritten=tuple(rewritten))


def _parse_journal(raw: str, journal: Path) -> tuple[int, str, dict[str, str]]:
    try:
        document = json.loads(raw)
    except ValueError as exc:
        raise PublishJournalError(f"publish journal is not JSON ({exc})", path=journal) from exc
    if not isinstance(document, dict) or document.get("format") != JOURNAL_FORMAT:
        raise PublishJournalError("not a reverie dream publish journal", path=journal)
    version, cursor, trigger = (
        document.get("version"),
        document.get("cursor"),
        document.get("trigger"),
    )
    if not isinstance(version, int) or isinstance(version, bool) or version > JOURNAL_VERSION:
        raise PublishJournalError(f"unknown publish journal version {version!r}", path=journal)
    if not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 0:
        raise PublishJournalError(f"invalid cursor {cursor!r} in publish journal", path=journal)
    if not isinstance(trigger, str) or not isinstance(document.get("files"), list):
        raise PublishJournalError("publish journal lacks 'trigger' or 'files'", path=journal)
    files: dict[str, str] = {}
    for item in document["files"]:
        path = item.get("path") if isinstance(item, dict) else None
        text = item.get("text") if isinstance(item, dict) else None
        if not isinstance(path, str) or not isinstance(text, str):
            raise PublishJournalError("a journal file entry lacks 'path' or 'text'", path=journal)
        try:
            canonical = canonical_writable(path)
        except ConfinementError as exc:
            raise PublishJournalError(
                f"journal names a forbidden path ({exc})", path=journal
            ) from exc
        if canonical != path:
            raise PublishJournalError(f"journal path {path!r} is not canonical", path=journal)
        files[path] = text
    return cursor, trigger, files


def disk_text(root: Path, canonical: str, *, lenient: bool = False) -> str:
    """Return a writable file's disk text ('' when absent; undecodable bytes replaced if lenient).

    Raises:
        StorageError: the file cannot be read, or (unless lenient) is not UTF-8.
    """
    target = root / canonical
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise StorageError(f"cannot read ({exc.strerror})", path=target) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if lenient:
            return data.decode("utf-8", errors="replace")
        raise StorageError("not UTF-8 text", path=target) from exc


def replace_file(root: Path, canonical: str, text: str) -> None:
    """Create missing folders (a new skill), re-check confinement, then replace atomically.

    Raises:
        ConfinementError: the path is not safe on disk.
        StorageError: a folder or the file could not be written.
    """
    parts = canonical.split("/")
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        if not folder.is_dir():
            check_writable_on_disk(root, canonical)
            try:
                with contextlib.suppress(FileExistsError):
                    folder.mkdir()
                fsync_dir(folder.parent)
            except OSError as exc:
                raise StorageError(f"cannot create folder ({exc.strerror})", path=folder) from exc
    check_writable_on_disk(root, canonical)
    atomic_write_text(root / canonical, text)
