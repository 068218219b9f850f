"""Moving a workspace between backends (folder ⇄ PostgreSQL), losing nothing on the way.

``transfer(source, target)`` copies, through the storage seam, everything a workspace
remembers into an *empty* target: every history entry with its own cursor, timestamp, time,
session, range and kind (gaps left by a trim or a forget stay gaps; the last cursor handed
out stays the floor, so no cursor is ever reused), every session whole (messages, mark,
summary, metadata), the durable files and the skill files (``skills/<name>/SKILL.md``, which
dream writes on either backend), the dream cursor, the provenance records, the ledger and the
rejected rules;
then it records one audit commit in the target. The audit history itself is not copied: the
target's trail starts at the import (the source keeps its own). ``import_folder`` and
``export_folder`` open the two backends of ``reverie store import`` / ``export`` and close them.

Every step goes through the ports (``HistoryPort.import_entries`` keeps each cursor, on a
folder as nanobot's ``memory/history.jsonl`` lines); only the openers name the backends.
What it must not do: merge into a target that already holds history or sessions
(``InputError``), or change the source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.core.durable import MEMORY_FILE_NAMES
from reverie.core.entries import HistoryEntry
from reverie.errors import InputError
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.database import Database

if TYPE_CHECKING:
    from reverie.storage.ports.homes import HomeDatabase


@dataclass(frozen=True, slots=True, kw_only=True)
class TransferResult:
    """What ``transfer`` copied."""

    entries: int
    sessions: int
    messages: int
    files: int
    ledger_records: int


def transfer(
    source: Backend, target: Backend, *, subject: str = "import: workspace"
) -> TransferResult:
    """Copy everything ``source`` remembers into the empty ``target`` (see the module doc).

    Raises:
        InputError: the target already holds history or sessions.
    """
    if target.history.last_cursor() > 0 or target.sessions.list():
        raise InputError("the target workspace is not empty; transfer never merges")
    entries = list(source.history.entries())
    _put_history(target, entries, floor=source.history.last_cursor())
    messages = 0
    sessions = source.sessions.list()
    for info in sessions:
        session = source.sessions.load(info.key)
        target.sessions.put(session)
        messages += len(session.messages)
    files = 0
    for name in MEMORY_FILE_NAMES:
        text = source.files.read(name)
        if text:
            target.files.write(name, text)
            files += 1
    files += copy_skills(source, target)
    target.dream_cursor.write(source.dream_cursor.read())
    target.provenance.write(source.provenance.read())  # why keeps its answers after a move
    records = [record for record in source.ledger.records() if record is not None]
    for record in records:
        target.ledger.append(record)
    for rejection in source.rejections.latest(1_000_000):
        target.rejections.append([rejection.rule], time=rejection.time)
    target.audit.commit(subject, allow_empty=True)
    return TransferResult(
        entries=len(entries),
        sessions=len(sessions),
        messages=messages,
        files=files,
        ledger_records=len(records),
    )


def export_shared_workspace(database: HomeDatabase, name: str, folder: Path) -> TransferResult:
    """Copy database workspace ``name`` (over a shared pool) into the new folder ``folder``.

    A principal's export from a database home: ``folder`` becomes a workspace folder any
    reverie opens. The shared pool stays open.

    Raises:
        InputError: ``folder`` holds something already.
        DatabaseError: no such workspace.
    """
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{folder} is not an empty folder; an export writes a new workspace")
    source = PgBackend.on_shared(Database.of(database), name)
    try:
        target = FileBackend.open(folder, create=True)
        try:
            return transfer(source, target, subject=f"import: from database workspace {name}")
        finally:
            target.close()
    finally:
        source.close()


def import_folder(folder: Path, url: str, name: str) -> TransferResult:
    """Copy the workspace folder ``folder`` into the new database workspace ``name`` at ``url``.

    The folder is not changed; the database workspace is made (with the schema) if needed and
    must hold no history or sessions yet.
    """
    source = FileBackend.open(folder, create=False)
    try:
        target = PgBackend.open(url, name, create=True)
        try:
            return transfer(source, target, subject=f"import: from folder {folder.name}")
        finally:
            target.close()
    finally:
        source.close()


def export_folder(url: str, name: str, folder: Path) -> TransferResult:
    """Copy the database workspace ``name`` at ``url`` into a new workspace folder ``folder``."""
    source = PgBackend.open(url, name)
    try:
        target = FileBackend.open(folder, create=True)
        try:
            return transfer(source, target, subject=f"import: from database workspace {name}")
        finally:
            target.close()
    finally:
        source.close()


def _put_history(target: Backend, entries: list[HistoryEntry], *, floor: int) -> None:
    target.history.import_entries(entries, floor=floor)


def copy_skills(source: Backend, target: Backend) -> int:
    """Copy every skill file of ``source`` into ``target``; return how many."""
    paths = source.skills.paths()
    for path in paths:
        target.skills.write(path, source.skills.read(path))
    return len(paths)
