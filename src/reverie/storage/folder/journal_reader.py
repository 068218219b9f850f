"""Reading a session journal an older reverie wrote, so that it can move into SQLite.

Before sessions lived in ``.reverie/sessions.sqlite3``, each was an append-only journal,
``sessions/<stem>.journal`` (stem from ``session_keys``), of the records of ``session_records``:
a head line, then ``msg``, ``mark``, ``summary`` and ``meta`` lines in the order they were
written. Nothing writes journals any more; ``read_journal`` reads one whole for
``session_migration`` and folds it into a ``Session``: the latest ``mark`` and ``summary``
win, ``meta`` keys merge in order, ``created_at`` is the head's (else the first record's) and
``updated_at`` the latest record's. A mark outside the session reads as 0, as a load did.

Damage. A last line without its newline is the torn write of a dead process; a line that
fails to parse (or a second head) is bad. Both go to the quarantine, with their line number
and offset, before anything else; then the journal is rewritten atomically without them, so a
second read (after a SIGKILL) neither quarantines them twice nor meets them. Nothing else is
dropped: every message line is kept verbatim. A journal that is a symlink is never read.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.core.session import ArchivedSummary, Session, safe_mark
from reverie.errors import StorageError
from reverie.storage.folder.atomic import atomic_write
from reverie.storage.folder.quarantine import BadLine, Quarantine
from reverie.storage.folder.session_keys import is_stem, stem_to_key
from reverie.storage.folder.session_records import (
    HeadRecord,
    MarkRecord,
    MessageRecord,
    MetadataRecord,
    Record,
    RecordFormatError,
    SummaryRecord,
    parse,
)

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject, Message

logger = logging.getLogger(__name__)

SUFFIX = ".journal"


@dataclass(frozen=True, slots=True, kw_only=True)
class Journal:
    """One journal read whole: its session, its message lines verbatim, and its identity."""

    session: Session
    lines: tuple[str, ...]
    """Each message's line without its newline: the SQLite store's message body."""
    digest: str
    """Unique per journal: the SHA-256 of its head line (which holds a random id), else of
    its key and bytes."""


@dataclass(slots=True)
class _Fold:
    key: str
    head: bytes = b""
    created: datetime | None = None
    updated: datetime | None = None
    messages: list[Message] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    mark: int = 0
    summary: ArchivedSummary | None = None
    metadata: JSONObject = field(default_factory=dict)


def journal_paths(directory: Path) -> list[Path]:
    """The journals in ``directory`` (names ``session_keys`` can produce), sorted."""
    try:
        names = os.listdir(directory)  # noqa: PTH208 -- names only, no Path per stray file
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(f"cannot list ({exc.strerror})", path=directory) from exc
    stems = sorted(n.removesuffix(SUFFIX) for n in names if n.endswith(SUFFIX))
    return [directory / (stem + SUFFIX) for stem in stems if is_stem(stem)]


def read_journal(path: Path, quarantine: Quarantine, now: datetime) -> Journal | None:
    """Read the journal at ``path`` (quarantining and cutting out damage first).

    Returns:
        The journal (one without any record is an empty session created ``now``, as the
        journal store showed it), or None when its head names another key than its file
        name: a warning says so, and the file is left as it is.

    Raises:
        StorageError: the journal cannot be read or repaired (or is a symlink).
    """
    data = _read(path)
    good, bad = _split(data, path)
    if bad:
        quarantine.keep(bad, now=now)
        data = b"".join(raw for raw, _ in good)
        atomic_write(path, data)
    named = stem_to_key(path.name.removesuffix(SUFFIX))
    head = good[0][1] if good and isinstance(good[0][1], HeadRecord) else None
    key = head.key if head is not None else named
    if key is None or named not in (None, key):
        logger.warning("journal %s left in place: its name and its head disagree on the key", path)
        return None
    fold = _Fold(key=key)
    for raw, record in good:
        _take(fold, raw, record)
    identity = fold.head or key.encode("utf-8") + b"\0" + data
    return Journal(session=_session(fold, now), lines=tuple(fold.lines), digest=_sha(identity))


def _read(path: Path) -> bytes:
    try:
        # O_NOFOLLOW: a journal that is a symlink is never read through.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        why = "it is a symlink" if exc.errno == errno.ELOOP else exc.strerror
        raise StorageError(f"cannot read the journal ({why})", path=path) from exc
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _split(data: bytes, path: Path) -> tuple[list[tuple[bytes, Record]], list[BadLine]]:
    """The lines that parse, with their records, and the bad ones (a torn tail last)."""
    good: list[tuple[bytes, Record]] = []
    bad: list[BadLine] = []
    *whole, tail = data.split(b"\n")
    offset = 0
    for number, text in enumerate(whole, start=1):
        raw = text + b"\n"
        try:
            record = parse(raw) if text.strip() else None
            if isinstance(record, HeadRecord) and number != 1:
                raise RecordFormatError("a head record after the first line")
        except RecordFormatError as exc:
            bad.append(BadLine(source=path, line=number, offset=offset, raw=raw, reason=str(exc)))
        else:
            if record is not None:
                good.append((raw, record))
        offset += len(raw)
    if tail:
        number = len(whole) + 1
        bad.append(
            BadLine(source=path, line=number, offset=offset, raw=tail, reason="torn last line")
        )
    return good, bad


def _take(fold: _Fold, raw: bytes, record: Record) -> None:
    if isinstance(record, HeadRecord):
        fold.head, fold.created = raw, record.created_at
        return
    fold.created = fold.created or record.at
    fold.updated = max(fold.updated or record.at, record.at)
    match record:
        case MessageRecord():
            fold.messages.append(record.message)
            fold.lines.append(raw[:-1].decode("utf-8"))  # it parsed: UTF-8
        case MarkRecord():
            fold.mark = record.upto
        case SummaryRecord():
            fold.summary = record.summary
        case MetadataRecord():
            fold.metadata.update(record.values)


def _session(fold: _Fold, now: datetime) -> Session:
    created = fold.created or now
    return Session(
        key=fold.key,
        created_at=created,
        updated_at=fold.updated or created,
        messages=tuple(fold.messages),
        metadata=fold.metadata,
        compacted_upto=safe_mark(fold.mark, len(fold.messages)) or 0,
        summary=fold.summary,
    )


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
