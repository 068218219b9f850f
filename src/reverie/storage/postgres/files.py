"""The durable files and the dream cursor of one workspace in PostgreSQL (the working copy).

Storage model. ``files`` holds the current text of each audited file by path (SOUL.md,
USER.md, memory/MEMORY.md, skills/<name>/SKILL.md); the dream cursor is the
``dream_cursor`` column of the workspace's state row. ``audit`` records both as commits.

Invariants: a write replaces a file's text in one statement (readers see the old text or the
new, never a mix); names are a closed set (``MemoryFileName``), never a free path; the dream
cursor is a non-negative int (DESIGN.md 7: the dream runner writes it only after a completed
run, ``PgAudit.restore`` rolls it back with the files).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reverie.core.cursors import validate_cursor
from reverie.core.durable import (
    MEMORY_FILE_NAMES,
    RELATIVE_PATHS,
    FileSize,
    MemoryFileName,
    size_of,
    starter_only,
)
from reverie.core.inbound import clean_text
from reverie.core.token_estimate import estimate_tokens
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn, Tenant


def read_path(conn: Conn, workspace_id: int, path: str) -> str | None:
    """Return the working text of an audited path (None when absent)."""
    row = conn.execute(
        "SELECT content FROM files WHERE workspace_id = %s AND path = %s", (workspace_id, path)
    ).fetchone()
    return None if row is None else from_db(str(row[0]))


def write_path(conn: Conn, workspace_id: int, path: str, text: str | None) -> None:
    """Replace (or, with None, remove) the working text of an audited path."""
    if text is None:
        conn.execute(
            "DELETE FROM files WHERE workspace_id = %s AND path = %s", (workspace_id, path)
        )
        return
    conn.execute(
        "INSERT INTO files (workspace_id, path, content) VALUES (%s, %s, %s)"
        " ON CONFLICT (workspace_id, path) DO UPDATE SET content = excluded.content",
        (workspace_id, path, to_db(text)),
    )


class PgMemoryFiles:
    """Read and replace the three durable files by name."""

    def __init__(
        self, tenant: Tenant, *, count_tokens: Callable[[str], int] = estimate_tokens
    ) -> None:
        self._tenant = tenant
        self._count_tokens = count_tokens

    def read(self, name: MemoryFileName) -> str:
        """Return a file's text ('' when nobody wrote it)."""
        with self._tenant.transaction() as conn:
            return read_path(conn, self._tenant.id, RELATIVE_PATHS[name]) or ""

    def read_all(self) -> dict[MemoryFileName, str]:
        """Return every durable file's text by name, in one query ('' for a file not written)."""
        names = {RELATIVE_PATHS[name]: name for name in MEMORY_FILE_NAMES}
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT path, content FROM files WHERE workspace_id = %s AND path = ANY(%s)",
                (self._tenant.id, list(names)),
            ).fetchall()
        found = {names[str(path)]: from_db(str(content)) for path, content in rows}
        return {name: found.get(name, "") for name in MEMORY_FILE_NAMES}

    def write(self, name: MemoryFileName, text: str) -> None:
        """Replace a file's text (lone surrogates as U+FFFD, as the file backend does)."""
        with self._tenant.transaction() as conn:
            write_path(conn, self._tenant.id, RELATIVE_PATHS[name], clean_text(text))

    def is_starter(self, name: MemoryFileName) -> bool:
        """True when the file is absent, empty, or still holds only its starter text."""
        return starter_only(name, self.read(name))

    def size(self, name: MemoryFileName) -> FileSize:
        """Return the file's size in characters and estimated tokens."""
        return size_of(name, self.read(name), self._count_tokens)


class PgDreamCursor:
    """The dream cursor of one workspace (``workspace_state.dream_cursor``)."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def read(self) -> int:
        """Return the cursor (0 before the first dream)."""
        with self._tenant.transaction() as conn:
            return read_cursor(conn, self._tenant.id)

    def write(self, cursor: int) -> None:
        """Set the cursor (advanced by a completed dream, rolled back by a restore)."""
        validate_cursor(cursor)
        with self._tenant.transaction() as conn:
            conn.execute(
                "UPDATE workspace_state SET dream_cursor = %s WHERE workspace_id = %s",
                (cursor, self._tenant.id),
            )


def read_cursor(conn: Conn, workspace_id: int) -> int:
    """Return the dream cursor inside the caller's transaction."""
    row = conn.execute(
        "SELECT dream_cursor FROM workspace_state WHERE workspace_id = %s", (workspace_id,)
    ).fetchone()
    return 0 if row is None else int(str(row[0]))
