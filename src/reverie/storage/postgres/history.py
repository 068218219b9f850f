"""The history log of one workspace in PostgreSQL: gap-free cursors shared by every server.

Storage model. One row per entry in ``history`` keyed by (workspace, cursor); the last cursor
handed out and the dream cursor live in the workspace's ``workspace_state`` row.

Invariants (DESIGN.md 1 and 2, across servers on different machines).
- Allocation and the insert are one transaction: ``UPDATE workspace_state SET last_cursor =
  last_cursor + n ... RETURNING`` takes the workspace's row lock, the rows are inserted, and
  the commit releases the lock. A second appender (any process, any machine) waits on the row
  lock and then reads the committed value, so cursors are unique and strictly increasing; a
  failed transaction rolls its increment back with its rows, so no cursor is skipped (a
  sequence would leave gaps). Entries become visible in cursor order: cursor c + 1 cannot be
  allocated before the transaction holding c has committed, so a reader that sees c + 1 sees
  c, and a reader following cursors never skips one.
- ``read_since`` is an index range scan on the primary key: its cost follows what it returns.
- ``trim`` and ``edit`` delete or rewrite rows; ``last_cursor`` never goes down, so a cursor
  is never reused. ``trim`` never drops an entry above the dream cursor.
- Text is cleaned exactly as the file log cleans it (``prepared_content``: valid Unicode,
  reasoning stripped, secrets redacted, capped) before it reaches the database.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from reverie.core.clock import Clock, require_aware, system_clock
from reverie.core.cursors import validate_cursor
from reverie.core.entries import HistoryEntry, TrimResult, nanobot_timestamp, prepared_content
from reverie.errors import InputError
from reverie.storage.postgres import bulk
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.core.entries import BadLine
    from reverie.storage.postgres.database import Conn, Tenant

_COLUMNS = "cursor, stamp, content, session_key, at, at_offset, range_start, range_end, kind"
_RECENT = (
    f"SELECT {_COLUMNS} FROM history WHERE workspace_id = %(ws)s{{session}} AND cursor > %(since)s"
    " AND (%(before)s::bigint IS NULL OR cursor < %(before)s) ORDER BY cursor DESC LIMIT %(page)s"
)
"""A page of the newest entries (``session``: a condition on the session, or none)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NewEntry:
    """One entry to append (``append_many``): the same fields ``append`` takes."""

    text: str
    session_key: str | None = None
    source_range: tuple[int, int] | None = None
    kind: str | None = None
    at: datetime | None = None


