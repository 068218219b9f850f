"""``doctor``: an integrity check of a workspace that says what is wrong and where.

One doctor for every backend: the checks here run through the storage seam
(``reverie.storage.ports.DoctorStores``), then the backend adds what only it can look at
(``DoctorStores.doctor_checks``: on a folder links, ``.cursor``, the publish journal, temp files,
text encodings and SQLite files, ``reverie.storage.folder.doctor_checks``; a database keeps each
write whole and checked its schema when the workspace opened). Findings name the file they are
about where the backend has one (``DoctorStores.path_of``: a durable file by its path, every
other part of the workspace by its ``reverie.core.findings.Place``).

Problems make ``doctor`` fail (non-zero exit at the CLI): history cursors out of order or
duplicated (another program writing the log), the dream cursor unreadable or past the last
cursor handed out, an audit trail that cannot be read, has no commit, went missing or was
replaced (``reverie doctor --repair-audit`` is the explicit fix), a secret
(``reverie.core.redact``) kept in a durable file, a skill file or a history entry (the next dream
redacts the files; history entries are redacted when written, so one found there predates that
or was added by hand), a session message written before redaction ran on append
(``reverie.memory.session_secrets``; ``reverie doctor --redact-sessions`` rewrites them), and
an interrupted ingest (its sessions may hold pending messages).
Notes are things a person may want to look at but that reverie already handled: quarantined
lines (kept, never dropped), unreadable ledger lines, uncommitted edits of durable files, and
lines of the durable files that screening would refuse as new rules (an injected rule that
predates screening, or one a person added by hand on purpose).

Doctor only reads: every check runs on its own, and a check that cannot run (a damaged file,
a read-only or full disk) is reported as a problem of that check instead of stopping doctor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.core.findings import DoctorReport, Finding, Place
from reverie.core.redact import find_kinds
from reverie.core.screening import screen_line
from reverie.errors import CursorError, ReverieError
from reverie.memory.ingest.guard import interrupted_problem
from reverie.memory.session_secrets import session_secrets
from reverie.storage.ports import DoctorStores
from reverie.storage.sources import link_findings

__all__ = ["DoctorReport", "Finding", "examine", "examine_links"]


def examine(stores: DoctorStores) -> DoctorReport:
    """Run every check on ``stores``, then the backend's own (see the module docstring)."""
    report = DoctorReport()
    checks: tuple[Callable[[DoctorStores, DoctorReport], None], ...] = (
        _history,
        _secrets,
        _rules,
        _quarantine,
        _audit,
        _ledger,
        _ingest,
        session_secrets,
    )
    for check in checks:
        try:
            check(stores, report)
        except (ReverieError, OSError, ValueError) as exc:
            report.problem(check.__name__.strip("_"), f"the check itself failed: {exc}")
    stores.doctor_checks(report)
    return report


def examine_links(root: Path) -> DoctorReport:
    """The link check alone, on a folder ``open`` refused for a link (``storage.sources``)."""
    report = DoctorReport()
    link_findings(root, report)
    return report


def _history(stores: DoctorStores, report: DoctorReport) -> None:
    seen: set[int] = set()
    repeated: list[int] = []
    behind: list[tuple[int, int]] = []
    last = 0
    for entry in stores.history.entries():
        if entry.cursor in seen:
            repeated.append(entry.cursor)
        elif entry.cursor < last:
            behind.append((entry.cursor, last))
        seen.add(entry.cursor)
        last = max(last, entry.cursor)
    if repeated or behind:
        report.problem("history", _foreign_message(repeated, behind), stores.path_of(Place.HISTORY))
    try:
        handed_out = max(last, stores.history.last_cursor())
    except CursorError:
        handed_out = last  # the backend's own check reports the damaged floor
    try:
        dream = stores.dream_cursor.read()
    except CursorError as exc:
        report.problem(
            "cursors",
            f"{exc}; restore it with `reverie restore HEAD` (the audited value)",
            stores.path_of(Place.DREAM_CURSOR),
        )
        return
    if dream > handed_out:
        report.problem(
            "cursors",
            f"dream cursor {dream} is past the last cursor {handed_out}",
            stores.path_of(Place.DREAM_CURSOR),
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


def _durable(stores: DoctorStores) -> Iterator[tuple[str, str]]:
    """Each durable file that can be read (memory files, then skills), path and text."""
    for name in MEMORY_FILE_NAMES:
        yield RELATIVE_PATHS[name], stores.files.read(name)
    for path in stores.skills.paths():
        try:
            yield path, stores.skills.read(path)
        except (ReverieError, ValueError):
            continue  # unsafe or unreadable: the backend's own checks say why


def _secrets(stores: DoctorStores, report: DoctorReport) -> None:
    for relative, text in _durable(stores):
        kinds = find_kinds(text)
        if kinds:
            report.problem(
                "secrets",
                f"{relative} holds a secret ({', '.join(kinds)}); the next dream redacts it",
                stores.path_of(relative),
            )
    for entry in stores.history.entries():
        kinds = find_kinds(entry.content)
        if kinds:
            report.problem(
                "secrets",
                f"history entry {entry.cursor} holds a secret ({', '.join(kinds)})",
                stores.path_of(Place.HISTORY),
            )


def _rules(stores: DoctorStores, report: DoctorReport) -> None:
    for relative, text in _durable(stores):
        for number, line in enumerate(text.splitlines(), start=1):
            reason = screen_line(relative, line.strip()) if line.strip() else None
            if reason is not None:
                report.note(
                    "rules",
                    f"{relative} line {number} {reason}; screening would refuse it as a new "
                    "line (keep it only if a person wrote it on purpose)",
                    stores.path_of(relative),
                )


def _quarantine(stores: DoctorStores, report: DoctorReport) -> None:
    for store, where in (
        (stores.quarantine, Place.QUARANTINE),
        (stores.sessions.quarantine, Place.SESSIONS_QUARANTINE),
    ):
        records = store.records()
        if records:
            report.note(
                "quarantine",
                f"{len(records)} line(s) kept aside (not lost); see the file",
                stores.path_of(where),
            )


def _audit(stores: DoctorStores, report: DoctorReport) -> None:
    integrity = stores.audit.integrity()
    if not integrity.ok:
        report.problem(
            "audit",
            f"audit trail {integrity.state}: {integrity.detail}",
            stores.path_of(Place.AUDIT),
        )
        return
    pending = stores.audit.pending_diff()
    if pending.changed:
        files = ", ".join(change.path for change in pending.files)
        report.note(
            "audit",
            f"uncommitted changes to {files} (hand edits? the next dream commit records them)",
        )


def _ledger(stores: DoctorStores, report: DoctorReport) -> None:
    unreadable = stores.ledger.summary().unreadable
    if unreadable:
        report.note(
            "ledger",
            f"{unreadable} ledger line(s) could not be read",
            stores.path_of(Place.LEDGER),
        )


def _ingest(stores: DoctorStores, report: DoctorReport) -> None:
    """An ingest that died: its sessions may hold pending messages no run will compact."""
    problem = interrupted_problem(stores)
    if problem is not None:
        report.problem("ingest", problem, stores.path_of(Place.INGEST_RUN))
