"""``doctor``: an integrity check of a workspace that says what is wrong and where.

Problems make ``doctor`` fail (non-zero exit at the CLI): history cursors out of order or
duplicated, ``.cursor`` behind the log, the dream cursor past the last entry, an audit
repository that cannot be read, has no commit, went missing or was replaced (``reverie doctor
--repair-audit`` is the explicit fix), an unfinished dream publish, a path that is a link
leading outside the workspace (``store.layout``), and a secret (``reverie.core.redact``) kept in a
durable file, a skill file, a history entry (the next dream redacts the files; history
entries are redacted when written, so one found there predates that or was added by hand) or a
session message written before redaction ran on append (``session_secrets``; ``reverie
doctor --redact-sessions`` rewrites them). Notes are
things a person may want to look at but that reverie
already handled: quarantined lines (kept, never dropped), unreadable ledger lines, uncommitted
hand edits of durable files, orphan temp files of dead writers, moved-aside search indexes,
SOUL.md lines that screening would refuse as new rules (an injected rule that predates
screening, or one a person added by hand on purpose), and stored lines holding lone surrogates
(reads show U+FFFD). Problems also cover a damaged SQLite file (``PRAGMA quick_check`` of the
session store, the search index and the vector index, read-only; a damaged index is a note:
it is derived, and deleting it makes reverie build it again), cursors written by another
program at the same time (duplicate lines stay where they are), an unreadable ``.cursor``, an
interrupted ingest (its sessions may hold pending messages) and a durable file that is not
valid UTF-8.

Doctor only reads: every check runs on its own, and a check that cannot run (a damaged file,
a read-only or full disk) is reported as a problem of that check instead of stopping doctor.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from reverie.core.inbound import has_surrogate_escape, valid_text
from reverie.core.redact import find_kinds
from reverie.core.screening import screen_line
from reverie.errors import CursorError, ReverieError
from reverie.memory.dream.journal import DEFAULT_JOURNAL
from reverie.memory.ingest.guard import MARKER, interrupted_problem
from reverie.memory.session_secrets import session_secrets
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import TEMP_SUFFIX
from reverie.storage.folder.cursors import CursorFloor
from reverie.storage.folder.layout import DURABLE, find_unsafe_links, skill_files
from reverie.storage.folder.memory_files import MEMORY_FILE_NAMES
from reverie.storage.folder.workspace import Workspace


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One thing doctor found: what, where, and whether it is a problem or a note."""

    severity: str
    check: str
    message: str
    path: str | None = None