class PgHistoryLog:
    """The history log of one workspace (see the module docstring for its invariants)."""

    def __init__(self, tenant: Tenant, *, clock: Clock = system_clock) -> None:
        self._tenant = tenant
        self._clock = clock

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
        """Append one entry and return it with its cursor; committed when this returns."""
        new = NewEntry(
            text=text, session_key=session_key, source_range=source_range, kind=kind, at=at
        )
        return self.append_many([new], max_chars=max_chars)[0]

    def append_many(
        self, entries: Sequence[NewEntry], *, max_chars: int | None = None
    ) -> list[HistoryEntry]:
        """Append several entries in one transaction, with consecutive cursors."""
        if not entries:
            return []
        prepared = [self._prepare(entry, max_chars) for entry in entries]
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "UPDATE workspace_state SET last_cursor = last_cursor + %s"
                " WHERE workspace_id = %s RETURNING last_cursor",
                (len(prepared), self._tenant.id),
            ).fetchone()
            assert row is not None, "Database.tenant makes the workspace's state row"
            first = int(str(row[0])) - len(prepared) + 1
            made = [_numbered(entry, first + i) for i, entry in enumerate(prepared)]
            _insert(conn, self._tenant.id, made)
        return made

    def import_entries(self, entries: Sequence[HistoryEntry], *, floor: int = 0) -> int:
        """Insert entries with their own cursors into an empty log (moving a workspace here).

        Cursors must be strictly increasing; the last cursor handed out becomes the highest
        of them and ``floor`` (a source whose newest entries were trimmed or forgotten).
        Returns how many were inserted.

        Raises:
            InputError: the log is not empty, or the cursors are not strictly increasing.
        """
        cursors = [entry.cursor for entry in entries]
        if any(b <= a for a, b in itertools.pairwise(cursors)):
            raise InputError("imported entries must have strictly increasing cursors")
        last = max([floor, *cursors])
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "UPDATE workspace_state SET last_cursor = %s WHERE workspace_id = %s"
                " AND last_cursor = 0 RETURNING 1",
                (last, self._tenant.id),
            ).fetchone()
            if row is None and last > 0:
                raise InputError(f"the history log of {self._tenant.where} is not empty")
            _insert(conn, self._tenant.id, entries)
        return len(entries)

    def read_cursors(self, cursors: Collection[int]) -> list[HistoryEntry]:
        """Return the entries of ``cursors`` that are in the log, oldest first (one query)."""
        wanted = sorted({cursor for cursor in cursors if cursor > 0})
        if not wanted:
            return []
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM history WHERE workspace_id = %s AND cursor = ANY(%s)"
                " ORDER BY cursor",
                (self._tenant.id, wanted),
            ).fetchall()
        return [_entry(row) for row in rows]

    def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Return entries whose cursor is above ``cursor``, oldest first, at most ``limit``."""
        validate_cursor(cursor)
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM history WHERE workspace_id = %s AND cursor > %s"
                " ORDER BY cursor LIMIT %s",
                (self._tenant.id, cursor, limit),
            ).fetchall()
        return [_entry(row) for row in rows]

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

        ``session_key`` is a condition of the query (the ``history_session`` index), and the
        rows are read in pages of about twice what is still wanted, so a prompt's few entries
        cost a page, not the ``max_lines`` entries read at most; ``accept`` filters entries.
        """
        found: list[HistoryEntry] = []
        params: dict[str, object] = {"ws": self._tenant.id, "since": since, "before": None}
        params["key"] = None if session_key is None else to_db(session_key)
        query = _RECENT.format(session="" if session_key is None else " AND session_key = %(key)s")
        read = 0
        with self._tenant.transaction() as conn:
            while read < max_lines and len(found) < limit:
                page = min(max_lines - read, 2 * (limit - len(found)) + 8)
                rows = conn.execute(query, params | {"page": page}).fetchall()
                for row in rows:
                    entry = _entry(row)
                    if accept is None or accept(entry):
                        found.append(entry)
                        if len(found) == limit:
                            break
                read += len(rows)
                if len(rows) < page:
                    break
                params["before"] = rows[-1][0]
        return found

    def last_cursor(self) -> int:
        """Return the highest cursor handed out so far (0 for a new log)."""
        return self._state()[0]

    def dream_cursor(self) -> int:
        """Return the last cursor dream consumed (0 before the first dream)."""
        return self._state()[1]

    def entries(self) -> Iterator[HistoryEntry]:
        """Yield every entry, oldest first (in pages, so memory stays bounded)."""
        after = 0
        while page := self.read_since(after, 1000):
            yield from page
            after = page[-1].cursor

    def trim(self, keep: int = 1000) -> TrimResult:
        """Drop the oldest entries the dream cursor has passed, keeping at least ``keep``."""
        if keep < 0:
            raise InputError(f"keep must be >= 0, got {keep}")
        with self._tenant.transaction() as conn:
            total_row = conn.execute(
                "SELECT count(*) FROM history WHERE workspace_id = %s", (self._tenant.id,)
            ).fetchone()
            total = int(str(total_row[0])) if total_row else 0
            row = conn.execute(
                "WITH gone AS (DELETE FROM history WHERE workspace_id = %(ws)s AND cursor IN ("
                " SELECT cursor FROM history WHERE workspace_id = %(ws)s AND cursor <= ("
                "  SELECT dream_cursor FROM workspace_state WHERE workspace_id = %(ws)s)"
                " ORDER BY cursor LIMIT greatest(%(total)s - %(keep)s, 0)) RETURNING cursor)"
                " SELECT count(*), coalesce(max(cursor), 0) FROM gone",
                {"ws": self._tenant.id, "total": total, "keep": keep},
            ).fetchone()
        dropped, through = (int(str(row[0])), int(str(row[1]))) if row else (0, 0)
        return TrimResult(dropped=dropped, kept=total - dropped, dropped_through=through)

    def edit(self, changes: Mapping[int, str | None]) -> list[HistoryEntry]:
        """Replace the content of entries by cursor, or drop them (None); return them before."""
        before: list[HistoryEntry] = []
        with self._tenant.transaction() as conn:
            for cursor, content in sorted(changes.items()):
                params = (self._tenant.id, cursor)
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM history WHERE workspace_id = %s AND cursor = %s"
                    " FOR UPDATE",
                    params,
                ).fetchone()
                if row is None:
                    continue
                before.append(_entry(row))
                if content is None:
                    conn.execute(
                        "DELETE FROM history WHERE workspace_id = %s AND cursor = %s", params
                    )
                else:
                    conn.execute(
                        "UPDATE history SET content = %s WHERE workspace_id = %s AND cursor = %s",
                        (to_db(content), *params),
                    )
        return before

    def repair(self) -> list[BadLine]:
        """Nothing to repair: a transaction is whole or absent, never a torn line."""
        return []

    def close(self) -> None:
        """Nothing to release (connections belong to the database's pool)."""

    def _state(self) -> tuple[int, int]:
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "SELECT last_cursor, dream_cursor FROM workspace_state WHERE workspace_id = %s",
                (self._tenant.id,),
            ).fetchone()
        return (0, 0) if row is None else (int(str(row[0])), int(str(row[1])))

    def _prepare(self, entry: NewEntry, max_chars: int | None) -> HistoryEntry:
        moment = require_aware(entry.at) if entry.at is not None else self._clock()
        return HistoryEntry(
            cursor=1,  # numbered under the row lock
            timestamp=nanobot_timestamp(moment),
            content=prepared_content(entry.text, max_chars),
            session_key=entry.session_key,
            time=moment,
            range=entry.source_range,
            kind=entry.kind,
        )


