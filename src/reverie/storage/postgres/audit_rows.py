"""Row-level reads and writes of the PostgreSQL audit trail (trees, revisions, working copy).

A *tree* is ``{path: text}`` of every audited path present at a commit (the dream cursor as
``memory/.dream_cursor`` with the cursor and a newline); the *working tree* is the same for the
current files and dream cursor. Everything here runs inside the caller's transaction and
never commits; ``audit`` holds the lock that orders writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from reverie.core.durable import DREAM_CURSOR
from reverie.errors import RevisionNotFoundError
from reverie.storage.postgres.files import read_cursor, write_path
from reverie.storage.postgres.text_codec import from_db

if TYPE_CHECKING:
    from reverie.core.diff import AuditDiff
    from reverie.storage.postgres.database import Conn

CURSOR_PATH = DREAM_CURSOR
_HEAD_BACK = re.compile(r"HEAD~(\d{1,9})")
_SHA_PREFIX = re.compile(r"[0-9a-f]{4,40}")


def head_number(conn: Conn, workspace_id: int) -> int:
    """Return the number of the newest commit (0 when there is none)."""
    row = conn.execute(
        "SELECT coalesce(max(number), 0) FROM commits WHERE workspace_id = %s", (workspace_id,)
    ).fetchone()
    return 0 if row is None else int(str(row[0]))


def tree_at(conn: Conn, workspace_id: int, number: int) -> dict[str, str]:
    """Return every audited path present at commit ``number`` with its text."""
    rows = conn.execute(
        "SELECT DISTINCT ON (path) path, content FROM file_versions"
        " WHERE workspace_id = %s AND number <= %s ORDER BY path, number DESC",
        (workspace_id, number),
    ).fetchall()
    return {str(path): from_db(str(content)) for path, content in rows if content is not None}


def working_tree(conn: Conn, workspace_id: int) -> dict[str, str]:
    """Return the current audited files and the dream cursor as a tree."""
    rows = conn.execute(
        "SELECT path, content FROM files WHERE workspace_id = %s", (workspace_id,)
    ).fetchall()
    tree = {str(path): from_db(str(content)) for path, content in rows}
    cursor = read_cursor(conn, workspace_id)
    if cursor > 0:  # like the file a first dream creates: absent until then
        tree[CURSOR_PATH] = f"{cursor}\n"
    return tree


def write_working(
    conn: Conn, workspace_id: int, target: Mapping[str, str], current: Mapping[str, str]
) -> None:
    """Make the working tree equal ``target`` (files removed, replaced; the cursor reset)."""
    for path in set(current) | set(target):
        if path == CURSOR_PATH:
            continue
        if target.get(path) != current.get(path):
            write_path(conn, workspace_id, path, target.get(path))
    cursor_text = target.get(CURSOR_PATH, "0\n").strip() or "0"
    conn.execute(
        "UPDATE workspace_state SET dream_cursor = %s WHERE workspace_id = %s",
        (int(cursor_text) if cursor_text.isdigit() else 0, workspace_id),
    )


def changed_at(
    conn: Conn,
    workspace_id: int,
    number: int,
    diff: Callable[[Mapping[str, str], Mapping[str, str]], AuditDiff],
) -> AuditDiff:
    """Return the diff commit ``number`` made against its parent."""
    paths = [
        str(row[0])
        for row in conn.execute(
            "SELECT path FROM file_versions WHERE workspace_id = %s AND number = %s",
            (workspace_id, number),
        ).fetchall()
    ]
    before, after = tree_at(conn, workspace_id, number - 1), tree_at(conn, workspace_id, number)
    return diff(
        {p: before[p] for p in paths if p in before}, {p: after[p] for p in paths if p in after}
    )


def resolve(conn: Conn, workspace_id: int, rev: str) -> int:
    """Return the commit number ``rev`` names: ``HEAD``, ``HEAD~N`` or a unique sha prefix.

    Raises:
        RevisionNotFoundError: it names no commit, or several.
    """
    head = head_number(conn, workspace_id)
    text = rev.strip()
    back = 0 if text == "HEAD" else None
    if (match := _HEAD_BACK.fullmatch(text)) is not None:
        back = int(match.group(1))
    if back is not None:
        if head - back < 1:
            raise RevisionNotFoundError(rev)
        return head - back
    if _SHA_PREFIX.fullmatch(text) is None:
        raise RevisionNotFoundError(rev)
    rows = conn.execute(
        "SELECT number FROM commits WHERE workspace_id = %s AND sha LIKE %s LIMIT 2",
        (workspace_id, text + "%"),
    ).fetchall()
    if len(rows) != 1:
        raise RevisionNotFoundError(rev)
    return int(str(rows[0][0]))
