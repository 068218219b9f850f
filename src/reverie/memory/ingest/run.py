"""Ingest: turn existing conversations into durable, searchable, audited memory.

``run_ingest`` imports every path (format detected), replays each conversation into its session
turn by turn at its recorded pace so token-pressure compaction runs as it would have live,
compacts what is left (the conversations are over), then dreams until nothing is pending. It
works the same with a model or without one (model-free summariser and curator).

Re-ingesting the same data adds nothing: a session only receives messages it does not hold yet
(content hashes), history entries of a nanobot workspace are matched by session and content,
and with nothing new there is nothing to compact or dream. A bad record is reported with its
position and skipped; the rest goes on. Every message passes ``reverie.core.inbound.admit`` first:
lone surrogates become U+FFFD (counted in ``IngestReport.replaced``), a message too large or
too deep is a problem, not an abort.

One writer, any crash. One ingest runs per workspace at a time (``ingest_guard``), and every
step is idempotent by content, so a SIGKILL at any instant followed by a rerun ends exactly
where one clean run ends: the rerun first redoes the compaction check the crash may have cut
off, the compactor reuses an entry whose mark a crash did not move, every replayed session
is compacted whether or not it received new messages, and the sessions of an interrupted run
(the run record of ``reverie.storage.ports.ingest``) are finished by the next ingest whatever its
paths.

A nanobot workspace brings its own memory: when this workspace's durable files still hold only
their starter text, nanobot's files are adopted (one audit commit); otherwise their text is
appended to history for dream to merge. Its history comes whole: the entries nanobot's dream
had consumed arrive consumed (the dream cursor moves past them, one audit commit: their facts
are in nanobot's files already), the rest waits for dream; search finds both. What was brought
in is remembered by content hash (the marks of ``reverie.storage.ports.ingest``), so a second
ingest adds nothing.

nanobot's consolidated split is honoured whichever path brought a session (workspace, sessions
folder, one file): on first import the messages nanobot had compacted (``last_archived``, else
``last_consolidated``) are stored already compacted, never summarised again, and nanobot's own
summary of them (``_last_summary``) becomes one history entry of that session. Imported sessions
have their own keys (``import:nanobot:<source>:<key>``), so they never merge into a live one.
Records that are not conversation (``provider_state``) are counted in ``records_skipped``.

Any backend. Ingest reaches the workspace only through ``reverie.storage.ports.IngestStores``, so it
runs the same on a folder and on a PostgreSQL workspace: the same dedupe, screening, compaction,
history entries and audit commits (the marks and the run record are ``.reverie/imported.json``
and ``.reverie/ingest.json`` in a folder, rows of ``ingest_marks`` and ``ingest_runs`` in the
database).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from reverie.core.inbound import admit
from reverie.core.messages import Message
from reverie.core.session import Session
from reverie.errors import InputError
from reverie.memory.ingest.guard import begin, finish, hold_ingest, unfinished
from reverie.memory.ingest.importers import (
    ImportedConversation,
    ImportProblem,
    load,
    new_messages,
)
from reverie.memory.ingest.merge import merge_workspace
from reverie.storage.ports import IngestStores

if TYPE_CHECKING:
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.dream.result import DreamOutcome, DreamResult

Progress = Callable[[str, int, int], None]
"""``on_progress(stage, done, total)``; stages: ``import`` (records read), ``replay``
(messages replayed: after each conversation, and every ``REPLAY_STEP`` inside a long one),
``dream`` (entries curated), ``vectors`` (items encoded for dense recall, by
``MemoryEngine.ingest``), and ``wait`` (once, when another ingest holds the workspace)."""

MAX_DREAM_RUNS = 10_000
REPLAY_STEP = 100
"""Inside a long conversation, the replay's progress is told every this many messages."""


