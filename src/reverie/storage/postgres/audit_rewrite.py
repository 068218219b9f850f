"""Reading the PostgreSQL audit trail whole: line origins, and the one rewrite (``purge``).

``rewrite_versions`` and ``rewrite_messages`` run inside the audit's locked transaction, on
a person's explicit ``forget --purge`` only: they replace stored texts by their scrubbed form,
so no version and no commit message keeps the forgotten text. ``holding`` finds what still
holds a text; ``line_origin`` says which commit last added a line. Nothing here commits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from reverie.core.audit import LineOrigin
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.core.audit import CommitInfo
    from reverie.storage.postgres.database import Conn


def rewrite_versions(conn: Conn, workspace_id: int, scrub: Callable[[str, bytes], bytes]) -> int:
    """Replace every stored file version by ``scrub(path, bytes)``; return how many changed."""
    changed = 0
    rows = conn.execute(
        "SELECT path, number, content FROM file_versions"
        " WHERE workspace_id = %s AND content IS NOT NULL",
        (workspace_id,),
    ).fetchall()
    for path, number, content in rows:
        old = from_db(str(content)).encode("utf-8")
        new = scrub(str(path), old)
        if new != old:
            changed += 1
            conn.execute(
                "UPDATE file_versions SET content = %s"
                " WHERE workspace_id = %s AND path = %s AND number = %s",
                (to_db(new.decode("utf-8", "replace")), workspace_id, path, number),
            )
    return changed


def rewrite_messages(conn: Conn, workspace_id: int, scrub_text: Callable[[str], str]) -> int:
    """Replace every commit's subject and message by their scrubbed form; return how many."""
    changed = 0
    for number, subject, message in conn.execute(
        "SELECT number, subject, message FROM commits WHERE workspace_id = %s", (workspace_id,)
    ).fetchall():
        old = (from_db(str(subject)), from_db(str(message)))
        new = (scrub_text(old[0]), scrub_text(old[1]))
        if new != old:
            changed += 1
            conn.execute(
                "UPDATE commits SET subject = %s, message = %s"
                " WHERE workspace_id = %s AND number = %s",
                (to_db(new[0]), to_db(new[1]), workspace_id, number),
            )
    return changed


def holding(conn: Conn, workspace_id: int, holds: Callable[[bytes], bool]) -> list[str]:
    """Return ``<sha>:<path>`` of every version and ``<sha>`` of every message that holds."""
    found: list[str] = []
    for sha, path, content in conn.execute(
        "SELECT c.sha, v.path, v.content FROM file_versions v JOIN commits c"
        " USING (workspace_id, number) WHERE v.workspace_id = %s AND v.content IS NOT NULL"
        " ORDER BY v.number, v.path",
        (workspace_id,),
    ).fetchall():
        if holds(from_db(str(content)).encode("utf-8")):
            found.append(f"{sha}:{path}")
    for sha, message in conn.execute(
        "SELECT sha, message FROM commits WHERE workspace_id = %s ORDER BY number",
        (workspace_id,),
    ).fetchall():
        if holds(from_db(str(message)).encode("utf-8")):
            found.append(str(sha))
    return found


def line_origin(
    line: str,
    path: str,
    trees: list[tuple[int, dict[str, str]]],
    infos: Mapping[int, CommitInfo],
    *,
    reached_root: bool,
) -> LineOrigin:
    """The oldest commit of the newest run of commits (``trees``, newest first) holding ``line``."""
    if not line.strip():
        return LineOrigin(line=line)
    oldest: int | None = None
    for number, tree in trees:
        if line not in tree.get(path, "").splitlines():
            break
        oldest = number
    if oldest is None:
        return LineOrigin(line=line)
    info = infos[oldest]
    return LineOrigin(
        line=line,
        sha=info.sha,
        subject=info.subject,
        author=info.author,
        time=info.time,
        at_or_before=oldest == trees[-1][0] and not reached_root,
    )
