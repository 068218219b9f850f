"""``doctor``'s checks of what only a workspace folder has: links, files, SQLite, the journal.

``reverie.memory.doctor`` checks any backend through the storage seam (cursors, secrets, rules,
the audit trail, quarantines, the ledger, an interrupted ingest); ``folder_checks`` adds what a
folder alone can go wrong with (``Workspace.doctor_checks``):

- problems: a path that is a link leading outside the workspace (``layout``), an audit
  repository without a commit (a folder's has one from its first open), ``.cursor``
  unreadable or behind the log, an unfinished dream publish (its journal), a durable file that
  is not valid UTF-8, a damaged session store (``PRAGMA quick_check``, read-only);
- notes: orphan temp files of dead writers, moved-aside search indexes, history lines holding
  lone surrogates (reads show U+FFFD), a damaged search or vector index (derived: deleting it
  makes reverie build it again).

Only reads: every check runs on its own, and one that cannot run (a damaged file, a read-only
or full disk) is a problem of that check, not the end of the report.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.core.findings import DoctorReport, Place
from reverie.core.inbound import has_surrogate_escape, valid_text
from reverie.errors import CursorError, ReverieError
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import TEMP_SUFFIX
from reverie.storage.folder.cursors import CursorFloor
from reverie.storage.folder.layout import find_unsafe_links

if TYPE_CHECKING:
    from reverie.storage.folder.audit import AuditRepo

Check = Callable[[Path, DoctorReport], None]

PLACES: dict[Place, str] = {
    Place.HISTORY: layout.HISTORY,
    Place.DREAM_CURSOR: layout.DREAM_CURSOR,
    Place.QUARANTINE: layout.QUARANTINE,
    Place.SESSIONS_QUARANTINE: layout.SESSIONS_QUARANTINE,
    Place.AUDIT: layout.GIT,
    Place.LEDGER: layout.LEDGER,
    Place.INGEST_RUN: layout.INGEST_MARKER,
}
"""Where a folder keeps each ``Place`` a finding points to (``Workspace.path_of``)."""


def folder_checks(root: Path, audit: AuditRepo, report: DoctorReport) -> None:
    """Run every folder check on the workspace at ``root`` (see the module docstring)."""

    def commits(root: Path, report: DoctorReport) -> None:
        if audit.integrity().ok and not audit.log(1):
            report.problem("audit", "the audit repository has no commit", root / layout.GIT)

    checks: tuple[Check, ...] = (
        link_findings,
        commits,
        _floor,
        _publish,
        _orphans,
        _text,
        _databases,
    )
    for check in checks:
        try:
            check(root, report)
        except (ReverieError, OSError, ValueError) as exc:
            name = check.__name__.strip("_").removesuffix("_findings")
            report.problem(name, f"the check itself failed: {exc}")


def link_findings(root: Path, report: DoctorReport) -> None:
    """Every link leading outside the workspace, each with how to fix it."""
    for link in find_unsafe_links(root):
        report.problem(
            "links",
            f"{link.reason} ({link.target}); reverie never reads or writes through it: {link.fix}",
            root / link.path,
        )


def _floor(root: Path, report: DoctorReport) -> None:
    path = root / layout.HISTORY
    last = 0
    if path.is_file():
        with path.open("rb") as handle:
            for line in handle:
                last = max(last, _cursor_of(line))
    floor_path = root / layout.CURSOR
    try:
        floor = CursorFloor(floor_path).read()
    except CursorError as exc:
        report.problem(
            "cursors", f"{exc}; write the last cursor handed out ({last}) into it", floor_path
        )
        return
    if floor < last:
        report.problem("cursors", f".cursor holds {floor} but the log reaches {last}", floor_path)


def _cursor_of(line: bytes) -> int:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return 0  # not a line at all: the quarantine check covers it
    cursor = value.get("cursor") if isinstance(value, dict) else None
    return cursor if isinstance(cursor, int) and not isinstance(cursor, bool) else 0


def _publish(root: Path, report: DoctorReport) -> None:
    journal = root / layout.DREAM_JOURNAL
    if journal.exists():
        report.problem(
            "dream", "an interrupted dream publish waits; the next dream run finishes it", journal
        )


def _orphans(root: Path, report: DoctorReport) -> None:
    for folder in (root, root / layout.MEMORY_DIR, root / layout.SESSIONS, root / layout.STATE):
        for temp in folder.glob(f".*{TEMP_SUFFIX}"):
            report.note("orphans", "temp file (swept on the next open if its writer is gone)", temp)
    for moved in (root / layout.STATE).glob(layout.SEARCH_INDEX_MOVED):
        report.note("search", "a damaged search index was moved aside (safe to delete)", moved)


def _text(root: Path, report: DoctorReport) -> None:
    """Stored text that is not valid Unicode: reads cope, but a person should know."""
    history = root / layout.HISTORY
    count = _lines_with_lone_surrogates(history)
    if count:
        report.note(
            "text",
            f"{count} line(s) hold lone surrogates (half characters, written by an older "
            "reverie or by hand); reads show them as U+FFFD",
            history,
        )
    for name in MEMORY_FILE_NAMES:
        path = root / RELATIVE_PATHS[name]
        try:
            path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            continue
        except UnicodeDecodeError as exc:
            report.problem(
                "text",
                f"not valid UTF-8 at byte {exc.start}; prompts show U+FFFD there, and the next "
                "dream rewrites the file with it: re-save it as UTF-8",
                path,
            )


def _lines_with_lone_surrogates(path: Path) -> int:
    count = 0
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return 0
    with handle:
        for line in handle:
            if has_surrogate_escape(line) and _holds_lone_surrogate(line):
                count += 1
    return count


def _holds_lone_surrogate(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return False  # not a line at all: the quarantine check covers it
    return valid_text(json.dumps(value, ensure_ascii=False))[1] > 0


def _databases(root: Path, report: DoctorReport) -> None:
    """``PRAGMA quick_check`` of each SQLite file; the session store holds what nothing rebuilds."""
    for name, rebuilt in (
        (layout.SESSIONS_DB, False),
        (layout.SEARCH_INDEX, True),
        (layout.VECTORS, True),
    ):
        path = root / name
        if not path.is_file():
            continue
        damage = sqlite_damage(path)
        if damage is None:
            continue
        if rebuilt:
            again = "an index: delete it and reverie builds it again"
            report.note("databases", f"{damage}; {again}", path)
        else:
            report.problem("databases", f"{damage}; restore it from a backup", path)


def sqlite_damage(path: Path) -> str | None:
    """What ``PRAGMA quick_check`` finds wrong with the SQLite file at ``path`` (None: sound).

    Read-only. In a folder doctor may not write, SQLite cannot make the WAL's shared-memory
    file, so the check then reads the database file as it is (``immutable``).
    """
    try:
        rows = _quick_check(f"{path.as_uri()}?mode=ro")
    except sqlite3.OperationalError:
        try:
            rows = _quick_check(f"{path.as_uri()}?immutable=1")
        except sqlite3.DatabaseError as exc:
            return f"not a readable SQLite database ({exc})"
    except sqlite3.DatabaseError as exc:
        return f"not a readable SQLite database ({exc})"
    found = [str(row[0]) for row in rows]
    return None if found == ["ok"] else "damaged: " + "; ".join(found[:3])


def _quick_check(uri: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        return connection.execute("PRAGMA quick_check").fetchall()