class Compaction(Protocol):
    """What ingest asks of compaction (``reverie.memory.compaction.compactor.Compactor`` is one)."""

    def ensure_budget(self, key: str, /) -> CompactionResult:
        """Compact session ``key`` until its next prompt fits."""
        ...

    def compact_all(self, key: str, /, *, reason: str) -> CompactionResult:
        """Compact every pending message of session ``key``."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestJob:
    """What an ingest works with: the workspace's stores, its compaction, its dream, the mode."""

    stores: IngestStores
    compaction: Compaction
    dream: Callable[[], DreamResult]
    """Run one dream batch (trigger ``ingest``)."""
    mode: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestReport:
    """What an ingest did."""

    sessions: int
    messages_added: int
    messages_skipped: int
    entries: int
    commits: int
    dream_runs: int
    mode: str
    seconds: float
    problems: tuple[ImportProblem, ...]
    records_skipped: int = 0
    replaced: int = 0
    """Lone surrogates (half characters) replaced with U+FFFD in the imported text."""
    undreamt: int = 0
    """History entries still waiting for dream when the ingest ended (the next dream takes
    them); ``dream_stopped`` says why."""
    dream_stopped: DreamOutcome | None = None
    """How the last dream run ended when it was not completed: ``busy`` (another process
    holds the dream), ``failed`` and the other failed outcomes."""
    notes: tuple[str, ...] = ()
    """What a person should know that is not a bad record: a nanobot workspace whose sessions
    folder was not found says where it looked (left out when a sessions folder came too)."""


def run_ingest(
    job: IngestJob,
    paths: Sequence[Path],
    on_progress: Progress | None = None,
    *,
    wait: bool = True,
) -> IngestReport:
    """Import ``paths`` into ``job``'s workspace, compact, and dream until nothing waits.

    One ingest runs per workspace at a time: a second one waits for the first (progress
    stage ``wait``), or with ``wait=False`` raises ``IngestBusyError``.
    """
    notify = on_progress or _quiet
    with hold_ingest(job.stores, wait=wait, on_wait=lambda: notify("wait", 0, 1)):
        return _ingest_locked(job, paths, notify)


def _ingest_locked(job: IngestJob, paths: Sequence[Path], notify: Progress) -> IngestReport:
    started = time.monotonic()
    stores = job.stores
    history_before = stores.history.last_cursor()
    head_before = _head(job)
    conversations, problems, records, notes = _load_all(job, paths, notify)
    conversations.sort(key=lambda c: (c.started_at is None, c.started_at or 0, c.key))
    left_over = unfinished(stores)  # an earlier ingest died: finish its sessions too
    begin(stores, [*left_over, *(c.key for c in conversations)])
    tally = _Tally()
    total = sum(len(c.messages) for c in conversations)
    for conversation in conversations:
        _replay(job, conversation, tally, problems, lambda: notify("replay", tally.seen, total))
    for key in left_over:
        _finish_session(job, key)
    runs, undreamt, stopped = _dream_until_done(job, notify)
    finish(stores)
    return IngestReport(
        sessions=len({c.key for c in conversations}),
        messages_added=tally.added,
        messages_skipped=tally.skipped,
        entries=stores.history.last_cursor() - history_before,
        commits=_commits_since(job, head_before),
        dream_runs=runs,
        mode=job.mode,
        seconds=time.monotonic() - started,
        problems=tuple(problems),
        records_skipped=records,
        replaced=tally.replaced,
        undreamt=undreamt,
        dream_stopped=stopped,
        notes=notes,
    )


def _load_all(
    job: IngestJob, paths: Sequence[Path], notify: Progress
) -> tuple[list[ImportedConversation], list[ImportProblem], int, tuple[str, ...]]:
    """Read every path (merging workspaces): conversations, problems, skipped records, notes.

    A note that a workspace's sessions were not found is dropped when a sessions folder came
    in the same ingest (the person already passed it).
    """
    conversations: list[ImportedConversation] = []
    problems: list[ImportProblem] = []
    records = 0
    notes: list[str] = []
    merged: list[str] = []
    folders = False
    for path in paths:
        batch = load(Path(path), on_progress=lambda done, total: notify("import", done, total))
        conversations.extend(batch.conversations)
        problems.extend(batch.problems)
        records += batch.skipped_records
        notes.extend(batch.notes)
        folders = folders or batch.format == "nanobot-sessions"
        if batch.workspace is not None:
            merged.extend(merge_workspace(job.stores, batch.workspace))
    return conversations, problems, records, (*(() if folders else notes), *merged)


def _head(job: IngestJob) -> str | None:
    log = job.stores.audit.log(1)
    return log[0].sha if log else None


def _commits_since(job: IngestJob, head: str | None) -> int:
    page = 64
    while True:
        log = job.stores.audit.log(page)
        shas = [info.sha for info in log]
        if head in shas:
            return shas.index(head)
        if len(log) < page:
            return len(log)
        page *= 4


def _quiet(_stage: str, _done: int, _total: int) -> None:
    return None


@dataclass(slots=True)
class _Tally:
    added: int = 0
    skipped: int = 0
    replaced: int = 0
    seen: int = 0
    """Messages of the source replayed so far (added or already there): the replay's progress."""


