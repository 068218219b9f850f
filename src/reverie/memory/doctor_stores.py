"""``doctor`` for a database workspace: the checks that make sense without files.

A PostgreSQL workspace has no folder, so the file checks of ``reverie.memory.doctor`` (links, temp
files, torn lines, the publish journal, ``.cursor``) have nothing to look at:
the database keeps each write whole and the schema was checked when the workspace opened.
What is left is checked through the ports, with the same findings and severities:

- problems: history cursors out of order or repeated, the dream cursor past the last cursor,
  an audit trail that is not the recorded one, a secret in a durable file, a history entry or
  a session message (``session_secrets``),
  an interrupted ingest (its sessions may hold pending messages);
- notes: quarantined lines (imports), unreadable ledger lines, uncommitted edits of the durable
  files, SOUL.md lines that screening would refuse as new rules.

Like ``reverie.memory.doctor``, it only reads, and a check that cannot run is a problem of that
check, not the end of the report.
"""

from __future__ import annotations

from collections.abc import Callable

from reverie.core.redact import find_kinds
from reverie.core.screening import screen_line
from reverie.errors import ReverieError
from reverie.memory.doctor import DoctorReport
from reverie.memory.ingest.guard import interrupted_problem
from reverie.memory.session_secrets import session_secrets
from reverie.storage.folder.memory_files import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.storage.ports import IngestStores, Stores


def examine_stores(stores: IngestStores) -> DoctorReport:
    """Run every check that applies to ``stores`` (see the module docstring)."""
    report = DoctorReport()
    checks: tuple[Callable[[IngestStores, DoctorReport], None], ...] = (
        _cursors,
        _secrets,
        _rules,
        _audit,
        _records,
        _ingest,
        session_secrets,
    )
    for check in checks:
        try:
            check(stores, report)
        except (ReverieError, ValueError) as exc:
            report.problem(check.__name__.strip("_"), f"the check itself failed: {exc}")
    return report


def _cursors(stores: Stores, report: DoctorReport) -> None:
    last = 0
    for entry in stores.history.entries():
        if entry.cursor <= last:
            report.problem("history", f"cursor {entry.cursor} follows {last}: not increasing")
        last = max(last, entry.cursor)
    handed_out = max(last, stores.history.last_cursor())
    dream = stores.dream_cursor.read()
    if dream > handed_out:
        report.problem("cursors", f"dream cursor {dream} is past the last cursor {handed_out}")


def _secrets(stores: Stores, report: DoctorReport) -> None:
    for name in MEMORY_FILE_NAMES:
        kinds = find_kinds(stores.files.read(name))
        if kinds:
            report.problem(
                "secrets",
                f"{RELATIVE_PATHS[name]} holds a secret ({', '.join(kinds)});"
                " the next dream redacts it",
            )
    for entry in stores.history.entries():
        kinds = find_kinds(entry.content)
        if kinds:
            report.problem(
                "secrets", f"history entry {entry.cursor} holds a secret ({', '.join(kinds)})"
            )


def _rules(stores: Stores, report: DoctorReport) -> None:
    for name in MEMORY_FILE_NAMES:
        relative = RELATIVE_PATHS[name]
        for number, line in enumerate(stores.files.read(name).splitlines(), start=1):
            reason = screen_line(relative, line.strip()) if line.strip() else None
            if reason is not None:
                report.note(
                    "rules",
                    f"{relative} line {number} {reason}; screening would refuse it as a new"
                    " line (keep it only if a person wrote it on purpose)",
                )


def _audit(stores: Stores, report: DoctorReport) -> None:
    integrity = stores.audit.integrity()
    if not integrity.ok:
        report.problem("audit", f"audit trail {integrity.state}: {integrity.detail}")
    if stores.audit.pending_diff().changed:
        report.note("audit", "durable files edited since the last commit (the next one holds them)")


def _records(stores: Stores, report: DoctorReport) -> None:
    kept = len(stores.quarantine.records()) + len(stores.sessions.quarantine.records())
    if kept:
        report.note("quarantine", f"{kept} line(s) kept aside (not lost)")
    unreadable = stores.ledger.summary().unreadable
    if unreadable:
        report.note("ledger", f"{unreadable} ledger record(s) could not be read")


def _ingest(stores: IngestStores, report: DoctorReport) -> None:
    """An ingest that died: its sessions may hold pending messages no run will archive."""
    problem = interrupted_problem(stores)
    if problem is not None:
        report.problem("ingest", problem)
