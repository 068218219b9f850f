"""Bringing the index level with the history log and the journals, reading only what changed.

History. The index remembers the log file's identity (device, inode), its size and the last
cursor indexed. While the identity holds and the file has not shrunk, only entries after that
cursor are read (``read_since``: cost proportional to what is new). A new identity or a
smaller file means the log was rewritten (``trim``, a repair, a person's edit): the history
part of the index is dropped and re-read whole, so entries that left the log leave the index.
Trimmed entries are therefore not searchable. That is deliberate: the index is a cache that
may be rebuilt at any time, and an entry kept only in the cache would vanish at the next
rebuild anyway; the messages a trimmed summary came from stay searchable in their session.

Sessions. Per session the index remembers how many messages it holds, the journal size it
saw, and a fingerprint of those messages (or the store's generation; ``marks``). It also
remembers the sessions database's watermark it caught up to (``StoreState.Watermark``: the
file's inode, its epoch, the last change number; see ``session_changes``). A catch-up reads,
in one snapshot of the sessions database, the watermark now and only the sessions changed
after the remembered one, plus the keys deleted after it: cost proportional to what changed,
not to the number of sessions. Each of those is compared with its own mark: one whose count
and size are unchanged is skipped without being read. Otherwise it is loaded; if its first
messages still match the fingerprint (or its generation still holds) only the new ones are
indexed, else (the session was replaced, redacted or made anew) it is indexed again from its
first message. A deleted session's messages and mark are removed. The new watermark is
stored in the same transaction as the marks it covers.

Every session is compared with its mark instead (the previous behaviour, O(sessions)) when
the watermark cannot be followed: the index has none (new, rebuilt, or older), the database
is another file (a new inode) or another database (another epoch), or its number went
backwards (put back from an older copy); a mark no longer listed is then removed. Where the
sessions database has no change sequence to read (an older file that cannot be upgraded,
such as one on a read-only mount), every session's counts come from ``StoreState.counts``
or ``SessionStore.list`` and no watermark is kept. ``only`` catches up one session (a scoped
query needs no other); the others wait for the next full catch-up, their marks and the
watermark untouched.

``is_current`` answers, reading only, whether a catch-up would change anything: a query that
finds the index level (the usual case) then opens no write transaction at all, and costs one
``stat`` of the log, one read of the index's ``meta`` and one row of the sessions database
(its watermark, equal to the index's: nothing changed since). ``only`` compares that
session's row with its mark; without a change sequence, the full comparison answers.

This module must not commit: the caller wraps a whole refresh in one transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.core.text import fingerprint, message_body
from reverie.storage.folder.index.marks import (
    Mark,
    counts_of,
    every_mark,
    log_mark,
    meta_marks,
    meta_value,
    read_mark,
    set_watermark,
)
from reverie.storage.folder.index.rows import delete_items, history_rows, insert_rows, message_row
from reverie.storage.folder.index.store_state import Changes, Counts, StoreState, Tail

if TYPE_CHECKING:
    from reverie.core.session import SessionInfo
    from reverie.storage.folder.history import HistoryLog
    from reverie.storage.folder.sessions_sqlite import SessionStore


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionCounts:
    """What catching up the sessions changed."""

    added: int = 0
    removed: int = 0
    reindexed: int = 0
    examined: int = 0
    """Sessions whose (count, size) were compared with their marks."""


def is_current(
    conn: sqlite3.Connection,
    log: HistoryLog,
    store: SessionStore,
    *,
    only: str | None = None,
    state: StoreState | None = None,
) -> bool:
    """Whether the index is level with the log and the journals (``only``: that session's).

    Reads only: one ``stat`` of the log, one read of the index's ``meta`` and, with ``state``,
    the sessions database's watermark (one row), which must equal the one the index last
    caught up to. Where the database has no watermark, ``state`` compares every session's
    counts with the marks (constant time while nothing was committed since the index was
    last found level). False when in any doubt; the caller then catches up under its write
    transaction, which checks again.
    """
    history, watermark = meta_marks(conn)
    if history != log_mark(log):
        return False
    if only is not None:
        info = store.info(only)
        row = conn.execute("SELECT messages, size FROM marks WHERE session_key = ?", (only,))
        mark = row.fetchone()
        if info is None:
            return mark is None
        return mark is not None and tuple(mark) == (info.message_count, info.size)
    if state is None:
        return _level(conn, {i.key: (i.message_count, i.size) for i in store.list()})
    now = state.watermark()
    if now is not None:
        return watermark == now
    return state.is_level(
        conn,
        lambda counts: _level(conn, counts),
        lambda: {i.key: (i.message_count, i.size) for i in store.list()},
    )


def _level(conn: sqlite3.Connection, counts: Counts) -> bool:
    return every_mark(conn) == counts


def catch_up_history(conn: sqlite3.Connection, log: HistoryLog) -> tuple[int, int]:
    """Index history entries that are new since the last refresh; return (added, removed)."""
    dev, inode, size = log_mark(log)
    identity = (dev, inode)
    seen = (meta_value(conn, "history_dev"), meta_value(conn, "history_inode"))
    removed = 0
    cursor = meta_value(conn, "history_cursor")
    if seen != identity or size < meta_value(conn, "history_size"):
        removed = delete_items(conn, "kind = 'history'", ())
        cursor, entries = 0, log.entries()
    else:
        entries = iter(log.read_since(cursor))
    added, last = insert_rows(conn, history_rows(entries))
    if last is not None:
        cursor = max(cursor, last)
    for name, value in (
        ("history_dev", identity[0]),
        ("history_inode", identity[1]),
        ("history_size", size),
        ("history_cursor", cursor),
    ):
        conn.execute("INSERT OR REPLACE INTO meta(name, value) VALUES (?, ?)", (name, value))
    return added, removed


def catch_up_sessions(
    conn: sqlite3.Connection,
    store: SessionStore,
    *,
    only: str | None = None,
    state: StoreState | None = None,
) -> SessionCounts:
    """Index new session messages, re-index rewritten sessions, drop deleted ones.

    With ``state``, only the sessions changed after the index's watermark are compared with
    their marks (every session when the watermark cannot be followed), and only those whose
    (count, size) differ from their mark are read through the store (``info``, ``load``).
    """
    changes = state.changes(meta_marks(conn)[1]) if state is not None and only is None else None
    listed, marked, gone = _scope(conn, store, only, state, changes)
    removed = sum(_forget_session(conn, key) for key in gone)
    added = reindexed = 0
    for key, now in listed.items():
        if marked.get(key) == now:
            continue
        mark = read_mark(conn, key) if key in marked else None
        info = store.info(key)
        if info is None:  # deleted since it was listed: the next catch-up forgets it
            continue
        tail = _tail(state, key, mark)
        if tail is not None:
            added += _index_tail(conn, key, tail)
            continue
        whole = state.tail(key, 0) if state is not None else None
        counts = _catch_up_session(conn, store, info, mark, whole)
        added, removed = added + counts.added, removed + counts.removed
        reindexed += counts.reindexed
    if only is None:
        set_watermark(conn, None if changes is None else changes.watermark)
    return SessionCounts(added=added, removed=removed, reindexed=reindexed, examined=len(listed))


def _scope(
    conn: sqlite3.Connection,
    store: SessionStore,
    only: str | None,
    state: StoreState | None,
    changes: Changes | None,
) -> tuple[Counts, Counts, set[str]]:
    """The sessions to compare (count, size by key), their marks, and the keys to forget.

    After a watermark: the sessions changed since, their marks alone, and the marked keys
    deleted since. ``only``: that session. Else every session, every mark, and the marked
    keys no longer listed.
    """
    if changes is not None and not changes.whole:
        gone = changes.deleted - changes.counts.keys()  # a key made anew has no tombstone
        marked = counts_of(conn, changes.counts.keys() | gone)
        return changes.counts, marked, set(marked.keys() & gone)
    if only is not None:
        info = store.info(only)
        listed = {} if info is None else {only: (info.message_count, info.size)}
        marked = counts_of(conn, {only})
        return listed, marked, set(marked.keys() - listed.keys())
    if changes is not None:
        listed = changes.counts
    else:
        counts = state.counts() if state is not None else None
        listed = (
            counts
            if counts is not None
            else {i.key: (i.message_count, i.size) for i in store.list()}
        )
    marked = every_mark(conn)
    return listed, marked, set(marked.keys() - listed.keys())


def _catch_up_session(
    conn: sqlite3.Connection,
    store: SessionStore,
    info: SessionInfo,
    mark: Mark | None,
    whole: Tail | None,
) -> SessionCounts:
    """Index a session from its first message, or after a prefix its fingerprint matches.

    ``whole``: the session read in one snapshot with its generation (recorded in the mark);
    without it, the store's ``load`` and no generation.
    """
    if whole is not None:
        messages, size, generation = whole.messages, whole.size, whole.generation
    else:
        messages, size, generation = store.load(info.key).messages, info.size, None
    bodies = [message_body(message) for message in messages]
    roles = [message.role for message in messages]
    start, removed, reindexed = 0, 0, 0
    if mark is not None:
        same = mark.messages <= len(messages) and mark.fingerprint == fingerprint(
            roles[: mark.messages], bodies[: mark.messages]
        )
        if same:
            start = mark.messages
        else:
            removed, reindexed = _forget_session(conn, info.key), 1
    rows = (
        message_row(
            info.key, index, messages[index], bodies[index], bodies[index - 1] if index else ""
        )
        for index in range(start, len(messages))
    )
    added, _ = insert_rows(conn, rows)
    conn.execute(
        "INSERT OR REPLACE INTO marks(session_key, messages, size, fingerprint, generation)"
        " VALUES (?, ?, ?, ?, ?)",
        (info.key, len(messages), size, fingerprint(roles, bodies), generation),
    )
    return SessionCounts(added=added, removed=removed, reindexed=reindexed)


def _tail(state: StoreState | None, key: str, mark: Mark | None) -> Tail | None:
    """The new messages alone, when the session's generation is the one its mark saw."""
    if state is None or mark is None or mark.generation is None or mark.messages < 1:
        return None
    tail = state.tail(key, mark.messages - 1)  # one message back: the first new one's context
    if tail is None or tail.generation != mark.generation or len(tail.messages) < 1:
        return None
    return tail


def _index_tail(conn: sqlite3.Connection, key: str, tail: Tail) -> int:
    """Index a tail's messages after its first (already indexed); the mark keeps no fingerprint.

    The mark's generation stands for the fingerprint: while it holds, the indexed messages
    are unchanged. When it changes, the empty fingerprint matches nothing, so the session is
    indexed again from its first message, which is right for a rewrite or a redaction.
    """
    bodies = [message_body(message) for message in tail.messages]
    rows = (
        message_row(key, tail.first + offset, tail.messages[offset], bodies[offset], before)
        for offset, before in enumerate(bodies[:-1], start=1)
    )
    added, _ = insert_rows(conn, rows)
    conn.execute(
        "INSERT OR REPLACE INTO marks(session_key, messages, size, fingerprint, generation)"
        " VALUES (?, ?, ?, '', ?)",
        (key, tail.count, tail.size, tail.generation),
    )
    return added


def _forget_session(conn: sqlite3.Connection, key: str) -> int:
    conn.execute("DELETE FROM marks WHERE session_key = ?", (key,))
    return delete_items(conn, "kind = 'message' AND session_key = ?", (key,))
