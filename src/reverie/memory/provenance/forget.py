"""``forget``: remove a fact and everything it came from or led to, in one audited step.

It works on the storage seam (``reverie.storage.ports.ProvenanceStores``), so a folder and a
database workspace forget with the same semantics; the steps below name the port each one uses.

Under the dream lock (so no dream, restore or other forget runs meanwhile), the plan is
computed afresh (``plan``) and carried out in this order::

    session messages   tombstoned in place (index, role and tool-call ids kept; see
                       ``redaction``); compaction summaries holding the text cleared
    history entries    cut or removed (``HistoryPort.edit``): the folder's log is repaired
                       (unreadable lines to its quarantine) and rewritten atomically under
                       the history lock; a database deletes or updates the rows in one
                       transaction
    durable lines      removed, then ONE audit commit "forget: <what, by count and id>" whose
                       body is the real diff (made even when no durable file changed)
    provenance         the records of forgotten lines go; other records lose the sources
                       that were forgotten (``ProvenancePort``)
    search index       caught up: it sees the rewritten log and journals and drops their rows
                       (on a database the tables are the index: nothing to catch up)
    purge (optional)   ``purge``: audit history rewritten, side files and caches scrubbed

History entries: removed, not tombstoned. The log stays sorted by cursor, ``.cursor`` keeps
the floor, so no cursor is ever handed out again; a reader following cursors sees a gap, as
after a trim; nanobot reads the file as before (it only ever sees whole entries). A tombstone
would have kept a content-free line in every prompt's recent history and in dream's batch.
Session messages are tombstoned instead, because their indices are referenced (compaction
marks, entry ranges, provenance).

Crash safety: each step is atomic on its own; the sidecar goes last, so running the same
``forget`` again after a crash finds what is left (the lines' records still lead to their
sources) and finishes. Without ``purge`` the audit history still holds the removed lines
(that is what an audit is for; ``restore`` could bring a line back, as hand-written).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.core.messages import JSONObject
from reverie.core.provenance import EntrySource, LineRecord, Provenance
from reverie.errors import InputError
from reverie.memory.provenance.plan import ForgetPlan, PlannedLine, plan_forget
from reverie.memory.provenance.purge import PurgeReport, purge_stores

if TYPE_CHECKING:
    from reverie.storage.ports import Backend, IndexPort, ProvenanceStores

logger = logging.getLogger(__name__)

_LISTED = 10
"""At most this many cursors and messages are named in the commit subject."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ForgetReport:
    """What ``forget`` removed, the audit commit that records it, and what purge did."""

    plan: ForgetPlan
    commit: str | None = None
    purge: PurgeReport | None = None

    @property
    def removed(self) -> bool:
        """True when anything was removed."""
        return not self.plan.empty

    def to_json(self) -> JSONObject:
        """The report as plain JSON."""
        return {
            **self.plan.to_json(),
            "commit": self.commit,
            "purge": None if self.purge is None else self.purge.to_json(),
        }


def forget(
    stores: Backend,
    query: str,
    *,
    purge: bool = False,
    index: IndexPort,
    confirm_broad: bool = False,
) -> ForgetReport:
    """Remove everything ``plan_forget(query)`` lists; with ``purge``, scrub every trace.

    Args:
        stores: the workspace.
        query: the text to forget.
        purge: also rewrite the audit history and scrub every file.
        index: the search index to catch up.
        confirm_broad: go ahead with a plan ``breadth`` calls broad (a person's choice).

    Raises:
        InputError: ``query`` is too short, or the plan is broad and not confirmed; nothing
            was changed.
        StorageError, AuditError: the disk or git failed (run the same forget again).
    """
    lock = stores.lock("dream")
    try:
        with lock.hold():
            stores.finish_interrupted_publish()  # no later recovery rolls over the forget
            plan = plan_forget(stores, query)
            refusal = plan.broad_refusal()
            if refusal is not None and not confirm_broad:
                raise InputError(refusal)
            commit = None if plan.empty else _remove(stores, plan)
            index.refresh()
            purged = purge_stores(stores, plan, index=index) if purge else None
            if purged is not None and commit is not None:  # the purge rewrote it
                commit = stores.audit.log(1)[0].sha
    finally:
        lock.close()
    logger.info("forgot %s", plan.describe())
    return ForgetReport(plan=plan, commit=commit, purge=purged)


def _remove(stores: ProvenanceStores, plan: ForgetPlan) -> str | None:
    by_session: dict[str, set[int]] = {}
    for message in plan.messages:
        by_session.setdefault(message.session_key, set()).add(message.index)
    for key in sorted(set(by_session) | set(plan.summaries)):
        stores.sessions.redact(key, by_session.get(key, set()), summary=key in plan.summaries)
    stores.history.edit({entry.cursor: entry.kept for entry in plan.entries})
    _remove_lines(stores, plan.lines)
    made = stores.audit.commit(_subject(plan), allow_empty=True)
    _drop_records(stores, plan)
    return None if made is None else made.sha


def _remove_lines(stores: ProvenanceStores, lines: tuple[PlannedLine, ...]) -> None:
    texts = stores.durable_texts()
    for file in sorted({line.file for line in lines}):
        numbers = {line.number: line.text for line in lines if line.file == file}
        kept = [
            line
            for number, line in enumerate(texts.get(file, "").splitlines(keepends=True), start=1)
            if numbers.get(number) != line.rstrip()
        ]
        stores.write_durable(file, "".join(kept))


def _subject(plan: ForgetPlan) -> str:
    cursors = [f"#{e.cursor}" for e in plan.entries]
    messages = [f"{m.session_key}#{m.index}" for m in plan.messages]
    named = ", ".join(cursors[:_LISTED]) + (" ..." if len(cursors) > _LISTED else "")
    said = ", ".join(messages[:_LISTED]) + (" ..." if len(messages) > _LISTED else "")
    summaries = f", summaries of {', '.join(plan.summaries)}" if plan.summaries else ""
    return (
        f"forget: {len(plan.lines)} line(s), entries {named or 'none'}, "
        f"messages {said or 'none'}{summaries}"
    )


def _drop_records(stores: ProvenanceStores, plan: ForgetPlan) -> None:
    provenance = stores.provenance.read()
    cursors = {entry.cursor for entry in plan.entries if entry.removed}
    messages = {(m.session_key, m.index) for m in plan.messages}
    kept = Provenance()
    for where, record in provenance.records.items():
        if where in plan.records:
            continue
        sources = tuple(_without(s, messages) for s in record.sources if s.cursor not in cursors)
        kept.records[where] = LineRecord(
            file=record.file,
            key=record.key,
            first=record.first,
            updated=record.updated,
            sources=sources,
        )
    stores.provenance.write(kept)


def _without(source: EntrySource, messages: set[tuple[str, int]]) -> EntrySource:
    if source.session_key is None:
        return source
    refs = tuple(m for m in source.messages if (source.session_key, m.index) not in messages)
    return EntrySource(
        cursor=source.cursor,
        session_key=source.session_key,
        time=source.time,
        kind=source.kind,
        range=source.range,
        messages=refs,
    )
