"""Merging a nanobot workspace's memory into this one, once (``reverie ingest`` of a workspace).

Its durable files are adopted whole when ours hold only starter text (one ``import:`` commit),
otherwise appended to history for dream to merge; its history entries come whole: those
nanobot's dream had not consumed wait for dream, those it had consumed move the dream cursor
past them when nothing else waits (``_consumed_history``). Each text is keyed by scope and
content (``_key``); the keys are kept in the ingest records' marks, written last, and what a
crash left before them is found again in history (appended texts) or in the audit log
(adopted files), so an ingest run twice, or after a crash, adds nothing twice.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.core.entries import prepared_content
from reverie.core.inbound import clean_text

if TYPE_CHECKING:
    from reverie.memory.ingest.importers import ImportedWorkspace
    from reverie.storage.ports import IngestStores


def merge_workspace(stores: IngestStores, imported: ImportedWorkspace) -> tuple[str, ...]:
    """Bring a nanobot workspace's memory in once (remembered in the ingest records' marks).

    Return notes for the report (see ``_consumed_history``).
    """
    # The marks are written last; what a crash left before them is in history (appended
    # texts) or in the audit log (adopted files).
    marks = stores.ingest_records.marks() | _imported_entries(stores)
    marks |= _adopted_files(stores, imported)
    fresh = {n: t for n, t in imported.files.items() if _key(n, t) not in marks}
    notes = _consumed_history(stores, marks, imported)  # first: before anything waits for dream
    if fresh and all(
        stores.files.is_starter(name) or stores.files.read(name) == fresh.get(name)
        for name in MEMORY_FILE_NAMES
    ):  # ours holds only starter text, or theirs already (a crash came before the commit)
        for name, text in fresh.items():
            stores.files.write(name, text)
        stores.audit.commit(f"import: nanobot workspace {imported.root.name}")
    else:
        for text in fresh.values():  # ours has content: dream merges theirs in
            _append_once(stores, marks, None, text)
    marks.update(_key(name, text) for name, text in fresh.items())
    for entry in imported.history:
        if entry.cursor > imported.dream_cursor:
            _append_once(stores, marks, entry.session_key, entry.content)
    stores.ingest_records.add_marks(marks)
    return notes


def _consumed_history(
    stores: IngestStores, marks: set[str], imported: ImportedWorkspace
) -> tuple[str, ...]:
    """Append the history nanobot's dream had consumed, and move the dream cursor past it.

    Its facts are in nanobot's files already, so dream must not curate them again; they come
    whole so that search and recall find them. The cursor moves only over these entries: when
    this workspace had nothing waiting for dream and they took the next cursors in a row
    (anything another writer appended meanwhile has a higher cursor and still waits).
    Otherwise they wait for dream like the rest, and a note says so.
    """
    consumed = [e for e in imported.history if e.cursor <= imported.dream_cursor]
    caught_up = stores.dream_cursor.read() >= stores.history.last_cursor()
    start = stores.history.last_cursor()
    added = [
        cursor
        for entry in consumed
        if (cursor := _append_once(stores, marks, entry.session_key, entry.content)) is not None
    ]
    if not added:
        return ()
    if caught_up and added == list(range(start + 1, start + 1 + len(added))):
        stores.dream_cursor.write(added[-1])
        stores.audit.commit(
            f"import: {len(added)} history entr(ies) nanobot's dream had consumed",
            allow_empty=True,
        )
        return ()
    return (
        (
            f"{len(added)} history entr(ies) nanobot's dream had already consumed were imported"
            " after entries still waiting for dream here: the next dream reads them again"
        ),
    )


def _append_once(stores: IngestStores, marks: set[str], scope: str | None, text: str) -> int | None:
    """Append ``text`` unless an earlier ingest did; return its cursor (None: already there)."""
    stored = prepared_content(text)
    if _key(scope, stored) in marks:
        return None
    entry = stores.history.append(stored, session_key=scope, kind="import", max_chars=None)
    marks.add(_key(scope, stored))
    return entry.cursor


def _adopted_files(stores: IngestStores, imported: ImportedWorkspace) -> set[str]:
    """Keys of the files this nanobot workspace's adoption commit already holds."""
    subject = f"import: nanobot workspace {imported.root.name}"
    commit = next((c for c in stores.audit.log(1_000) if c.subject == subject), None)
    if commit is None:
        return set()
    keys = set()
    for name, text in imported.files.items():
        kept = stores.audit.file_at(commit.sha, RELATIVE_PATHS[name])
        if kept is not None and kept.decode("utf-8", errors="replace") == clean_text(text):
            keys.add(_key(name, text))
    return keys


def _imported_entries(stores: IngestStores) -> set[str]:
    """Keys of the import entries already in history (O(history), once per nanobot source)."""
    return {
        _key(entry.session_key, entry.content)
        for entry in stores.history.entries()
        if entry.kind == "import"
    }


def _key(scope: str | None, content: str) -> str:
    return hashlib.sha256(f"{scope}\0{content}".encode()).hexdigest()
