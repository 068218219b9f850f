"""One session journal opened under its lock: catching up, appending, repairing, rewriting.

A ``JournalFile`` exists only while its session's ``ProcessLock`` is held (the store opens it
inside ``LockPool.hold``), so everything here may assume no other reverie process writes the
file meanwhile. Opening it brings the process's ``Tally`` up to the end of the file: it reads
only the bytes after the cached tally (or after the on-disk checkpoint), cuts a torn tail into
the quarantine, and rewrites the journal when a line fails to parse or the head is missing.

The cached tally is replaced, never mutated, and only after the bytes it describes are in the
file, so a failed write leaves a cache that the next open simply corrects.
``read_tally`` is the lock-free counterpart used by ``list()``: it never writes.
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.errors import SessionError, StorageError
from reverie.store.appends import write_all
from reverie.store.atomic import atomic_write
from reverie.store.quarantine import BadLine, Quarantine
from reverie.store.session_journal import Contents, Tally, fold, read_journal, snapshot
from reverie.store.session_records import HeadRecord, Record, encode

if TYPE_CHECKING:
    from reverie.store.session_index import SessionIndex


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalShared:
    """What every journal of one store shares: checkpoints, cache, quarantine, clock."""

    index: SessionIndex
    cache: dict[str, Tally]
    quarantine: Quarantine
    clock: Callable[[], datetime]
    snapshot_min: int
    unsaved: set[str]
    """Journals whose cached tally is newer than their checkpoint."""


class JournalFile:
    """A journal descriptor and a tally of the whole file, valid while the lock is held."""

    def __init__(self, *, key: str, stem: str, path: Path, shared: JournalShared) -> None:
        self.key, self.stem, self.path = key, stem, path
        self._shared = shared
        self._fd = _open_append(path)
        self.tally = Tally(inode=-1)

    @classmethod
    def open_locked(cls, *, key: str, stem: str, path: Path, shared: JournalShared) -> JournalFile:
        """Open the journal (creating it) and catch up with it; the caller holds the lock."""
        journal = cls(key=key, stem=stem, path=path, shared=shared)
        try:
            journal._catch_up()
        except BaseException:
            journal.close()
            raise
        return journal

    def close(self) -> None:
        """Close the descriptor."""
        os.close(self._fd)

    def write(self, records: Sequence[Record]) -> None:
        """Append ``records`` (after a head, for a new journal) with one write."""
        tally = self.tally.copy()
        chunks = []
        if tally.size == 0:
            first = records[0] if records else None
            created = first.at if first and not isinstance(first, HeadRecord) else None
            head = HeadRecord(
                key=self.key,
                journal_id=secrets.token_hex(8),
                created_at=created or self._shared.clock(),
            )
            chunks.append(_fold_line(tally, head))
        chunks.extend(_fold_line(tally, record) for record in records)
        _write_all(self._fd, b"".join(chunks), self.path)
        self._publish(tally)
        if tally.superseded >= max(self._shared.snapshot_min, tally.live_records):
            self.rewrite()

    def replace(self, head: HeadRecord, records: Sequence[Record]) -> None:
        """Replace the whole journal, atomically, with ``head`` and ``records``."""
        tally = Tally(inode=-1)
        data = b"".join(_fold_line(tally, record) for record in (head, *records))
        self._install(data, tally)

    def _catch_up(self) -> None:
        size = os.fstat(self._fd).st_size
        tally = self._known()
        if tally.size < size:
            tally = tally.copy()
            bad = read_journal(self._fd, self.path, tally)
            self._cut_torn_tail(tally, size)
            if bad or not tally.head:
                self.tally = tally
                self.rewrite()
                return
        if tally.key is not None and tally.key != self.key:
            raise SessionError(
                f"journal belongs to {tally.key!r}, not {self.key!r}", path=self.path
            )
        self._publish(tally)

    def _known(self) -> Tally:
        status = os.fstat(self._fd)
        shared = self._shared
        for candidate in (shared.cache.get(self.stem), shared.index.load(self.stem)):
            if candidate is not None and describes(candidate, self._fd, status):
                return candidate
        return Tally(inode=status.st_ino)

    def _cut_torn_tail(self, tally: Tally, size: int) -> None:
        if size <= tally.size:
            return
        raw = os.pread(self._fd, size - tally.size, tally.size)
        bad = BadLine(
            source=self.path,
            line=tally.lines + 1,
            offset=tally.size,
            raw=raw,
            reason="torn last line",
        )
        self._shared.quarantine.keep([bad], now=self._shared.clock())
        try:
            os.ftruncate(self._fd, tally.size)
        except OSError as exc:
            raise StorageError(f"cannot cut torn tail ({exc.strerror})", path=self.path) from exc

    def rewrite(self, edit: Callable[[Contents], None] | None = None) -> None:
        """Replace the journal with its snapshot, quarantining lines that fail to parse.

        ``edit``, when given, changes the replayed contents first (``redaction``): the
        snapshot then holds the edited messages and summary, and nothing of the old lines.
        """
        tally, contents = Tally(inode=-1), Contents()
        bad = read_journal(self._fd, self.path, tally, contents)
        if edit is not None:
            edit(contents)
        self._shared.quarantine.keep(bad, now=self._shared.clock())
        if tally.key is not None and tally.key != self.key:
            raise SessionError(
                f"journal belongs to {tally.key!r}, not {self.key!r}", path=self.path
            )
        # A new journal id on every rewrite: the file may get the old inode number back, and
        # a process whose cached tally matched inode, size and head would then read the new
        # file from a stale offset. The fresh head makes every cached tally fail the check.
        created = tally.created_at or self._shared.clock()
        head = encode(HeadRecord(key=self.key, journal_id=secrets.token_hex(8), created_at=created))
        tally.key, tally.created_at = self.key, created
        data = snapshot(head, tally, contents)
        tally.head, tally.size, tally.lines = head, len(data), data.count(b"\n")
        tally.marks, tally.summaries = min(tally.marks, 1), min(tally.summaries, 1)
        tally.metas = min(tally.metas, 1)
        self._install(data, tally)

    def _install(self, data: bytes, tally: Tally) -> None:
        atomic_write(self.path, data)
        os.close(self._fd)
        self._fd = _open_append(self.path)
        tally.inode = os.fstat(self._fd).st_ino
        self._publish(tally)
        self._shared.index.save(self.stem, tally)
        self._shared.unsaved.discard(self.stem)

    def _publish(self, tally: Tally) -> None:
        self.tally = tally
        self._shared.cache[self.stem] = tally
        self._shared.unsaved.add(self.stem)


def describes(tally: Tally, fd: int, status: os.stat_result) -> bool:
    """Return whether ``tally`` describes a prefix of the open journal ``fd``."""
    if tally.inode != status.st_ino or tally.size > status.st_size:
        return False
    if not tally.head:
        return tally.size == 0
    return os.pread(fd, len(tally.head), 0) == tally.head


def _open_read(path: Path) -> int | None:
    try:
        # O_NOFOLLOW: a journal that is a symlink is never read or appended through.
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot open ({_why(exc)})", path=path) from exc


def read_tally(path: Path, known: Tally | None) -> tuple[Tally, list[BadLine]] | None:
    """Without the lock, bring ``known`` (or a fresh tally) up to the end of ``path``.

    Returns:
        The tally and the lines that failed to parse, or None when the journal is gone.
    """
    fd = _open_read(path)
    if fd is None:
        return None
    try:
        status = os.fstat(fd)
        if known is None or not describes(known, fd, status):
            known = Tally(inode=status.st_ino)
        if known.size == status.st_size:
            return known, []
        tally = known.copy()
        return tally, read_journal(fd, path, tally)
    finally:
        os.close(fd)


def read_whole(
    path: Path, known: tuple[Tally, Contents] | None = None
) -> tuple[Tally, Contents, bool] | None:
    """Without the lock, replay the whole journal at ``path``.

    With ``known`` (an earlier replay of this journal), only what was appended since is read
    when ``known`` still describes a prefix of the file (same inode and head line); a
    rewritten or replaced journal is replayed from the start.

    Returns:
        The tally, the contents, and whether the journal needs a repair (a line failed to
        parse, or it has no head); None when there is no journal.
    """
    fd = _open_read(path)
    if fd is None:
        return None
    try:
        status = os.fstat(fd)
        if known is not None and describes(known[0], fd, status):
            tally, contents = known[0].copy(), known[1].copy()
        else:
            tally, contents = Tally(inode=status.st_ino), Contents()
        bad = read_journal(fd, path, tally, contents)
    finally:
        os.close(fd)
    return tally, contents, bool(bad) or (tally.size > 0 and not tally.head)


def _fold_line(tally: Tally, record: Record) -> bytes:
    raw = encode(record)
    fold(record, raw, tally)
    tally.lines += 1
    tally.size += len(raw)
    return raw


def _open_append(path: Path) -> int:
    try:
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        return os.open(path, flags, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open ({_why(exc)})", path=path) from exc


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "it is a symlink; reverie never reads or writes a journal through a link"
    return str(exc.strerror)


def _write_all(fd: int, data: bytes, path: Path) -> None:
    try:
        write_all(fd, data)
    except OSError as exc:
        raise StorageError(f"cannot append ({exc.strerror})", path=path) from exc
