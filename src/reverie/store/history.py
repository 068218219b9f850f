"""The history log: ``memory/history.jsonl``, append-only, one entry per line, numbered by cursor.

Storage model. Lines are appended in cursor order, so the file is sorted by cursor; that lets a
reader bisect on byte offsets instead of scanning (``read_since`` costs O(log N) small reads plus
the entries it returns). Nothing is cached across calls except this process's own last append,
so readers survive the file being trimmed or rewritten by another process.

Invariants.
- Cursor allocation and the write are one step under ``ProcessLock`` (threads and processes):
  cursors are unique, strictly increasing in file order, never reused (``memory/.cursor`` is
  the floor after a trim). A line is written with one ``write`` on an ``O_APPEND`` descriptor.
- A reader ignores a final line without its newline: it may be an append in progress.
- Under the lock, a final line without its newline is a torn write of a dead process; it is
  quarantined and cut off before anything else is appended (so it cannot swallow a new line).
- A line that fails to parse, or whose cursor is not above the line before it, is moved to the
  quarantine with its line number and original bytes by ``repair`` (run on open, on meeting a
  bad line while reading, and by ``trim``). Nothing is silently dropped.
- ``trim`` drops only entries the dream cursor has passed, rewriting the file atomically.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from reverie.clock import Clock
from reverie.errors import StorageError
from reverie.store.atomic import atomic_write
from reverie.store.cursors import CursorFloor, DreamCursor, validate_cursor
from reverie.store.entries import (
    HARD_CAP_CHARS,
    EntryFormatError,
    HistoryEntry,
    nanobot_timestamp,
    strip_reasoning,
    truncate,
)
from reverie.store.history_scan import Scan, ScanMarker, scan_lines
from reverie.store.locks import ProcessLock
from reverie.store.quarantine import BadLine, Quarantine

logger = logging.getLogger(__name__)

_BISECT_STOP = 16 * 1024
"""Below this many bytes between the bounds, a forward scan is cheaper than more probes."""
_TAIL_CHUNK = 256 * 1024
_TAIL_LIMIT = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class TrimResult:
    """What ``trim`` did: entries dropped and kept, and the last cursor dropped (0 if none)."""

    dropped: int
    kept: int
    dropped_through: int


@dataclass(frozen=True, slots=True)
class _Tail:
    inode: int
    size: int
    cursor: int


class HistoryLog:
    """``memory/history.jsonl`` with cursor allocation, bisecting reads, repair and trim."""

    def __init__(
        self,
        path: Path,
        *,
        floor: CursorFloor,
        dream_cursor: DreamCursor,
        lock: ProcessLock,
        quarantine: Quarantine,
        marker: ScanMarker,
        clock: Clock,
    ) -> None:
        self.path = path
        self._floor = floor
        self._dream_cursor = dream_cursor
        self._lock = lock
        self._quarantine = quarantine
        self._marker = marker
        self._clock = clock
        self._fd: int | None = None
        self._fd_inode = -1
        self._tail: _Tail | None = None

    def append(
        self, text: str, *, session_key: str | None = None, max_chars: int | None = None
    ) -> HistoryEntry:
        """Append one entry and return it with its new cursor.

        Leaked reasoning is stripped first, then the text is capped at ``max_chars`` (never
        more than 64,000). When this returns, the line is in the file: a crash of this
        process afterwards cannot lose it.
        """
        limit = HARD_CAP_CHARS if max_chars is None else min(max_chars, HARD_CAP_CHARS)
        content = truncate(strip_reasoning(text), limit)
        moment = self._clock()
        with self._lock.hold():
            fd = self._append_fd()
            last = self._last_cursor_locked(fd)
            entry = HistoryEntry(
                cursor=last + 1,
                timestamp=nanobot_timestamp(moment),
                content=content,
                session_key=session_key,
                time=moment,
            )
            line = entry.to_line()
            try:
                written = os.write(fd, line)
            except OSError as exc:
                raise StorageError(f"cannot append ({exc.strerror})", path=self.path) from exc
            if written != len(line):
                raise StorageError("short write while appending", path=self.path)
            size = os.fstat(fd).st_size
            self._tail = _Tail(self._fd_inode, size, entry.cursor)
            self._floor.advance(entry.cursor)
        return entry

    def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Return entries whose cursor is above ``cursor``, oldest first, at most ``limit``.

        Costs O(log N) small reads to find the start, then time proportional to what it returns.
        """
        validate_cursor(cursor)
        for _attempt in range(3):
            entries, bad = self._read_since_once(cursor, limit)
            if not bad:
                return entries
            self.repair()
        return entries

    def last_cursor(self) -> int:
        """Return the highest cursor handed out so far (0 for a new log)."""
        with self._lock.hold():
            return self._last_cursor_locked(self._append_fd())

    def entries(self) -> Iterator[HistoryEntry]:
        """Iterate over every valid entry, oldest first (bad lines are skipped, see ``repair``)."""
        with self._open_read() as handle:
            for line in _complete_lines(handle):
                try:
                    yield HistoryEntry.from_line(line)
                except EntryFormatError:
                    continue

    def repair(self) -> list[BadLine]:
        """Quarantine a torn tail and every invalid line not yet checked; return what moved.

        Only bytes after the last checked position are parsed, so repeated opens stay cheap.
        """
        with self._lock.hold():
            fd = self._append_fd()
            torn = self._cut_torn_tail(fd)
            scan = scan_lines(self.path, self._marker.load(self._fd_inode))
            if scan.bad:
                self._quarantine.keep(scan.bad, now=self._clock())
                self._rewrite_without(scan)
                fd = self._append_fd()
            self._marker.save(self._fd_inode, os.fstat(fd).st_size, scan.last_cursor, scan.end_line)
            return torn + scan.bad

    def trim(self, keep: int = 1000) -> TrimResult:
        """Drop the oldest entries the dream cursor has passed, keeping at least ``keep``.

        An entry dream has not read is never dropped, whatever ``keep`` says. The file is
        rewritten atomically under the lock, so concurrent appends wait and then land in the
        new file. Invalid lines met on the way are quarantined, never dropped.
        """
        if keep < 0:
            raise ValueError(f"keep must be >= 0, got {keep}")
        self.repair()
        with self._lock.hold():
            dreamt = self._dream_cursor.read()
            scan = scan_lines(self.path, None)
            lines = [(cursor, line) for cursor, line in scan.good if line.strip()]
            passed = sum(1 for cursor, _line in lines if cursor <= dreamt)
            drop = min(passed, max(0, len(lines) - keep))
            if drop == 0:
                return TrimResult(dropped=0, kept=len(lines), dropped_through=0)
            atomic_write(self.path, b"".join(line for _cursor, line in lines[drop:]))
            fd = self._append_fd()
            size = os.fstat(fd).st_size
            self._marker.save(self._fd_inode, size, lines[-1][0], len(lines) - drop)
            logger.info("trimmed history: dropped %d entries through cursor %d", drop, lines[drop - 1][0])
            return TrimResult(dropped=drop, kept=len(lines) - drop, dropped_through=lines[drop - 1][0])

    def close(self) -> None:
        """Close the append descriptor (it is reopened on demand)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _append_fd(self) -> int:
        """Return an O_APPEND descriptor on the file currently at ``path`` (caller holds lock)."""
        try:
            inode = os.stat(self.path).st_ino
        except FileNotFoundError:
            inode = -2
        except OSError as exc:
            raise StorageError(f"cannot stat ({exc.strerror})", path=self.path) from exc
        if self._fd is not None and inode == self._fd_inode:
            return self._fd
        self.close()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open ({exc.strerror})", path=self.path) from exc
        self._fd, self._fd_inode, self._tail = fd, os.fstat(fd).st_ino, None
        return fd

    def _last_cursor_locked(self, fd: int) -> int:
        size = os.fstat(fd).st_size
        tail = self._tail
        if tail is not None and tail.inode == self._fd_inode and tail.size == size:
            return tail.cursor
        self._cut_torn_tail(fd)
        last = max(self._floor.read(), _last_cursor_in_tail(fd))
        self._tail = _Tail(self._fd_inode, os.fstat(fd).st_size, last)
        return last

    def _cut_torn_tail(self, fd: int) -> list[BadLine]:
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return []
        start = size
        while start > 0:
            step = min(_TAIL_CHUNK, start)
            chunk = os.pread(fd, step, start - step)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                start = start - step + newline + 1
                break
            start -= step
        raw = os.pread(fd, size - start, start)
        line_no = _count_lines_before(fd, start) + 1
        bad = BadLine(source=self.path, line=line_no, offset=start, raw=raw, reason="torn last line")
        self._quarantine.keep([bad], now=self._clock())
        os.ftruncate(fd, start)
        self._tail = None
        return [bad]

    def _rewrite_without(self, scan: Scan) -> None:
        with self.path.open("rb") as handle:
            head = handle.read(scan.start)
        atomic_write(self.path, head + b"".join(line for _cursor, line in scan.good))
        self._append_fd()

    def _open_read(self) -> BinaryIO:
        try:
            return self.path.open("rb")
        except FileNotFoundError:
            return Path(os.devnull).open("rb")
        except OSError as exc:
            raise StorageError(f"cannot read ({exc.strerror})", path=self.path) from exc

    def _read_since_once(
        self, cursor: int, limit: int | None
    ) -> tuple[list[HistoryEntry], bool]:
        entries: list[HistoryEntry] = []
        with self._open_read() as handle:
            handle.seek(_bisect(handle, cursor))
            for line in _complete_lines(handle):
                if limit is not None and len(entries) >= limit:
                    break
                try:
                    entry = HistoryEntry.from_line(line)
                except EntryFormatError:
                    if line.strip():
                        return entries, True
                    continue
                if entry.cursor > cursor:
                    entries.append(entry)
        return entries, False


def _complete_lines(handle: BinaryIO) -> Iterator[bytes]:
    """Yield lines that end with a newline; a partial final line may be a write in progress."""
    for line in handle:
        if not line.endswith(b"\n"):
            return
        yield line


def _probe(handle: BinaryIO, offset: int, stop: int) -> tuple[int, int] | None:
    """Return (start, cursor) of the first valid line starting in [offset, stop), if any."""
    handle.seek(offset)
    if offset > 0:
        handle.seek(offset - 1)
        handle.readline()  # finish the line that ``offset`` falls inside
    while (start := handle.tell()) < stop:
        line = handle.readline()
        if not line.endswith(b"\n"):
            return None
        try:
            return start, HistoryEntry.from_line(line).cursor
        except EntryFormatError:
            continue
    return None


def _bisect(handle: BinaryIO, cursor: int) -> int:
    """Return a line start at or before the first line whose cursor is above ``cursor``."""
    lo, hi = 0, os.fstat(handle.fileno()).st_size
    while hi - lo > _BISECT_STOP:
        mid = (lo + hi) // 2
        found = _probe(handle, mid, hi)
        if found is None:
            hi = mid
        elif found[1] > cursor:
            hi = found[0]
        else:
            handle.seek(found[0])
            lo = found[0] + len(handle.readline())
    return lo


def _last_cursor_in_tail(fd: int) -> int:
    """Return the cursor of the last valid line, reading backwards in growing chunks (0 if none)."""
    size = os.fstat(fd).st_size
    chunk = 8 * 1024
    while True:
        start = max(0, size - chunk)
        lines = os.pread(fd, size - start, start).split(b"\n")
        for line in reversed(lines[1:] if start > 0 else lines):
            if not line.strip():
                continue
            try:
                return HistoryEntry.from_line(line).cursor
            except EntryFormatError:
                continue
        if start == 0 or chunk >= _TAIL_LIMIT:
            return 0
        chunk *= 8


def _count_lines_before(fd: int, offset: int) -> int:
    count, position = 0, 0
    while position < offset:
        chunk = os.pread(fd, min(1 << 20, offset - position), position)
        count += chunk.count(b"\n")
        position += len(chunk)
    return count
