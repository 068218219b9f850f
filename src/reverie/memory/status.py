"""``status``: where a workspace stands, gathered without reading whole files twice.

Pending history (exact count after the dream cursor, read by bisection), durable file sizes in
tokens, the last dream and whether the next one is due, session count, ledger totals by job,
which mode (model or model-free) memory jobs run in, which model each job uses (``jobs``:
chat, compaction and dream, each a model name, ``(none)`` or ``model-free``), and the latest
SOUL.md rules screening refused (so a person can add one by hand if they meant it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from reverie.core.durable import MEMORY_FILE_NAMES, FileSize
from reverie.core.ledger import JobTotals
from reverie.core.screening import RecordedRejection
from reverie.core.session import is_internal
from reverie.errors import CursorError, ReverieError, StorageError
from reverie.memory.dream.outlook import DreamOutlook
from reverie.memory.dream.schedule import Decision
from reverie.memory.dream.state import DreamState
from reverie.storage.ports import Stores

NO_DREAM = Decision(run=False, trigger=None, reason="dream does not run on these stores")
"""The next dream of stores dream cannot run on."""
REJECTED_SHOWN = 10
"""How many of the latest refused rules ``status`` carries."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Status:
    """A snapshot of one stores."""

    workspace: str
    mode: str
    chat_model: str
    memory_model: str
    last_cursor: int
    dream_cursor: int
    pending_entries: int
    oldest_pending: datetime | None
    files: tuple[FileSize, ...]
    sessions: int
    """Conversations: reverie's own sessions (dream transcripts, scheduled jobs) left out."""
    last_dream: DreamState
    next_dream: Decision
    ledger: dict[str, JobTotals]
    ledger_unreadable: int
    quarantined_lines: int
    jobs: dict[str, str]
    damaged: tuple[str, ...] = ()
    """Files status could not read (shown instead of failing; ``doctor`` says more)."""
    rejected_rules: tuple[RecordedRejection, ...] = ()
    recall: str = "BM25 only"
    """How recall ranks: BM25 only, or fused with dense recall (and why it is off)."""
    sources: tuple[tuple[str, str], ...] = ()
    """Where each model setting came from (``Config.sources``): ``reverie.toml``, a
    ``REVERIE_*`` variable of this process, or ``default``."""


def gather(
    stores: Stores,
    dream: DreamOutlook | None,
    *,
    mode: str,
    chat_model: str,
    memory_model: str,
    recall: str = "BM25 only",
    sources: tuple[tuple[str, str], ...] = (),
) -> Status:
    """Collect the status of ``stores`` (a damaged cursor or state is listed in ``damaged``).

    ``dream``: the schedule, read without building the dream runner (a folder's or a
    database's); None: dream does not run on these stores.
    """
    damaged: list[str] = []
    try:
        dream_cursor = stores.dream_cursor.read()
    except (CursorError, StorageError) as exc:
        damaged.append(str(exc))
        dream_cursor = 0
    pending = stores.history.read_since(dream_cursor)
    summary = stores.ledger.summary()
    memory = memory_model if mode == "model" and memory_model else "model-free"
    return Status(
        workspace=stores.location,
        mode=mode,
        chat_model=chat_model or "(none)",
        memory_model=memory_model or "(none)",
        last_cursor=stores.history.last_cursor(),
        dream_cursor=dream_cursor,
        pending_entries=len(pending),
        oldest_pending=pending[0].time if pending else None,
        files=tuple(stores.files.size(name) for name in MEMORY_FILE_NAMES),
        sessions=sum(1 for info in stores.sessions.list() if not is_internal(info.key)),
        last_dream=dream.state() if dream is not None else DreamState(),
        next_dream=_next_dream(dream, damaged) if dream is not None else NO_DREAM,
        ledger=summary.by_job,
        ledger_unreadable=summary.unreadable,
        quarantined_lines=len(stores.quarantine.records())
        + len(stores.sessions.quarantine.records()),
        jobs={"chat": chat_model or "(none)", "compaction": memory, "dream": memory},
        damaged=tuple(damaged),
        rejected_rules=tuple(stores.rejections.latest(REJECTED_SHOWN)),
        recall=recall,
        sources=sources,
    )


def _next_dream(dream: DreamOutlook, damaged: list[str]) -> Decision:
    try:
        return dream.should_run()
    except ReverieError as exc:
        if not damaged:
            damaged.append(str(exc))
        return Decision(run=False, trigger=None, reason="cannot tell: see `reverie doctor`")
