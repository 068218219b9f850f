"""The history log: ``memory/history.jsonl``, append-only, one entry per line, numbered by cursor.

Storage model. Lines are appended in cursor order, so the file is sorted by cursor; that lets a
reader bisect on byte offsets instead of scanning (``read_since`` costs O(log N) small reads plus
the entries it returns). Nothing is cached across calls except this process's own last append,
so readers survive the file being trimmed or rewritten by another process.

Invariants.
- Cursor allocation and the write are one step under ``ProcessLock`` (threads and processes):
  cursors are unique, strictly increasing in file order, never reused (``memory/.cursor`` is
  the floor after a trim). A line is appended on an ``O_APPEND`` descriptor (``store.appends``:
  a short write is retried until the line is complete, or it raises).
- Another program writing the file without that lock (nanobot, whose lock is thread-only) may
  leave a cursor at or below one already there. Each new cursor still exceeds every cursor in
  the file and in ``.cursor``, whatever order they are in, and such a line stays in the file
  (it is valid, and its writer reads it there); ``doctor`` reports it.
- A reader ignores a final line without its newline: it may be an append in progress.
- Under the lock, a final line without its newline is a torn write of a dead process; it is
  quarantined and cut off before anything else is appended (so it cannot swallow a new line).
- A line that fails to parse is moved to the
  quarantine with its line number and original bytes by ``repair`` (run on open, on meeting a
  bad line while reading, and by ``trim``). Nothing is silently dropped.
- ``trim`` drops only entries the dream cursor has passed, rewriting the file atomically;
  ``edit`` (``forget``) rewrites or drops named entries the same way. Neither reuses a cursor.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from reverie.clock import require_aware
from reverie.errors import CursorError, StorageError
from reverie.store.appends import write_all
from reverie.store.atomic import atomic_write
from reverie.store.cursors import CursorFloor, DreamCursor, validate_cursor
from reverie.store.entries import (
    EntryFormatError,
    HistoryEntry,
    nanobot_timestamp,
    prepared_content,
)
from reverie.store.history_read import (
    complete_lines,
    count_lines_before,
    count_passed,
    entries_after,
    highest_cursor_in,
    newest_after,
    quick_cursor,
)
from reverie.store.history_scan import Checkpoint, Scan, ScanMarker, scan_lines
from reverie.store.quarantine import BadLine, Quarantine

if TYPE_CHECKING:
    from reverie.clock import Clock
    from reverie.store.locks import ProcessLock

logger = logging.getLogger(__name__)

_TAIL_CHUNK = 256 * 1024


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
        self._fd_pid = 0
        self._fd_inode = -1
        self._tail: _Tail | None = None
        self._checked: tuple[int, Checkpoint] | None = None  # (inode, valid prefix) in memory
        self._stamp = (-1, "")

    def append(
        self,
        text: str,
        *,
        session_key: str | None = None,
        max_chars: int | None = None,
        source_range: tuple[int, int] | None = None,
        kind: str | None = None,
        at: datetime | None = None,
    ) -> HistoryEntry:
        """Append one entry and return it with its new cursor.

        Leaked reasoning is stripped first, secrets are redacted (``reverie.redact``: an entry
        never keeps one, whoever wrote it), then the text is capped at ``max_chars`` (never
        more than 64,000). When this returns, the line is in the file: a crash of this
        process afterwards cannot lose it.

        Args:
            text: the entry's content.
            session_key: the session it came from (None for workspace-wide entries).
            max_chars: a tighter cap than the 64,000-char hard cap.
            source_range: the session messages ``[start, end)`` a compaction entry covers.
            kind: what produced it (``summary``, ``raw``, ``import``, ...).
            at: when what it records happened (default: now); times need not be monotonic,
                only cursors are.
        """
        content = prepared_content(text, max_chars)
        moment = require_aware(at) if at is not None else self._clock()
        with self._lock.hold():
            fd, size = self._append_fd()
            last = self._last_cursor_locked(fd, size)
            before = self._tail.size if self._tail is not None else size
            entry = HistoryEntry(
                cursor=last + 1,
                timestamp=self._timestamp(moment),
                content=content,
                session_key=session_key,
                time=moment,
                range=source_range,
                kind=kind,
            )
            line = entry.to_line()
            try:
                written = write_all(fd, line)
            except OSError as exc:
                raise StorageError(f"cannot append ({exc.strerror})", path=self.path) from exc
            # We hold the lock and write with O_APPEND: the new size needs no fstat.
            self._tail = _Tail(self._fd_inode, before + written, entry.cursor)
            self._extend_checked(before, written, entry.cursor)
            self._floor.advance(entry.cursor)
        return entry

    def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Return entries whose cursor is above ``cursor``, oldest first, at most ``limit``.

        Costs O(log N) small reads to find the start, then time proportional to what it returns.
        A bad line met on the way is quarantined (``repair``) and the read is retried.
        """
        validate_cursor(cursor)
        for _attempt in range(3):
            entries, bad = self._read_since_once(cursor, limit)
            if not bad:
                break
            try:
                self.repair()
            except StorageError:  # cannot write (read-only or full): bad lines stay skipped
                break
        return entries

    def read_recent(
        self,
        since: int,
        *,
        limit: int,
        needle: bytes | None = None,
        accept: Callable[[HistoryEntry], bool] | None = None,
        max_lines: int = 5_000,
    ) -> list[HistoryEntry]:
        """Return up to ``limit`` of the newest entries above ``since``, newest first.

        Reads backwards from the end of the file and stops at ``since`` or after ``max_lines``
        lines, so the cost is bounded whatever the file's size. Lines without ``needle``
        (e.g. a session key's JSON text) are skipped unparsed; ``accept`` filters entries.
        """
        with self._open_read() as handle:
            return newest_after(
                handle, since, limit=limit, needle=needle, accept=accept, max_lines=max_lines
            )

    def last_cursor(self) -> int:
        """Return the highest cursor handed out so far (0 for a new log).

        When the lock or the log cannot be opened for writing (a read-only or full disk),
        the answer is read without the lock: an append in progress is not counted yet.
        """
        try:
            with self._lock.hold():
                fd, size = self._append_fd()
                return self._last_cursor_locked(fd, size)
        except (StorageError, CursorError):  # CursorError: a damaged .cursor (doctor says)
            with self._open_read() as handle:
                fd = handle.fileno()
                return max(self._floor_or_zero(), highest_cursor_in(fd, 0, os.fstat(fd).st_size))

    def _floor_or_zero(self) -> int:
        try:
            return self._floor.read()
        except (CursorError, StorageError):  # damaged: doctor reports it; the log still counts
            return 0

    def entries(self) -> Iterator[HistoryEntry]:
        """Iterate over every valid entry, oldest first (bad lines are skipped, see ``repair``)."""
        with self._open_read() as handle:
            for line in complete_lines(handle):
                try:
                    yield HistoryEntry.from_line(line)
                except EntryFormatError:
                    continue

    def repair(self) -> list[BadLine]:
        """Quarantine a torn tail and every invalid line not yet checked; return what moved.

        Only bytes after the last checked position are parsed, so repeated opens stay cheap.
        """
        with self._lock.hold():
            return self._repair_locked()

    def trim(self, keep: int = 1000) -> TrimResult:
        """Drop the oldest entries the dream cursor has passed, keeping at least ``keep``.

        An entry dream has not read is never dropped, whatever ``keep`` says. The file is
        rewritten atomically under the lock, so concurrent appends wait and then land in the
        new file. Invalid lines are quarantined first (``repair``), never dropped.
        """
        if keep < 0:
            raise ValueError(f"keep must be >= 0, got {keep}")
        with self._lock.hold():
            self._repair_locked()
            try:
                lines, drop = self._plan_trim(keep)
            except EntryFormatError:
                # A line damaged before the last checkpoint (a hand edit in place): scan the
                # whole file, quarantine what is bad (never drop it), and plan again.
                self._repair_locked(full=True)
                lines, drop = self._plan_trim(keep)
            if drop == 0:
                return TrimResult(dropped=0, kept=len(lines), dropped_through=0)
            through = HistoryEntry.from_line(lines[drop - 1]).cursor
            atomic_write(self.path, b"".join(lines[drop:]))
            fd, size = self._append_fd()
            self._save_checkpoint(size, self._last_cursor_locked(fd, size), len(lines) - drop)
            logger.info("trimmed history: dropped %d entries through cursor %d", drop, through)
            return TrimResult(dropped=drop, kept=len(lines) - drop, dropped_through=through)

    def edit(self, changes: Mapping[int, str | None]) -> list[HistoryEntry]:
        """Replace the content of entries by cursor, or drop them (None); for ``forget``.

        Returns the entries as they were before. The file is rewritten atomically under the
        lock, like ``trim``: every other line is kept byte for byte, cursors and order stay,
        ``.cursor`` keeps the floor (a dropped last cursor is never handed out again), and a
        reader following cursors sees a gap, as after a trim.
        """
        with self._lock.hold():
            self._repair_locked(full=True)
            with self.path.open("rb") as handle:
                lines = [line for line in handle if line.strip()]
            out: list[bytes] = []
            before: list[HistoryEntry] = []
            for line in lines:
                entry = HistoryEntry.from_line(line)
                if entry.cursor not in changes:
                    out.append(line)
                    continue
                before.append(entry)
                content = changes[entry.cursor]
                if content is not None:
                    out.append(replace(entry, content=content).to_line())
            if not before:
                return []
            atomic_write(self.path, b"".join(out))
            fd, size = self._append_fd()
            self._save_checkpoint(size, self._last_cursor_locked(fd, size), len(out))
        logger.info("edited %d history entries", len(before))
        return before

    def close(self) -> None:
        """Close the append descriptor (reopened on demand) and save how far the log is valid."""
        if self._fd is not None and self._fd_pid == os.getpid():
            if self._checked is not None and self._checked[0] == self._fd_inode:
                checked = self._checked[1]
                self._marker.save(self._fd_inode, checked.offset, checked.cursor, checked.line)
            os.close(self._fd)
        self._fd = None

    def _timestamp(self, moment: datetime) -> str:
        # Formatting local time costs microseconds; entries within one minute share the text.
        minute = int(moment.timestamp()) // 60
        if self._stamp[0] != minute:
            self._stamp = (minute, nanobot_timestamp(moment))
        return self._stamp[1]

    def _append_fd(self) -> tuple[int, int]:
        """Return an O_APPEND descriptor on the live file and its size (caller holds the lock).

        A descriptor whose file was renamed over (a trim by any process) has no links left;
        then the path is reopened, so no append ever lands in an unlinked file.
        """
        if self._fd is not None and self._fd_pid == os.getpid():
            status = os.fstat(self._fd)
            if status.st_nlink > 0:
                return self._fd, status.st_size
        self.close()
        try:
            # O_NOFOLLOW: never append through a symlink (the layout refuses one at open).
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open ({exc.strerror})", path=self.path) from exc
        status = os.fstat(fd)
        self._fd, self._fd_pid, self._fd_inode, self._tail = fd, os.getpid(), status.st_ino, None
        return fd, status.st_size

    def _extend_checked(self, before: int, written: int, cursor: int) -> None:
        """Our own line is valid by construction: grow the known-valid prefix past it."""
        if self._checked is None:
            return
        inode, checked = self._checked
        if inode == self._fd_inode and checked.offset == before:
            self._checked = (inode, Checkpoint(before + written, checked.line + 1, cursor))

    def _checkpoint(self) -> Checkpoint | None:
        saved = self._marker.load(self._fd_inode)
        if self._checked is not None and self._checked[0] == self._fd_inode:
            mine = self._checked[1]
            if saved is None or saved.offset < mine.offset:
                return mine
        return saved

    def _save_checkpoint(self, size: int, cursor: int, line: int) -> None:
        self._checked = (self._fd_inode, Checkpoint(size, line, cursor))
        self._marker.save(self._fd_inode, size, cursor, line)

    def _last_cursor_locked(self, fd: int, size: int) -> int:
        """The highest cursor handed out by anyone: the file, ``.cursor``, and what we saw.

        ``.cursor`` is read every time, since another program may have raised it without a
        line yet; the file's lines are read only past the prefix already known (our last
        append, or the validation checkpoint), and every one of them counts, since another
        writer may leave a stale cursor last.
        """
        floor = self._floor.read()
        tail = self._tail
        if tail is not None and tail.inode == self._fd_inode and tail.size == size:
            return max(tail.cursor, floor)
        self._cut_torn_tail(fd)
        size = os.fstat(fd).st_size
        start, known = self._known_prefix(size)
        last = max(floor, known, highest_cursor_in(fd, start, size))
        self._tail = _Tail(self._fd_inode, size, last)
        return last

    def _known_prefix(self, size: int) -> tuple[int, int]:
        """A line boundary up to which the highest cursor is known, and that cursor."""
        tail = self._tail
        if tail is not None and tail.inode == self._fd_inode and tail.size <= size:
            return tail.size, tail.cursor
        checkpoint = self._checkpoint()
        if checkpoint is not None and checkpoint.offset <= size:
            return checkpoint.offset, checkpoint.cursor
        return 0, 0

    def _plan_trim(self, keep: int) -> tuple[list[bytes], int]:
        """The log's non-blank lines and how many leading ones to drop.

        Raises:
            EntryFormatError: a line that would be dropped, or one bisection met, is invalid.
        """
        with self.path.open("rb") as handle:
            lines = [line for line in handle if line.strip()]
        passed = count_passed(lines, self._dream_cursor.read())
        drop = min(passed, max(0, len(lines) - keep))
        for line in lines[:drop]:
            # Only lines whose cursor reads as passed may leave; anything else is parsed, and a
            # line that fails raises so the caller quarantines it instead of dropping it.
            if quick_cursor(line) is None:
                HistoryEntry.from_line(line)
        return lines, drop

    def _repair_locked(self, *, full: bool = False) -> list[BadLine]:
        fd, _size = self._append_fd()
        torn = self._cut_torn_tail(fd)
        scan = scan_lines(self.path, None if full else self._checkpoint())
        if scan.bad:
            self._quarantine.keep(scan.bad, now=self._clock())
            self._rewrite_without(scan)
        fd, size = self._append_fd()
        self._save_checkpoint(size, scan.last_cursor, scan.end_line)
        # A crash between the line write and the floor update leaves .cursor one behind;
        # nanobot trusts that file, so bring it level.
        if self._floor.read() < scan.last_cursor:
            self._floor.advance(scan.last_cursor)
        return torn + scan.bad

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
        line_no = count_lines_before(fd, start) + 1
        bad = BadLine(
            source=self.path, line=line_no, offset=start, raw=raw, reason="torn last line"
        )
        self._quarantine.keep([bad], now=self._clock())
        os.ftruncate(fd, start)
        self._tail = None
        return [bad]

    def _rewrite_without(self, scan: Scan) -> None:
        with self.path.open("rb") as handle:
            head = handle.read(scan.start)
        atomic_write(self.path, head + b"".join(line for _cursor, line in scan.good))

    def _open_read(self) -> BinaryIO:
        try:
            return self.path.open("rb")
        except FileNotFoundError:
            return Path(os.devnull).open("rb")
        except OSError as exc:
            raise StorageError(f"cannot read ({exc.strerror})", path=self.path) from exc

    def _read_since_once(self, cursor: int, limit: int | None) -> tuple[list[HistoryEntry], bool]:
        with self._open_read() as handle:
            return entries_after(handle, cursor, limit)