def _replay(
    job: IngestJob,
    conversation: ImportedConversation,
    tally: _Tally,
    problems: list[ImportProblem],
    moved: Callable[[], None],
) -> None:
    """Append the messages the session lacks, a turn at a time, compacting as it goes.

    ``moved`` is called once the conversation is done, and inside a long one each time
    another ``REPLAY_STEP`` messages are in, with ``tally.seen`` counting the messages
    replayed so far (a count fixed by the input, so a rerun reports the same steps).

    Idempotent by content: a rerun after a crash at any point appends only what is missing,
    first doing the compaction check the crash may have cut off, so it ends where one clean
    run ends (the compactor reuses an entry a crash left without its mark).
    """
    key = conversation.key
    admitted = _admitted(conversation, problems)
    tally.replaced += sum(count for _message, count in admitted)
    messages = tuple(message for message, _count in admitted)
    sessions = job.stores.sessions
    existing = sessions.load(key).messages
    adopted = 0 if existing else _adopt_compacted(job, conversation, messages)
    if adopted:
        existing = messages[:adopted]
    fresh = new_messages(existing, messages)
    tally.added += adopted + len(fresh)
    tally.skipped += len(conversation.messages) - adopted - len(fresh)
    if sessions.exists(key):
        job.compaction.ensure_budget(key)
    end = tally.seen + len(conversation.messages)
    tally.seen = end - len(fresh)
    for turn in _turns(fresh):
        sessions.append_many(key, turn)
        job.compaction.ensure_budget(key)
        before, tally.seen = tally.seen, tally.seen + len(turn)
        if tally.seen // REPLAY_STEP > before // REPLAY_STEP and tally.seen < end:
            moved()
    _finish_session(job, key)
    tally.seen = end
    moved()


def _adopt_compacted(
    job: IngestJob, conversation: ImportedConversation, messages: Sequence[Message]
) -> int:
    """On first import, store what the source had already compacted; return how many.

    The compacted messages and their compaction mark land in one atomic session write, so a
    crash cannot leave them pending (to be summarised a second time). The source's own
    summary of them goes to history once, as this session's summary.
    """
    stores = job.stores
    compacted = conversation.compacted
    if not 0 < compacted <= len(messages):
        compacted = 0
    if compacted:
        now = stores.clock()
        first = next((m.timestamp for m in messages[:compacted] if m.timestamp), now)
        last = next((m.timestamp for m in reversed(messages[:compacted]) if m.timestamp), now)
        stores.sessions.put(
            Session(
                key=conversation.key,
                created_at=first,
                updated_at=last,
                messages=tuple(messages[:compacted]),
                compacted_upto=compacted,
            )
        )
    summary = conversation.summary
    if summary is not None and summary.text.strip():
        stores.history.append(
            summary.text,
            session_key=conversation.key,
            kind="summary",
            at=summary.last_active,
            source_range=(0, compacted) if compacted else None,
        )
    return compacted


def _finish_session(job: IngestJob, key: str) -> None:
    """Compact whatever the session holds pending (the conversation is over)."""
    job.compaction.compact_all(key, reason="ingest")


def _admitted(
    conversation: ImportedConversation, problems: list[ImportProblem]
) -> list[tuple[Message, int]]:
    kept: list[tuple[Message, int]] = []
    for number, message in enumerate(conversation.messages, start=1):
        try:
            kept.append(admit(message, where=f"{conversation.key} message {number}"))
        except InputError as exc:
            problems.append(
                ImportProblem(
                    path=conversation.source, position=number, reason=str(exc), unit="record"
                )
            )
    return kept


def _turns(messages: Sequence[Message]) -> list[list[Message]]:
    turns: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def _dream_until_done(job: IngestJob, notify: Progress) -> tuple[int, int, DreamOutcome | None]:
    """Dream batch after batch until nothing is pending or a run does not complete.

    Return the runs, the entries still waiting for dream, and the outcome of the run that
    stopped short (None when none did).
    """
    stores = job.stores
    total = len(stores.history.read_since(stores.dream_cursor.read()))
    runs, stopped = 0, None
    while runs < MAX_DREAM_RUNS:
        result = job.dream()
        if result.outcome == "no_pending":
            break
        runs += 1
        left = len(stores.history.read_since(stores.dream_cursor.read()))
        notify("dream", total - left, total)
        if result.outcome != "completed":
            stopped = result.outcome
            break
    left = len(stores.history.read_since(stores.dream_cursor.read()))
    return runs, left, stopped if left else None
