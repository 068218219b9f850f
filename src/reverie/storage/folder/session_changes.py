"""The sessions database's change sequence: which sessions changed, or left, after a number.

Storage model. Table ``changes`` holds one row: ``value``, the last change number handed out;
``epoch``, a random number drawn when the row was created (it tells this database from
another one that merely reuses its file's inode); and ``forgotten``, the highest number of a
tombstone dropped. Column ``sessions.changed`` holds the number of the session row's last
change, indexed; table ``deleted_sessions`` holds, per key whose row is gone, the number of
its deletion (indexed too). It loses that key again when a session of that key is created
anew, and keeps the newest ``TOMBSTONES`` only (``dream:`` transcripts are deleted on every
dream): a reader whose last number is below ``forgotten`` cannot learn from it which keys
left, and compares in full.

Triggers assign the numbers, so every writer does it, whatever code it runs: an insert of a
session row, an update that changes its ``messages``, ``size``, ``generation`` or ``key``
(every write of a session grows ``size``), and a delete each take ``value + 1`` and write it
to the row (or to the tombstone of the key that left).

Why a reader never misses a change. A trigger runs inside its writer's transaction, and
SQLite lets one writer at a time write (``BEGIN IMMEDIATE`` takes the write lock; in WAL mode
a transaction that started reading and then writes must be on the newest snapshot, else it
fails with ``SQLITE_BUSY_SNAPSHOT``). So ``value + 1`` reads the value the last committed
writer left, no two writers ever take one number, and numbers commit in increasing order:
a snapshot that reads ``value = V`` holds every change numbered up to V and none after it.
A reader that reads, in one snapshot, ``value`` and the rows and tombstones numbered above
its last ``value`` has therefore seen everything up to V, and nothing numbered V or lower can
commit later. Why tombstones and not one number bumped by a delete: a reader then learns
which keys left, at the cost of rows whose count is bounded by the keys ever deleted, where a
bare number would make it compare every session to find them; bounded, so a workspace that
deletes a session a day does not grow a table without end.

Invariants.
- ``value`` never decreases within one database (``epoch`` fixed); a database put back from
  an older copy may show a smaller one, or another inode, and a reader must then compare in
  full (``StoreState.changes``).
- ``prepare`` upgrades an older database in place, in one write transaction, and is safe to
  run again and from several processes at once (the upgrade is decided inside that
  transaction). An upgraded database numbers its existing rows 0: a reader that holds no
  number for it compares in full once.
"""

from __future__ import annotations

import sqlite3

TOMBSTONES = 1000
"""Tombstones kept (the trigger's ``OFFSET``): a reader further behind compares in full."""

