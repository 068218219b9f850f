"""Replaying a session journal: the running tally, the full contents, and the snapshot form.

Reading. ``read_journal`` parses the complete lines of an open journal from where a ``Tally``
stopped to the end of the file and folds them in, so a process that has seen a journal before
reads only what others appended since. A final line without its newline is not read: to a
reader it may be an append in progress (the store, holding the lock, knows it is torn). Lines
that fail to parse are returned as ``BadLine`` values with their line number and offset; this
module never drops or moves them (the store quarantines them and rewrites the journal).

Folding. ``mark`` and ``summary`` records replace earlier ones; ``meta`` records merge their
keys in order. The records a later one replaced are *superseded*; ``Tally.superseded`` counts
them so the store can decide when a snapshot pays off.

Snapshot. ``snapshot`` builds the shortest journal with the same meaning: the head, every
message line verbatim, and one record each of mark, summary and merged metadata (keeping the
time of the latest record of each kind). This module does no I/O beyond ``os.pread`` on a
descriptor the caller owns.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.store.quarantine import BadLine
from reverie.store.session_records import (
    HeadRecord,
    MarkRecord,
    MessageRecord,
    MetadataRecord,
    Record,
    RecordFormatError,
    SummaryRecord,
    encode,
    parse,
)

if TYPE_CHECKING:
    from reverie.messages import JSONObject, Message
    from reverie.session import ArchivedSummary

_CHUNK = 1 << 20


@dataclass(slots=True, kw_only=True)
class Tally:
    """What is known about a journal's first ``size`` bytes, without its messages."""

    inode: int
    size: int = 0
    lines: int = 0
    head: bytes = b""
    key: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    messages: int = 0
    mark: int = 0
    marks: int = 0
    summaries: int = 0
    metas: int = 0

    @property
    def superseded(self) -> int:
        """Records a later record of the same kind replaced (or merged into)."""
        return sum(max(0, count - 1) for count in (self.marks, self.summaries, self.metas))

    @property
    def live_records(self) -> int:
        """Records a snapshot of this journal would hold."""
        kinds = (self.marks, self.summaries, self.metas)
        return 1 + self.messages + sum(1 for count in kinds if count)

    def copy(self) -> Tally:
        """Return an independent copy."""
        return replace(self)


@dataclass(slots=True)
class Contents:
    """Everything a full replay yields beyond the tally: messages, summary, metadata."""

    messages: list[Message] = field(default_factory=list)
    message_lines: list[bytes] = field(default_factory=list)
    summary: ArchivedSummary | None = None
    metadata: JSONObject = field(default_factory=dict)
    mark_at: datetime | None = None
    summary_at: datetime | None = None
    metadata_at: datetime | None = None

    def copy(self) -> Contents:
        """Return a copy that can be extended without changing this one."""
        return replace(
            self,
            messages=list(self.messages),
            message_lines=list(self.message_lines),
            metadata=dict(self.metadata),
        )


def read_journal(
    fd: int, source: Path, tally: Tally, contents: Contents | None = None
) -> list[BadLine]:
    """Fold the complete lines after ``tally.size`` into ``tally`` (and ``contents``).

    Returns:
        The lines that failed to parse (the tally skips them; ``size`` moves past them).
    """
    bad: list[BadLine] = []
    carry = b""
    offset = tally.size
    while chunk := os.pread(fd, _CHUNK, offset + len(carry)):
        data = carry + chunk
        end = data.rfind(b"\n") + 1
        for raw in data[:end].split(b"\n")[:-1]:
            _take(raw + b"\n", source, tally, contents, bad)
        offset += end
        carry = data[end:]
    return bad


def _take(
    raw: bytes, source: Path, tally: Tally, contents: Contents | None, bad: list[BadLine]
) -> None:
    line_no, offset = tally.lines + 1, tally.size
    tally.lines += 1
    tally.size += len(raw)
    if not raw.strip():
        return
    try:
        record = parse(raw)
        if isinstance(record, HeadRecord) and line_no != 1:
            raise RecordFormatError("a head record after the first line")
    except RecordFormatError as exc:
        bad.append(BadLine(source=source, line=line_no, offset=offset, raw=raw, reason=str(exc)))
        return
    fold(record, raw, tally, contents)


def fold(record: Record, raw: bytes, tally: Tally, contents: Contents | None = None) -> None:
    """Apply one parsed record (whose line is ``raw``) to ``tally`` and ``contents``."""
    if isinstance(record, HeadRecord):
        tally.head, tally.key, tally.created_at = raw, record.key, record.created_at
        return
    if tally.created_at is None:
        tally.created_at = record.at
    if tally.updated_at is None or record.at > tally.updated_at:
        tally.updated_at = record.at
    if contents is None:
        _count(record, tally)
    else:
        _collect(record, raw, tally, contents)


def _count(record: Record, tally: Tally) -> None:
    match record:
        case MessageRecord():
            tally.messages += 1
        case MarkRecord():
            tally.mark, tally.marks = record.upto, tally.marks + 1
        case SummaryRecord():
            tally.summaries += 1
        case MetadataRecord():
            tally.metas += 1


def _collect(record: Record, raw: bytes, tally: Tally, contents: Contents) -> None:
    _count(record, tally)
    match record:
        case MessageRecord():
            contents.messages.append(record.message)
            contents.message_lines.append(raw)
        case MarkRecord():
            contents.mark_at = record.at
        case SummaryRecord():
            contents.summary, contents.summary_at = record.summary, record.at
        case MetadataRecord():
            contents.metadata.update(record.values)
            contents.metadata_at = record.at


def snapshot(head: bytes, tally: Tally, contents: Contents) -> bytes:
    """Return the compact journal equivalent to ``tally`` and ``contents`` (head first)."""
    parts = [head, *contents.message_lines]
    if contents.mark_at is not None:
        parts.append(encode(MarkRecord(at=contents.mark_at, upto=tally.mark)))
    if contents.summary_at is not None:
        parts.append(encode(SummaryRecord(at=contents.summary_at, summary=contents.summary)))
    if contents.metadata_at is not None:
        parts.append(encode(MetadataRecord(at=contents.metadata_at, values=contents.metadata)))
    return b"".join(parts)
