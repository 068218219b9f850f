"""Ingest: turn existing conversations into durable, searchable, audited memory.

``run_ingest`` imports every path (format detected), replays each conversation into its session
turn by turn at its recorded pace so token-pressure compaction runs as it would have live,
archives what is left (the conversations are over), then dreams until nothing is pending. It
works the same with a model or without one (model-free summariser and curator).

Re-ingesting the same data adds nothing: a session only receives messages it does not hold yet
(content hashes), history entries of a nanobot workspace are matched by session and content,
and with nothing new there is nothing to compact or dream. A bad record is reported with its
position and skipped; the rest goes on.

A nanobot workspace brings its own memory: when this workspace's durable files still hold only
their starter text, nanobot's files are adopted (one audit commit); otherwise their text is
appended to history for dream to merge. Only the history nanobot's dream had not consumed is
appended (the rest is in its files). What was brought in is remembered by content hash in
``.reverie/imported.json``, so a second ingest adds nothing.

nanobot's consolidated split is honoured whichever path brought a session (workspace, sessions
folder, one file): on first import the messages nanobot had archived (``last_archived``, else
``last_consolidated``) are stored already compacted, never summarised again, and nanobot's own
summary of them (``_last_summary``) becomes one history entry of that session. Imported sessions
have their own keys (``import:nanobot:<source>:<key>``), so they never merge into a live one.
Records that are not conversation (``provider_state``) are counted in ``records_skipped``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.errors import StorageError
from reverie.importers import (
    ImportedConversation,
    ImportedWorkspace,
    ImportProblem,
    load,
    new_messages,
)
from reverie.messages import Message
from reverie.store.atomic import atomic_write_text
from reverie.store.memory_files import MEMORY_FILE_NAMES

if TYPE_CHECKING:
    from reverie.engine import MemoryEngine

Progress = Callable[[str, int, int], None]
"""``on_progress(stage, done, total)``; stages: ``import``, ``replay``, ``dream``."""

MAX_DREAM_RUNS = 10_000


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


def run_ingest(
    engine: MemoryEngine, paths: Sequence[Path], on_progress: Progress | None = None
) -> IngestReport:
    """Import ``paths`` into ``engine``'s workspace, compact, and dream until nothing waits."""
    started = time.monotonic()
    notify = on_progress or _quiet
    history_before = engine.workspace.history.last_cursor()
    head_before = _head(engine)
    conversations: list[ImportedConversation] = []
    problems: list[ImportProblem] = []
    records = 0
    for path in paths:
        batch = load(Path(path), on_progress=lambda done, total: notify("import", done, total))
        conversations.extend(batch.conversations)
        problems.extend(batch.problems)
        records += batch.skipped_records
        if batch.workspace is not None:
            _merge_workspace(engine, batch.workspace)
    conversations.sort(key=lambda c: (c.started_at is None, c.started_at or 0, c.key))
    added = skipped = 0
    for done, conversation in enumerate(conversations, start=1):
        new, old = _replay(engine, conversation)
        added, skipped = added + new, skipped + old
        notify("replay", done, len(conversations))
    runs = _dream_until_done(engine, notify)
    return IngestReport(
        sessions=len({c.key for c in conversations}),
        messages_added=added,
        messages_skipped=skipped,
        entries=engine.workspace.history.last_cursor() - history_before,
        commits=_commits_since(engine, head_before),
        dream_runs=runs,
        mode=engine.mode,
        seconds=time.monotonic() - started,
        problems=tuple(problems),
        records_skipped=records,
    )


def _head(engine: MemoryEngine) -> str | None:
    log = engine.workspace.audit.log(1)
    return log[0].sha if log else None


def _commits_since(engine: MemoryEngine, head: str | None) -> int:
    page = 64
    while True:
        log = engine.workspace.audit.log(page)
        shas = [info.sha for info in log]
        if head in shas:
            return shas.index(head)
        if len(log) < page:
            return len(log)
        page *= 4


