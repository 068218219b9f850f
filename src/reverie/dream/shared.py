"""Model-free dream on the storage seam: a database workspace that several servers share.

A folder workspace dreams through ``Dreamer`` (a staging copy on disk, a publish journal, a
git commit). A database workspace has no folder: its publish is one transaction
(``SeamPublisher.publish``, which ``reverie.postgres.audit.PgAudit`` implements), so there is
no journal to write and nothing to recover. One run::

    take the lock "dream" without waiting       another server dreams -> outcome "busy"
    read the batch after the dream cursor       nothing pending -> "no_pending"
    curate it without a model (``reverie.modelfree``) into new texts of the durable files
    guard each new text (``guard``: secrets redacted, new SOUL.md rules screened)
    note the sources of the lines it adds (``reverie.provenance.record.note_changes``)
    publish the files, the dream cursor and ONE commit "dream: <trigger> (model-free)" in one
        transaction that first checks the dream cursor is still where the run read it
        (else "conflict", nothing written: a server whose lease lapsed publishes nothing)
    then a ledger line, the refused rules, and trim the history

So across servers each entry is consumed exactly once (the lease lets one run at a time; the
cursor check stops a run that lost its lease). Invariants 7, 8 and 9 hold as on a folder: the
cursor moves only in a completed run's transaction and ``restore`` rolls it back with the
files; only the three durable files are written (by name); the commit message is built from
the real diff by the audit. Not here yet: dream with a model (its tool loop stages on disk),
the back-off state, and the redaction-only run when nothing is pending. ``restore_on_stores``
is ``restore`` for such a workspace, and ``edit_on_stores`` a person's edit, under the same
lease.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from reverie.config import DreamConfig
from reverie.dream.confine import canonical_writable
from reverie.dream.curated import MODEL_FREE
from reverie.dream.edit import EDIT_LOCK_TIMEOUT, EditResult, check_version, clean_edit
from reverie.dream.guard import guard_text
from reverie.dream.result import DreamResult
from reverie.dream.rewind import check_rewind
from reverie.errors import DreamError, LockTimeoutError, StoreUnsupportedError
from reverie.ports import ProvenanceStores, Stores
from reverie.provenance.record import note_changes
from reverie.screening import RejectedRule
from reverie.store.audit_commits import CommitInfo
from reverie.store.audit_lines import person_identity
from reverie.store.entries import HistoryEntry
from reverie.store.ledger import LedgerRecord
from reverie.store.memory_files import MEMORY_FILE_NAMES, RELATIVE_PATHS


@runtime_checkable
class SeamPublisher(Protocol):
    """An audit that publishes files, the dream cursor and a commit in one transaction."""

    def publish(
        self,
        changes: Mapping[str, str | None],
        *,
        subject: str,
        dream_cursor: int | None = None,
        expected_cursor: int | None = None,
    ) -> CommitInfo | None:
        """Write ``changes``, set the cursor, commit; refuse if the cursor moved meanwhile."""


def restore_on_stores(stores: Stores, rev: str, *, force: bool = False) -> CommitInfo:
    """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

    Under the dream lease (waiting for a running dream, as on a folder), and refused with
    ``RestoreWouldLoseError`` when ``rev`` is older than a trim, unless ``force``.
    """
    with stores.lock("dream").hold():
        if not force:
            check_rewind(stores, rev)
        return stores.audit.restore(rev)


def edit_on_stores(
    stores: Stores,
    path: str,
    text: str,
    *,
    author: str,
    expected_sha256: str | None = None,
    timeout: float = EDIT_LOCK_TIMEOUT,
) -> EditResult:
    """A person's edit of a durable file, as ``dream.edit.edit_file`` does it on a folder.

    Under the dream lease (a running dream makes it wait up to ``timeout`` seconds), refused
    when the file changed since ``expected_sha256``, one ``edit: <path>`` commit with the
    person as author, none when nothing changed. Only the three durable files live in a
    database workspace: another writable path (a skill) raises ``StoreUnsupportedError``.
    """
    canonical = canonical_writable(path)
    name = next((n for n, relative in RELATIVE_PATHS.items() if relative == canonical), None)
    if name is None:
        raise StoreUnsupportedError(f"editing {canonical}", where=stores.location)
    new_text = clean_edit(text, canonical)
    person_identity(author)  # refuse a bad name before anything is written
    with stores.lock("dream").hold(timeout=timeout):
        current = stores.files.read(name)
        check_version(current, expected_sha256, canonical)
        if current == new_text:
            return EditResult(path=canonical, commit=None)
        stores.files.write(name, new_text)
        return EditResult(
            path=canonical, commit=stores.audit.commit(f"edit: {canonical}", author=author)
        )


def pending_reached(stores: Stores, config: DreamConfig) -> bool:
    """Whether ``config.pending_trigger`` entries wait after the dream cursor (a scheduled run)."""
    wanted = max(1, config.pending_trigger)
    return len(stores.history.read_since(stores.dream_cursor.read(), wanted)) >= wanted


@dataclass(frozen=True, slots=True, kw_only=True)
class _Curated:
    changes: dict[str, str]
    result: DreamResult


def dream_on_stores(
    stores: ProvenanceStores,
    publisher: SeamPublisher,
    config: DreamConfig,
    *,
    trigger: str = "manual",
    dry_run: bool = False,
) -> DreamResult:
    """Run one model-free dream over the next batch (see the module docstring)."""
    cursor = stores.dream_cursor.read()
    base = DreamResult(
        outcome="no_pending",
        mode=MODEL_FREE,
        trigger=trigger,
        dry_run=dry_run,
        cursor_before=cursor,
        cursor_after=cursor,
    )
    try:
        with stores.lock("dream").hold(timeout=0):
            return _run_locked(stores, publisher, config, base)
    except LockTimeoutError:
        return replace(base, outcome="busy", reason="another server holds the dream lock")


def _run_locked(
    stores: ProvenanceStores, publisher: SeamPublisher, config: DreamConfig, base: DreamResult
) -> DreamResult:
    cursor = stores.dream_cursor.read()  # again, under the lock: the last run may have moved it
    base = replace(base, cursor_before=cursor, cursor_after=cursor)
    entries = stores.history.read_since(cursor, max(1, config.batch_entries))
    if not entries:
        return replace(base, reason="no history entry after the dream cursor")
    curated = _curate(stores, config, entries, base)
    if base.dry_run:
        return curated.result
    last = entries[-1].cursor
    _note_sources(stores, curated.changes, entries)
    try:
        commit = publisher.publish(
            curated.changes,
            subject=f"dream: {curated.result.trigger}",
            dream_cursor=last,
            expected_cursor=cursor,
        )
    except DreamError as exc:
        return replace(curated.result, outcome="conflict", reason=str(exc))
    now = stores.clock()
    stores.ledger.append(LedgerRecord(time=now, job="dream", outcome="completed", model=MODEL_FREE))
    stores.rejections.append(curated.result.rejected, time=now)
    stores.history.trim(keep=config.keep_history)
    return replace(curated.result, cursor_after=last, commit=None if commit is None else commit.sha)


def _note_sources(
    stores: ProvenanceStores, changes: Mapping[str, str], entries: list[HistoryEntry]
) -> None:
    """Record where the new lines came from, before publishing (``reverie.provenance``).

    A record for a line not yet published is inert (records are looked up by a line's text),
    so a run that then conflicts or dies leaves nothing wrong behind.
    """
    if not changes:
        return
    old = stores.durable_texts()
    before = {path: old.get(path, "") for path in changes}
    at = stores.clock()
    note_changes(
        stores.provenance, stores.sessions, old=before, changes=changes, entries=entries, at=at
    )


def _curate(
    stores: Stores, config: DreamConfig, entries: list[HistoryEntry], base: DreamResult
) -> _Curated:
    # Imported on use, as in ``curated``: the curator's rules cost start-up time.
    from reverie.modelfree.curator import CuratorSettings, ModelFreeCurator  # noqa: PLC0415

    files = {name: stores.files.read(name) for name in MEMORY_FILE_NAMES}
    curator = ModelFreeCurator(CuratorSettings(file_chars=config.file_chars))
    result = curator.curate(files, entries, today=stores.clock().astimezone().date())
    changes: dict[str, str] = {}
    rejected: list[RejectedRule] = []
    diff: list[str] = []
    for name in result.changed:
        path = RELATIVE_PATHS[name]
        guarded = guard_text(path, files[name], result.new_texts[name])
        rejected += guarded.rejected
        if guarded.text != files[name]:
            changes[path] = guarded.text
            diff += difflib.unified_diff(
                files[name].splitlines(keepends=True),
                guarded.text.splitlines(keepends=True),
                fromfile=f"a/{path}",
                tofile=f"b/{path}",
            )
    done = replace(
        base,
        outcome="completed",
        trigger=f"{base.trigger} ({MODEL_FREE})",
        rounds=1,
        entries=len(entries),
        files_changed=tuple(changes),
        diff="".join(diff),
        rejected=tuple(rejected),
    )
    return _Curated(changes=changes, result=done)
