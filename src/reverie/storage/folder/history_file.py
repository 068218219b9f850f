"""The history log's file: its append descriptor, validity checkpoint and torn-tail repair.

``LogFile`` is the machinery under ``HistoryLog`` (``reverie.storage.folder.history``), which
holds the operations and the invariants: it keeps one ``O_APPEND`` descriptor per process
(reopened when a trim renamed the file over it; ``.cursor`` keeps its own,
``descriptors.KeptFile``), the highest cursor it has seen at the end of the file (so an append
needs no read), and how far the file is known to be valid (``history_scan`` checkpoints, in
memory and in ``.reverie/history.checked``). Under the lock, a final line without its newline is
a dead writer's torn line: it is quarantined and cut off; a line that fails to parse is
quarantined and the file rewritten without it. Every method but ``close`` expects the caller to
hold the history lock. A forked child drops its parent's descriptor at the fork
(``os.register_at_fork``) and opens its own.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from reverie.core.entries import BadLine, nanobot_timestamp
from reverie.errors import CursorError, StorageError
from reverie.storage.folder.atomic import atomic_write
from reverie.storage.folder.history_read import count_lines_before, highest_cursor_in
from reverie.storage.folder.history_scan import Checkpoint, Scan, ScanMarker, scan_lines
from reverie.storage.folder.quarantine import Quarantine

if TYPE_CHECKING:
    from reverie.core.clock import Clock
    from reverie.storage.folder.cursors import CursorFloor, DreamCursor
    from reverie.storage.folder.locks import ProcessLock

_TAIL_CHUNK = 256 * 1024


class Tail(NamedTuple):
    """The end of the file as this process last saw it: inode, size, highest cursor.

    A named tuple: one is made on every append, at half a frozen dataclass's cost.
    """

    inode: int
    size: int
    cursor: int


class LogFile:
    """The file under ``HistoryLog``: descriptor, known-valid prefix, repair (see above)."""

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
        self._tail: Tail | None = None
        self._checked: tuple[int, Checkpoint] | None = None  # (inode, valid prefix) in memory
        self._stamp = (-1, "")
        _LOGS.add(self)

    def _floor_or_zero(self) -> int:
        try:
            return self._floor.read()
        except (CursorError, StorageError):  # damaged: doctor reports it; the log still counts
            return 0

    def close(self) -> None:
        """Close the descriptors (reopened on demand) and save how far the log is valid."""
        self._close_log()
        self._floor.close()

    def _close_log(self) -> None:
        if self._fd is not None and self._fd_pid == os.getpid():
            if self._checked is not None and self._checked[0] == self._fd_inode:
                checked = self._checked[1]
                self._marker.save(self._fd_inode, checked.offset, checked.cursor, checked.line)
            os.close(self._fd)
        self._fd = None

    def _forget_after_fork(self) -> None:
        """In a forked child: the parent's descriptor is not ours (our copy is closed)."""
        fd, self._fd, self._tail = self._fd, None, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

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
        if self._fd is not None:  # a forked child has none (``_forget_after_fork``)
            status = os.fstat(self._fd)
            if status.st_nlink > 0:
                return self._fd, status.st_size
        self._close_log()
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
        self._tail = Tail(self._fd_inode, size, last)
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


_LOGS: weakref.WeakSet[LogFile] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for log in list(_LOGS):
        log._forget_after_fork()  # noqa: SLF001 -- the module's own fork hook


os.register_at_fork(after_in_child=_after_fork_in_child)
