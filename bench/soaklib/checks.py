"""The end-of-soak invariant checks against the workspace and the workers' acknowledgements.

Each check appends human-readable violations to a ``Report`` and sets its figures:

- messages: every acknowledged message is in its session at its index with the same hash, and
  no index was acknowledged twice with different content (DESIGN.md invariants 3 and 4);
- entries: every acknowledged history entry is in the log with the same content (not in the
  quarantine), or was trimmed legitimately (below the first kept cursor and not after the
  dream cursor); no cursor was acknowledged twice with different content (invariants 1, 3);
- quarantine: only torn last lines (unacknowledged writes of killed processes) were put aside;
  any other quarantined line is damage;
- cursors: the log's cursors are strictly increasing and gap-free, ``.cursor`` is the last
  one, and trim dropped nothing dream had not consumed (invariant 1);
- dream: no publish journal is left, the dream cursor file equals its value in the audit HEAD
  tree, nothing tracked differs from HEAD, the cursor never moved backwards along the commits,
  every acknowledged dream commit is in the history and no failed run moved a cursor
  (invariants 7 and 9);
- doctor: ``engine.doctor()`` finds no problem.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dulwich.repo import Repo

from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from reverie.storage.folder.audit_commits import blob_at, first_parent, head_commit
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL
from reverie.testing.folders import workspace_of
from soaklib.acks import Ack, message_hash, text_hash

SHOWN = 20
TORN = "torn last line"
"""The quarantine reason of a line a SIGKILLed writer left unfinished (never acknowledged)."""
CURSOR_FIELD = re.compile(rb'"cursor": ?(\d+)')
"""Violations of one kind listed one by one before the rest are only counted."""


@dataclass(slots=True)
class Report:
    """Figures and violations of the final checks."""

    figures: dict[str, Any] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def fail(self, problems: list[str]) -> None:
        """Add violations (a long list is cut, with a count of the rest)."""
        self.violations.extend(problems[:SHOWN])
        if len(problems) > SHOWN:
            self.violations.append(f"... and {len(problems) - SHOWN} more like the above")


def _claims(acks: tuple[Ack, ...], field_name: str) -> tuple[dict[Any, str], list[str]]:
    """Map each claimed key to its hash; list keys claimed with two different hashes."""
    claims: dict[Any, str] = {}
    clashes: list[str] = []
    for ack in acks:
        for item in ack.get(field_name, ()):
            key = (ack["session"], item[0]) if field_name == "messages" else item[0]
            if claims.setdefault(key, item[1]) != item[1]:
                clashes.append(f"{field_name[:-1]} {key} acknowledged with two contents")
    return claims, clashes


def check_messages(engine: MemoryEngine, acks: tuple[Ack, ...], report: Report) -> None:
    """No acknowledged message lost or changed."""
    claims, problems = _claims(acks, "messages")
    loaded: dict[str, tuple[Message, ...]] = {}
    for (key, index), digest in sorted(claims.items()):
        if key not in loaded:
            loaded[key] = engine.session(key).messages
        messages = loaded[key]
        if index >= len(messages):
            problems.append(f"message {index} of {key} lost (session has {len(messages)})")
        elif message_hash(messages[index]) != digest:
            problems.append(f"message {index} of {key} changed")
    report.figures["acked_messages_checked"] = len(claims)
    report.figures["sessions"] = len(loaded)
    report.fail(problems)


def check_entries(
    engine: MemoryEngine, acks: tuple[Ack, ...], entries: list[HistoryEntry], report: Report
) -> None:
    """No acknowledged entry lost, changed or quarantined (trimmed ones excepted)."""
    claims, problems = _claims(acks, "entries")
    by_cursor = {entry.cursor: entry for entry in entries}
    first = entries[0].cursor if entries else None
    dream = workspace_of(engine).dream_cursor.read()
    damaged = _quarantined_cursors(engine)
    trimmed = 0
    for cursor, digest in sorted(claims.items()):
        entry = by_cursor.get(cursor)
        if entry is not None:
            if text_hash(entry.content) != digest:
                problems.append(f"entry {cursor} changed")
        elif cursor in damaged:
            problems.append(f"entry {cursor} lost: its line was damaged and quarantined")
        elif first is not None and cursor < first and cursor <= dream:
            trimmed += 1
        else:
            problems.append(f"entry {cursor} lost (not in the log, not trimmed)")
    report.figures["acked_entries_checked"] = len(claims)
    report.figures["acked_entries_trimmed"] = trimmed
    report.fail(problems)


def _quarantined_cursors(engine: MemoryEngine) -> set[int]:
    """Cursors named anywhere in quarantined history lines (whole or in pieces)."""
    found: set[int] = set()
    for bad in workspace_of(engine).quarantine.records():
        found.update(int(n) for n in CURSOR_FIELD.findall(bad.raw))
    return found


def check_quarantine(engine: MemoryEngine, report: Report) -> None:
    """Only torn last lines (unacknowledged writes of killed processes) may be quarantined."""
    workspace = workspace_of(engine)
    problems: list[str] = []
    for store, what in (
        (workspace.quarantine, "history"),
        (workspace.sessions.quarantine, "session"),
    ):
        records = store.records()
        report.figures[f"{what}_lines_quarantined"] = len(records)
        problems += [
            f"{what} line {bad.line} of {bad.source.name} damaged and quarantined: {bad.reason}"
            for bad in records
            if bad.reason != TORN
        ]
    report.fail(problems)


def check_cursors(engine: MemoryEngine, entries: list[HistoryEntry], report: Report) -> None:
    """Cursors unique, increasing, gap-free; floor level with the log; trim kept undreamt."""
    workspace = workspace_of(engine)
    cursors = [entry.cursor for entry in entries]
    problems = [f"cursor {b} follows {a}" for a, b in itertools.pairwise(cursors) if b != a + 1]
    floor_text = (workspace.root / "memory" / ".cursor").read_text(encoding="utf-8").strip()
    floor = int(floor_text or 0)
    dream = workspace.dream_cursor.read()
    last = cursors[-1] if cursors else 0
    if floor != last and cursors:
        problems.append(f".cursor holds {floor} but the last entry is {last}")
    if cursors and cursors[0] > dream + 1:
        problems.append(f"trim dropped entries up to {cursors[0] - 1}, dream cursor is {dream}")
    if dream > max(last, floor):
        problems.append(f"dream cursor {dream} is past the last cursor {max(last, floor)}")
    report.figures.update(
        history_entries=len(cursors),
        first_cursor=cursors[0] if cursors else None,
        last_cursor=last,
        dream_cursor=dream,
    )
    report.fail(problems)


def check_dream(engine: MemoryEngine, acks: tuple[Ack, ...], report: Report) -> None:
    """Dream cursor, files and commits agree; failed runs moved nothing."""
    workspace = workspace_of(engine)
    problems: list[str] = []
    if (workspace.root / DEFAULT_JOURNAL).exists():
        problems.append("a dream publish journal is still pending after the final dream")
    pending = workspace.audit.pending_diff()
    if pending.changed:
        changed = ", ".join(change.path for change in pending.files)
        problems.append(f"tracked files differ from the audit HEAD: {changed}")
    shas, cursors, file_cursor = _audit_walk(engine)
    if cursors and cursors[0] != file_cursor:
        problems.append(f"dream cursor file {file_cursor} != {cursors[0]} in the HEAD commit")
    if any(newer < older for newer, older in itertools.pairwise(cursors)):
        problems.append("the dream cursor moved backwards along the audit commits")
    dreams = [ack for ack in acks if ack["kind"] == "dream"]
    for ack in dreams:
        if ack["outcome"] != "completed" and ack["after"] != ack["before"]:
            problems.append(f"a dream that ended {ack['outcome']} moved the cursor")
        if ack["commit"] is not None and ack["commit"] not in shas:
            problems.append(f"acknowledged dream commit {ack['commit']} is not in the history")
    report.figures["audit_commits"] = len(shas)
    report.figures["dream_outcomes"] = dict(Counter(ack["outcome"] for ack in dreams))
    report.figures["dream_recoveries"] = sum(1 for ack in dreams if ack["recovered"])
    report.fail(problems)


def _audit_walk(engine: MemoryEngine) -> tuple[set[str], list[int], int]:
    """Commit shas along first parents, the dream cursor in each (newest first), the file's."""
    repo = Repo(engine.location)
    shas: set[str] = set()
    cursors: list[int] = []
    try:
        commit = head_commit(repo)
        while commit is not None:
            shas.add(commit.id.decode("ascii"))
            raw = blob_at(repo, commit.tree, "memory/.dream_cursor")
            cursors.append(int(raw.decode("ascii").strip() or 0) if raw is not None else 0)
            commit = first_parent(repo, commit)
    finally:
        repo.close()
    return shas, cursors, workspace_of(engine).dream_cursor.read()


def check_doctor(engine: MemoryEngine, report: Report, planted_link: Path) -> None:
    """``doctor`` reports the planted outside link and finds no other problem (notes: figures).

    The soak plants ``skills/link`` leading out of the workspace: reverie must never read or
    write through it, and ``doctor`` must say it is there.
    """
    findings = engine.doctor().findings
    report.figures["doctor_notes"] = [
        f"{f.check}: {f.message}" for f in findings if f.severity != "problem"
    ]
    planted = [f for f in findings if f.check == "links" and f.path == str(planted_link)]
    if not planted:
        report.fail([f"doctor did not report the planted outside link {planted_link}"])
    report.fail(
        [
            f"doctor: {f.check}: {f.message}"
            for f in findings
            if f.severity == "problem" and f not in planted
        ]
    )