def _quiet(_stage: str, _done: int, _total: int) -> None:
    return None


def _replay(engine: MemoryEngine, conversation: ImportedConversation) -> tuple[int, int]:
    """Append the messages the session lacks, a turn at a time, compacting as it goes."""
    sessions = engine.workspace.sessions
    existing = sessions.load(conversation.key).messages
    adopted = 0 if existing else _adopt_archived(engine, conversation)
    if adopted:
        existing = conversation.messages[:adopted]
    fresh = new_messages(existing, conversation.messages)
    for turn in _turns(fresh):
        sessions.append_many(conversation.key, turn)
        engine.compactor.ensure_budget(conversation.key)
    if fresh:
        engine.compactor.compact_all(conversation.key, reason="ingest")
    added = adopted + len(fresh)
    return added, len(conversation.messages) - added


def _adopt_archived(engine: MemoryEngine, conversation: ImportedConversation) -> int:
    """On first import, store what the source had archived as compacted; return how many.

    The source's own summary of those messages goes to history once, as this session's summary.
    """
    workspace = engine.workspace
    archived = conversation.archived
    if not 0 < archived <= len(conversation.messages):
        archived = 0
    if archived:
        workspace.sessions.append_many(conversation.key, conversation.messages[:archived])
        workspace.sessions.set_compacted_upto(conversation.key, archived)
    summary = conversation.summary
    if summary is not None and summary.text.strip():
        workspace.history.append(
            summary.text,
            session_key=conversation.key,
            kind="summary",
            at=summary.last_active,
            source_range=(0, archived) if archived else None,
        )
    return archived


def _turns(messages: Sequence[Message]) -> list[list[Message]]:
    turns: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def _merge_workspace(engine: MemoryEngine, imported: ImportedWorkspace) -> None:
    """Bring a nanobot workspace's memory in once (marks in ``.reverie/imported.json``)."""
    workspace = engine.workspace
    marks_path = workspace.root / ".reverie" / "imported.json"
    marks = _load_marks(marks_path)
    fresh = {n: t for n, t in imported.files.items() if _key(n, t) not in marks}
    if fresh and all(workspace.files.is_starter(name) for name in MEMORY_FILE_NAMES):
        for name, text in fresh.items():
            workspace.files.write(name, text)
        workspace.audit.commit(f"import: nanobot workspace {imported.root.name}")
    else:
        for text in fresh.values():  # ours has content: dream merges theirs in
            workspace.history.append(text, kind="import", max_chars=None)
    marks.update(_key(name, text) for name, text in fresh.items())
    for entry in imported.history:  # what nanobot's dream consumed is in its files already
        if (
            entry.cursor > imported.dream_cursor
            and _key(entry.session_key, entry.content) not in marks
        ):
            workspace.history.append(entry.content, session_key=entry.session_key, kind="import")
            marks.add(_key(entry.session_key, entry.content))
    atomic_write_text(marks_path, json.dumps(sorted(marks)))


def _load_marks(path: Path) -> set[str]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return set()
    except (OSError, ValueError) as exc:
        raise StorageError(f"unreadable import marks ({exc})", path=path) from exc
    return {item for item in loaded if isinstance(item, str)} if isinstance(loaded, list) else set()


def _key(scope: str | None, content: str) -> str:
    return hashlib.sha256(f"{scope}\0{content}".encode()).hexdigest()


def _dream_until_done(engine: MemoryEngine, notify: Progress) -> int:
    """Dream batch after batch until nothing is pending or a run fails; return the runs."""
    workspace = engine.workspace
    total = len(workspace.history.read_since(workspace.dream_cursor.read()))
    runs = 0
    while runs < MAX_DREAM_RUNS:
        result = engine.dream(trigger="ingest")
        if result.outcome == "no_pending":
            break
        runs += 1
        left = len(workspace.history.read_since(workspace.dream_cursor.read()))
        notify("dream", total - left, total)
        if result.outcome != "completed":
            break
    return runs
