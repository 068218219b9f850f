"""Validation scans of the history log, and the marker that makes them incremental.

``scan_lines`` parses every complete line from a start offset and sorts them into good lines
(kept verbatim, with their cursor) and bad ones (unparseable, or an invalid cursor). A valid
entry whose cursor is not above the highest one before it was written by another program
(nanobot appending at the same moment): it stays in the file, where that program reads it (and
``doctor`` reports it); the scan's ``last_cursor`` is the highest cursor seen, never lowered by
such a line. ``ScanMarker`` remembers how far the file was last found
valid (inode, size, highest cursor) in ``.reverie/history.checked``, so opening a workspace
parses only what was appended since. The marker is a cache: when missing, unreadable, or
describing another file (different inode, larger than the file now is, or an offset that does
not end a line holding the checkpoint's cursor: inode numbers are reused), the scan starts from
byte 0.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from reverie.core.entries import BadLine, EntryFormatError, HistoryEntry
from reverie.errors import StorageError
from reverie.storage.folder.atomic import atomic_write_text

_BACK_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A byte offset known to end a valid prefix, its line number, and the last cursor in it."""

    offset: int
    line: int
    cursor: int


@dataclass(slots=True)
class Scan:
    """The result of a scan from ``start``: good lines as (cursor, raw bytes), bad lines."""

    start: int
    start_line: int
    last_cursor: int
    good: list[tuple[int, bytes]] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)

    @property
    def end_line(self) -> int:
        """Lines in the file once the bad ones are gone."""
        return self.start_line + len(self.good)


class ScanMarker:
    """Where the last validation scan of the history log ended."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, inode: int) -> Checkpoint | None:
        """Return the checkpoint if it describes the file with ``inode``, else None."""
        try:
            obj = json.loads(self.path.read_text(encoding="utf-8"))
            if obj["inode"] != inode:
                return None
            return Checkpoint(int(obj["size"]), int(obj["line"]), int(obj["cursor"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, inode: int, size: int, cursor: int, line: int = 0) -> None:
        """Record that the file with ``inode`` is valid up to ``size`` bytes (best effort)."""
        text = json.dumps({"inode": inode, "size": size, "line": line, "cursor": cursor})
        # A cache: on a full or read-only disk, failing to save it costs a re-scan later.
        with contextlib.suppress(StorageError):
            atomic_write_text(self.path, text, durable=False)


def scan_lines(path: Path, checkpoint: Checkpoint | None) -> Scan:
    """Parse the complete lines of ``path`` after ``checkpoint`` (or from the start)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return Scan(start=0, start_line=0, last_cursor=0)
    with handle:
        size = handle.seek(0, 2)
        if checkpoint is None or checkpoint.offset > size or not _ends_entry(handle, checkpoint):
            checkpoint = Checkpoint(0, 0, 0)
        handle.seek(checkpoint.offset)
        scan = Scan(
            start=checkpoint.offset, start_line=checkpoint.line, last_cursor=checkpoint.cursor
        )
        offset, line_no = checkpoint.offset, checkpoint.line
        for raw in handle:
            line_no += 1
            if not raw.endswith(b"\n"):
                break  # a partial last line is handled by the torn-tail repair
            _sort_line(path, scan, raw, offset, line_no)
            offset += len(raw)
    return scan


def _ends_entry(handle: BinaryIO, checkpoint: Checkpoint) -> bool:
    """Whether the line that ends exactly at the checkpoint's offset has its cursor.

    Inode numbers are reused (ext4 gives a freed one to the next new file, so a log replaced
    twice by trim often has an earlier version's number): a checkpoint naming the right inode
    may still describe another file, and its offset may fall inside a line of this one.
    """
    end = checkpoint.offset
    if end == 0:
        return True
    handle.seek(end - 1)
    if handle.read(1) != b"\n":
        return False
    start = end - 1
    while start > 0:
        step = min(_BACK_CHUNK, start)
        handle.seek(start - step)
        newline = handle.read(step).rfind(b"\n")
        if newline >= 0:
            start = start - step + newline + 1
            break
        start -= step
    handle.seek(start)
    try:
        return HistoryEntry.from_line(handle.read(end - start)).cursor == checkpoint.cursor
    except EntryFormatError:
        return False


def _sort_line(path: Path, scan: Scan, raw: bytes, offset: int, line_no: int) -> None:
    if not raw.strip():
        scan.good.append((scan.last_cursor, raw))
        return
    try:
        cursor = HistoryEntry.from_line(raw).cursor
    except EntryFormatError as exc:
        scan.bad.append(BadLine(source=path, line=line_no, offset=offset, raw=raw, reason=str(exc)))
        return
    if cursor <= scan.last_cursor:
        scan.good.append((scan.last_cursor, raw))
        return
    scan.last_cursor = cursor
    scan.good.append((cursor, raw))