@dataclass(slots=True)
class DoctorReport:
    """Every finding; ``ok`` when none of them is a problem."""

    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there is no problem (notes are fine)."""
        return not any(f.severity == "problem" for f in self.findings)

    def problem(self, check: str, message: str, path: Path | None = None) -> None:
        """Record a problem."""
        self.findings.append(
            Finding(severity="problem", check=check, message=message, path=_s(path))
        )

    def note(self, check: str, message: str, path: Path | None = None) -> None:
        """Record a note."""
        self.findings.append(Finding(severity="note", check=check, message=message, path=_s(path)))


def _s(path: Path | None) -> str | None:
    return None if path is None else str(path)


def examine(workspace: Workspace) -> DoctorReport:
    """Run every check on ``workspace``."""
    report = DoctorReport()
    checks = (
        _links,
        _history,
        _secrets,
        _rules,
        _quarantine,
        _audit,
        _publish,
        _orphans,
        _ledger,
        _text,
        _ingest,
        _databases,
        session_secrets,
    )
    for check in checks:
        try:
            check(workspace, report)
        except (ReverieError, OSError, ValueError) as exc:
            report.problem(check.__name__.strip("_"), f"the check itself failed: {exc}")
    return report


def examine_links(root: Path) -> DoctorReport:
    """The link check alone, on a folder ``Workspace.open`` refused for a link (see ``_links``)."""
    report = DoctorReport()
    _link_findings(root, report)
    return report


def _history(workspace: Workspace, report: DoctorReport) -> None:
    seen: set[int] = set()
    repeated: list[int] = []
    behind: list[tuple[int, int]] = []
    last = 0
    for entry in workspace.history.entries():
        if entry.cursor in seen:
            repeated.append(entry.cursor)
        elif entry.cursor < last:
            behind.append((entry.cursor, last))
        seen.add(entry.cursor)
        last = max(last, entry.cursor)
    if repeated or behind:
        report.problem("history", _foreign_message(repeated, behind), workspace.history.path)
    floor_path = workspace.root / layout.CURSOR
    try:
        floor = CursorFloor(floor_path).read()
    except CursorError as exc:
        report.problem(
            "cursors", f"{exc}; write the last cursor handed out ({last}) into it", floor_path
        )
        floor = last
    if floor < last:
        report.problem("cursors", f".cursor holds {floor} but the log reaches {last}", floor_path)
    try:
        dream = workspace.dream_cursor.read()
    except CursorError as exc:
        report.problem(
            "cursors",
            f"{exc}; restore it with `reverie restore HEAD` (the audited value)",
            workspace.dream_cursor.path,
        )
        return
    if dream > max(last, floor):
        report.problem(
            "cursors",
            f"dream cursor {dream} is past the last cursor {max(last, floor)}",
            workspace.dream_cursor.path,
        )


def _foreign_message(repeated: list[int], behind: list[tuple[int, int]]) -> str:
    parts = []
    if repeated:
        shown = ", ".join(str(cursor) for cursor in repeated[:5])
        parts.append(f"{len(repeated)} duplicate cursor(s) ({shown})")
    if behind:
        shown = ", ".join(f"{cursor} after {top}" for cursor, top in behind[:5])
        parts.append(f"{len(behind)} cursor(s) out of order ({shown})")
    return (
        " and ".join(parts) + ": another program (nanobot?) wrote the log while reverie did; "
        "the lines stay in the file, but nanobot and reverie must not write one workspace at "
        "the same time"
    )


def _quarantine(workspace: Workspace, report: DoctorReport) -> None:
    for store in (workspace.quarantine, workspace.sessions.quarantine):
        records = store.records()
        if records:
            report.note(
                "quarantine",
                f"{len(records)} line(s) kept aside (not lost); see the file",
                store.path,
            )


def _links(workspace: Workspace, report: DoctorReport) -> None:
    _link_findings(workspace.root, report)


def _link_findings(root: Path, report: DoctorReport) -> None:
    for link in find_unsafe_links(root):
        report.problem(
            "links",
            f"{link.reason} ({link.target}); reverie never reads or writes through it: {link.fix}",
            root / link.path,
        )


def _secrets(workspace: Workspace, report: DoctorReport) -> None:
    for relative in (*DURABLE, *skill_files(workspace.root)):
        path = workspace.root / relative
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        kinds = find_kinds(text)
        if kinds:
            report.problem(
                "secrets", f"holds a secret ({', '.join(kinds)}); the next dream redacts it", path
            )
    for entry in workspace.history.entries():
        kinds = find_kinds(entry.content)
        if kinds:
            report.problem(
                "secrets",
                f"history entry {entry.cursor} holds a secret ({', '.join(kinds)})",
                workspace.history.path,
            )


def _rules(workspace: Workspace, report: DoctorReport) -> None:
    for relative in (*DURABLE, *skill_files(workspace.root)):
        path = workspace.root / relative
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, start=1):
            reason = screen_line(str(relative), line.strip()) if line.strip() else None
            if reason is not None:
                report.note(
                    "rules",
                    f"line {number} {reason}; screening would refuse it as a new line "
                    "(keep it only if a person wrote it on purpose)",
                    path,
                )


def _audit(workspace: Workspace, report: DoctorReport) -> None:
    integrity = workspace.audit.integrity()
    if not integrity.ok:
        report.problem("audit", integrity.detail, workspace.audit.git_dir)
        return
    log = workspace.audit.log(1)
    if not log:
        report.problem("audit", "the audit repository has no commit", workspace.root / layout.GIT)
        return
    pending = workspace.audit.pending_diff()
    if pending.changed:
        files = ", ".join(change.path for change in pending.files)
        report.note(
            "audit",
            f"uncommitted changes to {files} (hand edits? the next dream commit records them)",
        )


def _publish(workspace: Workspace, report: DoctorReport) -> None:
    journal = workspace.root / DEFAULT_JOURNAL
    if journal.exists():
        report.problem(
            "dream", "an interrupted dream publish waits; the next dream run finishes it", journal
        )


def _orphans(workspace: Workspace, report: DoctorReport) -> None:
    for folder in (
        workspace.root,
        workspace.root / layout.MEMORY_DIR,
        workspace.root / layout.SESSIONS,
        workspace.root / layout.STATE,
    ):
        for temp in folder.glob(f".*{TEMP_SUFFIX}"):
            report.note("orphans", "temp file (swept on the next open if its writer is gone)", temp)
    for moved in (workspace.root / layout.STATE).glob(layout.SEARCH_INDEX_MOVED):
        report.note("search", "a damaged search index was moved aside (safe to delete)", moved)


def _ledger(workspace: Workspace, report: DoctorReport) -> None:
    unreadable = workspace.ledger.summary().unreadable
    if unreadable:
        report.note(
            "ledger", f"{unreadable} ledger line(s) could not be read", workspace.ledger.path
        )


def _text(workspace: Workspace, report: DoctorReport) -> None:
    """Stored text that is not valid Unicode: reads cope, but a person should know."""
    journals = sorted(workspace.sessions.directory.glob("*.journal"))
    for path in [workspace.history.path, *journals]:
        count = _lines_with_lone_surrogates(path)
        if count:
            report.note(
                "text",
                f"{count} line(s) hold lone surrogates (half characters, written by an older "
                "reverie or by hand); reads show them as U+FFFD",
                path,
            )
    for name in MEMORY_FILE_NAMES:
        path = workspace.files.path(name)
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


def _ingest(workspace: Workspace, report: DoctorReport) -> None:
    """An ingest that died: its sessions may hold pending messages no run will archive."""
    problem = interrupted_problem(workspace)
    if problem is not None:
        report.problem("ingest", problem, workspace.root / MARKER)


def _databases(workspace: Workspace, report: DoctorReport) -> None:
    """``PRAGMA quick_check`` of each SQLite file; the session store holds what nothing rebuilds."""
    for name, rebuilt in (
        (layout.SESSIONS_DB, False),
        (layout.SEARCH_INDEX, True),
        (layout.VECTORS, True),
    ):
        path = workspace.root / name
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
