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

import itertools
import json
import logging
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from reverie.core.clock import require_aware
from reverie.core.cursors import validate_cursor
from reverie.core.entries import (
    BadLine,
    EntryFormatError,
    HistoryEntry,
    TrimResult,
    prepared_content,
)
from reverie.errors import CursorError, InputError, StorageError
from reverie.storage.folder.appends import write_all
from reverie.storage.folder.atomic import atomic_write
from reverie.storage.folder.history_file import LogFile, Tail
from reverie.storage.folder.history_read import (
    complete_lines,
    count_passed,
    entries_after,
    highest_cursor_in,
    newest_after,
    quick_cursor,
)

logger = logging.getLogger(__name__)


class HistoryLog(LogFile):
    """``memory/history.jsonl`` with cursor allocation, bisecting reads, repair and trim."""

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

        Leaked reasoning is stripped first, secrets are redacted (``reverie.core.redact``: an entry
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
            self._tail = Tail(self._fd_inode, before + written, entry.cursor)
            self._extend_checked(before, written, entry.cursor)
            self._floor.advance(entry.cursor, just_read=True)  # read by _last_cursor_locked
        return entry

    def read_cursors(self, cursors: Collection[int]) -> list[HistoryEntry]:
        """Return the entries of ``cursors`` that are in the log, oldest first.

        Each is one ``read_since`` (O(log N) small reads): the file has no key to batch on.
        """
        found: list[HistoryEntry] = []
        for cursor in sorted(set(cursors)):
            if cursor > 0 and (got := self.read_since(cursor - 1, 1)) and got[0].cursor == cursor:
                found.append(got[0])
        return found

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
        session_key: str | None = None,
        accept: Callable[[HistoryEntry], bool] | None = None,
        max_lines: int = 5_000,
    ) -> list[HistoryEntry]:
        """Return up to ``limit`` of the newest entries above ``since``, newest first.

        Reads backwards from the end of the file and stops at ``since`` or after ``max_lines``
        lines, so the cost is bounded whatever the file's size. With ``session_key``, a line
        without the key's JSON text is skipped unparsed, and an entry of another session (a
        line holding the key elsewhere) is left out; ``accept`` filters entries.
        """
        needle = None
        if session_key is not None:
            needle = json.dumps(session_key, ensure_ascii=False).encode()
            accept = _of_session(session_key, accept)
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

    def import_entries(self, entries: Sequence[HistoryEntry], *, floor: int = 0) -> int:
        """Write entries with their own cursors into an empty log (moving a workspace here).

        Cursors must be strictly increasing; the last cursor handed out becomes the highest
        of them and ``floor`` (a source whose newest entries were trimmed or forgotten).
        Returns how many were written.

        Raises:
            InputError: the log is not empty, or the cursors are not strictly increasing.
        """
        cursors = [entry.cursor for entry in entries]
        if any(b <= a for a, b in itertools.pairwise(cursors)):
            raise InputError("imported entries must have strictly increasing cursors")
        with self._lock.hold():
            fd, size = self._append_fd()
            if self._last_cursor_locked(fd, size) > 0:
                raise InputError(f"the history log {self.path} is not empty")
            atomic_write(self.path, b"".join(entry.to_line() for entry in entries))
            fd, size = self._append_fd()
            self._save_checkpoint(size, self._last_cursor_locked(fd, size), len(entries))
            if max([floor, *cursors]) > 0:
                self._floor.advance(max([floor, *cursors]))
        return len(entries)

    def trim(self, keep: int = 1000) -> TrimResult:
        """Drop the oldest entries the dream cursor has passed, keeping at least ``keep``.

        An entry dream has not read is never dropped, whatever ``keep`` says. The file is
        rewritten atomically under the lock, so concurrent appends wait and then land in the
        new file. Invalid lines are quarantined first (``repair``), never dropped.
        """
        if keep < 0:
            raise InputError(f"keep must be >= 0, got {keep}")
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

    def _read_since_once(self, cursor: int, limit: int | None) -> tuple[list[HistoryEntry], bool]:
        with self._open_read() as handle:
            return entries_after(handle, cursor, limit)


def _of_session(
    key: str, accept: Callable[[HistoryEntry], bool] | None
) -> Callable[[HistoryEntry], bool]:
    """``accept`` for the entries of session ``key`` only."""
    return lambda entry: entry.session_key == key and (accept is None or accept(entry))