OBJECTS = (
    (
        "CREATE TABLE IF NOT EXISTS changes(id INTEGER PRIMARY KEY CHECK (id = 1),"
        " value INTEGER NOT NULL, epoch INTEGER NOT NULL, forgotten INTEGER NOT NULL)"
    ),
    "INSERT OR IGNORE INTO changes(id, value, epoch, forgotten) VALUES (1, 0, random(), 0)",
    "CREATE INDEX IF NOT EXISTS sessions_changed ON sessions(changed)",
    "CREATE TABLE IF NOT EXISTS deleted_sessions(key TEXT PRIMARY KEY, changed INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS deleted_sessions_changed ON deleted_sessions(changed)",
    (
        "CREATE TRIGGER IF NOT EXISTS sessions_inserted AFTER INSERT ON sessions BEGIN"
        " UPDATE changes SET value = value + 1 WHERE id = 1;"
        " UPDATE sessions SET changed = (SELECT value FROM changes WHERE id = 1)"
        " WHERE id = NEW.id;"
        " DELETE FROM deleted_sessions WHERE key = NEW.key; END"
    ),
    (
        "CREATE TRIGGER IF NOT EXISTS sessions_updated"
        " AFTER UPDATE OF messages, size, generation, key ON sessions"
        " WHEN OLD.messages IS NOT NEW.messages OR OLD.size IS NOT NEW.size"
        " OR OLD.generation IS NOT NEW.generation OR OLD.key IS NOT NEW.key BEGIN"
        " UPDATE changes SET value = value + 1 WHERE id = 1;"
        " UPDATE sessions SET changed = (SELECT value FROM changes WHERE id = 1)"
        " WHERE id = NEW.id;"
        " DELETE FROM deleted_sessions WHERE key = NEW.key;"
        " INSERT OR REPLACE INTO deleted_sessions(key, changed)"
        " SELECT OLD.key, value FROM changes WHERE id = 1 AND OLD.key IS NOT NEW.key; END"
    ),
    (
        "CREATE TRIGGER IF NOT EXISTS sessions_deleted AFTER DELETE ON sessions BEGIN"
        " UPDATE changes SET value = value + 1 WHERE id = 1;"
        " INSERT OR REPLACE INTO deleted_sessions(key, changed)"
        " SELECT OLD.key, value FROM changes WHERE id = 1; END"
    ),
    (
        "CREATE TRIGGER IF NOT EXISTS deleted_sessions_bounded AFTER INSERT ON deleted_sessions"
        " BEGIN UPDATE changes SET forgotten = max(forgotten, coalesce((SELECT changed"
        " FROM deleted_sessions ORDER BY changed DESC"
        " LIMIT 1 OFFSET 1000), 0)) WHERE id = 1;"  # TOMBSTONES
        " DELETE FROM deleted_sessions"
        " WHERE changed <= (SELECT forgotten FROM changes WHERE id = 1); END"
    ),
)
"""What numbers the changes, in the order it is created (the last one tells it is all there)."""

_NAMES = ("sessions_inserted", "sessions_updated", "sessions_deleted", "deleted_sessions_bounded")


def prepare(conn: sqlite3.Connection) -> None:
    """Make sure the change sequence exists, adding it to an older database in place.

    Reads only when it is there already (the usual open); else one ``BEGIN IMMEDIATE``
    transaction adds the column, the tables, the indexes and the triggers together.
    """
    if _complete(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
        if "changed" not in columns:  # decided under the write lock: one process adds it
            conn.execute("ALTER TABLE sessions ADD COLUMN changed INTEGER NOT NULL DEFAULT 0")
        for statement in OBJECTS:
            conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _complete(conn: sqlite3.Connection) -> bool:
    marks = ", ".join("?" for _ in _NAMES)
    sql = f"SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})"  # noqa: S608
    return bool(conn.execute(sql, _NAMES).fetchone()[0] == len(_NAMES))


def last(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """(epoch, value, forgotten): the epoch, the last number, the last tombstone dropped.

    Raises:
        sqlite3.Error: the database has no change sequence (older, not upgraded) or failed.
    """
    row = conn.execute("SELECT epoch, value, forgotten FROM changes WHERE id = 1").fetchone()
    if row is None:
        raise sqlite3.OperationalError("no change sequence row")
    return int(row[0]), int(row[1]), int(row[2])


def since(
    conn: sqlite3.Connection, after: int | None
) -> tuple[dict[str, tuple[int, int]], frozenset[str]]:
    """Sessions changed after number ``after`` (None: every session) and keys deleted since.

    The sessions come as (message count, size) by key. The caller runs this and ``last`` in
    one read transaction, so the number ``last`` reads covers exactly what this returns.
    """
    if after is None:
        rows = conn.execute("SELECT key, messages, size FROM sessions").fetchall()
        return {key: (count, size) for key, count, size in rows}, frozenset()
    rows = conn.execute(
        "SELECT key, messages, size FROM sessions WHERE changed > ?", (after,)
    ).fetchall()
    gone = conn.execute("SELECT key FROM deleted_sessions WHERE changed > ?", (after,))
    return {key: (count, size) for key, count, size in rows}, frozenset(k for (k,) in gone)