def _numbered(entry: HistoryEntry, cursor: int) -> HistoryEntry:
    return HistoryEntry(
        cursor=cursor,
        timestamp=entry.timestamp,
        content=entry.content,
        session_key=entry.session_key,
        time=entry.time,
        range=entry.range,
        kind=entry.kind,
    )


def _insert(conn: Conn, workspace_id: int, entries: Sequence[HistoryEntry]) -> None:
    bulk.insert(
        conn,
        f"INSERT INTO history (workspace_id, {_COLUMNS})",
        [_row(workspace_id, e) for e in entries],
    )


def _row(workspace_id: int, e: HistoryEntry) -> tuple[object, ...]:
    return (
        workspace_id,
        e.cursor,
        e.timestamp,
        to_db(e.content),
        None if e.session_key is None else to_db(e.session_key),
        e.time,
        _offset(e.time),
        e.range[0] if e.range else None,
        e.range[1] if e.range else None,
        e.kind,
    )


def _entry(row: Sequence[object]) -> HistoryEntry:
    cursor, stamp, content, session_key, at, offset, start, end, kind = row
    return HistoryEntry(
        cursor=int(str(cursor)),
        timestamp=str(stamp),
        content=from_db(str(content)),
        session_key=None if session_key is None else from_db(str(session_key)),
        time=_in_zone(at, offset),
        range=(int(str(start)), int(str(end))) if start is not None and end is not None else None,
        kind=None if kind is None else str(kind),
    )


def _offset(moment: datetime | None) -> int | None:
    # timestamptz keeps the instant, not the writer's zone; the offset is kept beside it so
    # an entry reads back as written ("09:22+02:00", not "07:22+00:00").
    offset = None if moment is None else moment.utcoffset()
    return None if offset is None else int(offset.total_seconds())


def _in_zone(at: object, offset: object) -> datetime | None:
    if not isinstance(at, datetime):
        return None
    if not isinstance(offset, int):
        return at
    return at.astimezone(timezone(timedelta(seconds=offset)))
