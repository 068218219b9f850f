"""The journal session store: one append-only journal per conversation under ``sessions/``.

The older backend: SQLite (``sessions_sqlite``) is the default, and opening a workspace with it
moves these journals into the database (``session_migration``; see docs/storage.md). This
store stays as the source of that move and as ``session_store="journal"``.

Storage model. ``sessions/<stem>.journal`` (stem from ``session_keys``) holds the records of
``session_records``: a head, then messages and small state records in the order they were
written. Appending a message writes one line with one ``write`` on an ``O_APPEND``
descriptor; changing the mark, summary or metadata appends one state record. Loading replays
the journal. Nothing ever rewrites the file to save a message, so persisting one costs O(1)
whatever the session's length; a stale in-memory ``Session`` cannot overwrite anything.

Invariants.
- Every write to a journal happens under that session's ``ProcessLock`` (threads and
  processes), so concurrent appenders interleave whole records and each keeps its order.
- Each process caches a ``Tally`` per journal (inode, size, head, counts). Under the lock it
  reads only what other processes appended since, so an append stays O(1) amortised, and it
  sees a rewrite (new inode) or a re-created journal (new head) and reads it afresh.
- A final line without its newline, met under the lock, is a torn write of a dead process:
  it is quarantined and cut off before anything is appended. A line that fails to parse is
  quarantined with its line number, then the journal is rewritten without it. Readers never
  block on the lock; they ignore an unterminated last line (it may be an append in progress).
- When superseded state records outnumber the live records (and at least ``snapshot_min``),
  the journal is replaced atomically by its snapshot; each rewrite is paid for by the
  records it drops, so the amortised cost per record stays O(1). A SIGKILL at any instant
  leaves the old journal or the new one, never a mix.
- ``redact`` (``forget``) is the one rewrite that changes messages: it replaces the journal
  atomically with its snapshot in which the forgotten messages are tombstones (``redaction``).
- ``list()`` reads per-session checkpoints (``session_index``) plus whatever was appended
  after them: O(number of sessions) when the checkpoints are fresh.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.clock import Clock, require_aware
from reverie.errors import SessionError, StorageError
from reverie.session import ArchivedSummary, Session, SessionInfo, safe_mark
from reverie.store.journal_file import JournalFile, JournalShared, read_tally, read_whole
from reverie.store.lock_pool import LockPool
from reverie.store.quarantine import Quarantine
from reverie.store.redaction import redactor
from reverie.store.session_index import SessionIndex
from reverie.store.session_keys import is_stem, key_to_stem, lock_name, stem_to_key
from reverie.store.session_records import (
    MarkRecord,
    MessageRecord,
    MetadataRecord,
    Record,
    SummaryRecord,
    records_for,
)

if TYPE_CHECKING:
    from reverie.messages import JSONValue, Message
    from reverie.store.session_journal import Contents, Tally

logger = logging.getLogger(__name__)

JOURNAL_SUFFIX = ".journal"
_REPLAYS_KEPT = 32


class SessionStore:
    """Session journals in one folder, with their checkpoints, locks and quarantine."""

    def __init__(
        self,
        directory: Path,
        *,
        state_dir: Path,
        locks_dir: Path,
        clock: Clock,
        snapshot_min: int = 64,
    ) -> None:
        self.directory = directory
        self.quarantine = Quarantine(state_dir / "sessions.quarantine.jsonl")
        self._index = SessionIndex(state_dir / "sessions")
        self._locks = LockPool(locks_dir)
        self._clock = clock
        self._cache: dict[str, Tally] = {}
        self._directory_made = False
        # The last replay of recently loaded sessions: the next load reads only what was
        # appended since (journal identity checked), so a turn's loads cost O(new records).
        self._replays: OrderedDict[str, tuple[Tally, Contents]] = OrderedDict()
        self._replays_lock = threading.Lock()
        self._shared = JournalShared(
            index=self._index,
            cache=self._cache,
            quarantine=self.quarantine,
            clock=self._now,
            snapshot_min=snapshot_min,
            unsaved=set(),
        )

    def path(self, key: str) -> Path:
        """Return the journal file of ``key`` (always directly inside the store's folder)."""
        return self.directory / (key_to_stem(key) + JOURNAL_SUFFIX)

    def append(self, key: str, message: Message) -> int:
        """Persist one message at the end of session ``key`` (created if new).

        Returns:
            The message's index in the session. When this returns, the record is in the
            file: a crash of this process afterwards cannot lose it.
        """
        return self.append_many(key, (message,)).start

    def append_many(self, key: str, messages: Iterable[Message]) -> range:
        """Persist several messages, in order, with one write; return their indices."""
        at = self._now()
        records = [MessageRecord(at=at, message=message) for message in messages]
        with self._journal(key) as journal:
            first = journal.tally.messages
            journal.write(records)
        return range(first, first + len(records))

    def load(self, key: str) -> Session:
        """Return session ``key`` as stored now (an empty, unsaved session if there is none)."""
        found = read_whole(self.path(key), self._replays.get(key))
        if found is not None and found[2]:
            self.repair(key)
            found = read_whole(self.path(key))
        if found is None:
            self._replays.pop(key, None)
            now = self._now()
            return Session(key=key, created_at=now, updated_at=now)
        tally, contents, _bad = found
        self._remember(key, tally, contents)
        _check_key(key, tally, self.path(key))
        return self._session(key, tally, contents)

    def exists(self, key: str) -> bool:
        """Return whether session ``key`` has a journal."""
        return self.path(key).is_file()

    def list(self) -> list[SessionInfo]:
        """Return every session's key, times, message count, mark and journal size.

        Costs O(number of sessions) when checkpoints are fresh, plus reading what was
        appended since they were written. Sorted by key.
        """
        infos = []
        for path in _journal_paths(self.directory):
            info = self._info(path)
            if info is not None:
                infos.append(info)
        return sorted(infos, key=lambda info: info.key)

    def info(self, key: str) -> SessionInfo | None:
        """What ``list()`` reports about one session, without listing the others (None: none)."""
        path = self.path(key)
        return self._info(path) if path.exists() else None

    def delete(self, key: str) -> bool:
        """Delete session ``key``; return whether it existed."""
        stem = key_to_stem(key)
        with self._locks.hold(lock_name(key)):
            self._cache.pop(stem, None)
            self._index.remove(stem)
            try:
                self.path(key).unlink()
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise StorageError(f"cannot delete ({exc.strerror})", path=self.path(key)) from exc
        logger.info("deleted session %s", key)
        return True

    def set_compacted_upto(self, key: str, upto: int) -> SessionInfo:
        """Set the compaction mark of session ``key``.

        Raises:
            ValueError: ``upto`` is outside ``0..message count``.
        """
        with self._journal(key) as journal:
            if safe_mark(upto, journal.tally.messages) is None:
                raise ValueError(f"mark {upto!r} is outside 0..{journal.tally.messages}")
            journal.write([MarkRecord(at=self._now(), upto=upto)])
            return self._info_of(key, journal.tally)

    def set_summary(self, key: str, text: str, last_active: datetime) -> SessionInfo:
        """Record the latest archived summary of session ``key``."""
        summary = ArchivedSummary(text=text, last_active=require_aware(last_active))
        return self._write_state(key, SummaryRecord(at=self._now(), summary=summary))

    def clear_summary(self, key: str) -> SessionInfo:
        """Forget the archived summary of session ``key`` (once it has been shown)."""
        return self._write_state(key, SummaryRecord(at=self._now(), summary=None))

    def update_metadata(self, key: str, values: Mapping[str, JSONValue]) -> SessionInfo:
        """Merge ``values`` into the metadata of session ``key`` (other keys are kept)."""
        return self._write_state(key, MetadataRecord(at=self._now(), values=dict(values)))

    def put(self, session: Session) -> SessionInfo:
        """Replace session ``session.key`` with ``session`` (used to import sessions).

        The journal is written whole and atomically; every record is stamped with
        ``session.updated_at``.
        """
        head, records = records_for(session, journal_id=secrets.token_hex(8))
        with self._journal(session.key) as journal:
            journal.replace(head, records)
            return self._info_of(session.key, journal.tally)

    def repair(self, key: str) -> None:
        """Re-check session ``key``'s whole journal and rewrite it without bad lines.

        A torn tail and every line that fails to parse go to the quarantine first.
        Costs O(session length); ``load`` and ``list`` call it when they meet a bad line.
        """
        if self.exists(key):
            with self._journal(key) as journal:
                journal.rewrite()

    def redact(self, key: str, indices: Collection[int], *, summary: bool = False) -> None:
        """Replace the messages at ``indices`` with tombstones (``forget``); see ``redaction``.

        With ``summary``, the archived summary goes too. The journal is rewritten atomically
        under the session's lock; indices, the compaction mark and metadata are kept.
        """
        if self.exists(key):
            with self._journal(key) as journal:
                journal.rewrite(redactor(indices, summary=summary))
        self._replays.pop(key, None)

    def close(self) -> None:
        """Write checkpoints for the journals this process knows, and close lock files."""
        for stem in list(self._shared.unsaved):
            self._shared.unsaved.discard(stem)
            tally = self._cache.get(stem)
            if tally is not None:
                self._index.save(stem, tally)
        self._locks.close()

    def _now(self) -> datetime:
        return require_aware(self._clock())

    @contextmanager
    def _journal(self, key: str) -> Iterator[JournalFile]:
        stem = key_to_stem(key)
        self._ensure_directory()
        with self._locks.hold(lock_name(key)):
            journal = JournalFile.open_locked(
                key=key,
                stem=stem,
                path=self.directory / (stem + JOURNAL_SUFFIX),
                shared=self._shared,
            )
            try:
                yield journal
            finally:
                journal.close()

    def _ensure_directory(self) -> None:
        """Create the journal folder on the first write (opening a workspace creates none)."""
        if self._directory_made:
            return
        try:
            self.directory.mkdir(exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create ({exc.strerror})", path=self.directory) from exc
        self._directory_made = True

    def _write_state(self, key: str, record: Record) -> SessionInfo:
        with self._journal(key) as journal:
            journal.write([record])
            return self._info_of(key, journal.tally)

    def _remember(self, key: str, tally: Tally, contents: Contents) -> None:
        with self._replays_lock:
            self._replays[key] = (tally, contents)
            self._replays.move_to_end(key)
            while len(self._replays) > _REPLAYS_KEPT:
                self._replays.popitem(last=False)

    def _session(self, key: str, tally: Tally, contents: Contents) -> Session:
        created = tally.created_at or self._now()
        return Session(
            key=key,
            created_at=created,
            updated_at=tally.updated_at or created,
            messages=tuple(contents.messages),
            metadata=contents.metadata,
            compacted_upto=self._checked_mark(key, tally),
            summary=contents.summary,
        )

    def _checked_mark(self, key: str, tally: Tally) -> int:
        mark = safe_mark(tally.mark, tally.messages)
        if mark is None:
            logger.warning(
                "session %s: compaction mark %r is outside 0..%d; replaying from 0",
                key,
                tally.mark,
                tally.messages,
            )
            return 0
        return mark

    def _info_of(self, key: str, tally: Tally) -> SessionInfo:
        created = tally.created_at or self._now()
        return SessionInfo(
            key=key,
            created_at=created,
            updated_at=tally.updated_at or created,
            message_count=tally.messages,
            compacted_upto=self._checked_mark(key, tally),
            size=tally.size,
        )

    def _info(self, path: Path) -> SessionInfo | None:
        stem = path.name.removesuffix(JOURNAL_SUFFIX)
        known = self._cache.get(stem) or self._index.load(stem)
        found = read_tally(path, known)
        if found is None:
            return None
        tally, bad = found
        key = stem_to_key(stem) or tally.key
        if key is None or tally.key not in (None, key):
            logger.warning("skipping journal %s: its name and its head disagree on the key", path)
            return None
        if bad or (tally.size and not tally.head):
            self.repair(key)
            repaired = self._cache.get(stem)
            return None if repaired is None else self._info_of(key, repaired)
        if tally is not known:
            self._cache[stem] = tally
            self._index.save(stem, tally)
            self._shared.unsaved.discard(stem)
        return self._info_of(key, tally)


def _journal_paths(directory: Path) -> list[Path]:
    try:
        names = os.listdir(directory)  # noqa: PTH208 -- names only, no Path per stray file
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(f"cannot list ({exc.strerror})", path=directory) from exc
    return [
        directory / name
        for name in names
        if name.endswith(JOURNAL_SUFFIX) and is_stem(name.removesuffix(JOURNAL_SUFFIX))
    ]


def _check_key(key: str, tally: Tally, path: Path) -> None:
    if tally.key is not None and tally.key != key:
        raise SessionError(f"journal belongs to session {tally.key!r}, not {key!r}", path=path)
