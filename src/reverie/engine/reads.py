"""The reads of ``MemoryEngine`` that do more than ask one port: functions over the stores.

History pages, a session's transcript (raw on the owner's opt-in), durable files by path and
their line ages, provenance (``why``, ``lines``, forget's plan), doctor's checks and where the
workspace stands (``status``). The reads that are one port's call (``sessions``, ``log``,
``costs``...) are the engine's own one-line methods. Nothing here changes a file; each process
is imported where it runs (provenance, doctor and status are not needed by every command, and
the audit types come with dulwich, which a read that never touches git does not import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.core.durable import RELATIVE_PATHS
from reverie.core.inbound import check_limit, check_session_key
from reverie.core.writable import canonical_writable
from reverie.engine.transcripts import own_view, raw_store
from reverie.memory.recall.dense import recall_line

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.config.settings import Config
    from reverie.core.audit import LineOrigin
    from reverie.core.entries import HistoryEntry
    from reverie.core.session import Session
    from reverie.engine.parts import Parts
    from reverie.memory.doctor import DoctorReport
    from reverie.memory.provenance.plan import ForgetPlan
    from reverie.memory.provenance.why import WhyReport
    from reverie.memory.recall.dense.encoder import DenseStatus
    from reverie.memory.status import Status
    from reverie.storage.ports import Backend


def transcript(stores: Backend, config: Config, session_key: str, *, raw: bool) -> Session:
    """A session's messages; with ``raw``, the raw text kept on the owner's opt-in.

    Raw text exists only with ``[sessions] raw_transcripts = true`` and only for messages a
    secret was redacted from; without the setting this is the session as stored.

    Raises:
        StoreUnsupportedError: ``raw`` with the setting on a backend that keeps no raw
            transcripts (a database workspace).
    """
    session = stores.sessions.load(check_session_key(session_key))
    store = raw_store(stores, config) if raw else None
    return session if store is None else own_view(store, session)


def history(
    stores: Backend, *, since: int | None, session_key: str | None, limit: int | None
) -> list[HistoryEntry]:
    """History entries, oldest first, optionally of one session.

    With ``since``, the first ``limit`` entries after that cursor (page forward by passing the
    last cursor seen); without it, the newest ``limit`` entries.
    """
    limit = None if limit is None else check_limit(limit)
    found = stores.history.read_since(since) if since is not None else stores.history.entries()
    kept = [e for e in found if session_key is None or e.session_key == session_key]
    if limit is None:
        return kept
    return kept[:limit] if since is not None else kept[-limit:]


def read_file(stores: Backend, path: str) -> str:
    """The text of a durable file dream may write (``SOUL.md``, ``memory/MEMORY.md``, ...).

    The three durable files as every prompt reads them (``files``), a skill through the
    backend's skill files (on a folder with dream's strict link rule); '' when absent.
    """
    canonical = canonical_writable(path)
    for name, relative in RELATIVE_PATHS.items():
        if relative == canonical:
            return stores.files.read(name)
    return stores.skills.read(canonical)


def line_origins(stores: Backend, paths: tuple[str, ...]) -> dict[str, tuple[LineOrigin, ...]]:
    """Per durable file (default: the three), each line and the commit that last added it."""
    wanted = [canonical_writable(p) for p in paths] or list(RELATIVE_PATHS.values())
    return stores.audit.line_origins({p: read_file(stores, p) for p in wanted})


def why(stores: Backend, text: str) -> WhyReport:
    """The durable lines matching ``text``, each with the entries and messages it came from."""
    from reverie.memory.provenance.why import explain  # noqa: PLC0415 (see the docstring)

    return explain(stores, text)


def lines(stores: Backend) -> WhyReport:
    """Every durable line, in file order, each with the entries and messages it came from."""
    from reverie.memory.provenance.why import explain_all  # noqa: PLC0415 (see the docstring)

    return explain_all(stores)


def forget_plan(stores: Backend, text: str) -> ForgetPlan:
    """What ``forget(text)`` would remove; nothing changes (show it, then ask)."""
    from reverie.memory.provenance.plan import plan_forget  # noqa: PLC0415

    return plan_forget(stores, text)


def doctor(stores: Backend) -> DoctorReport:
    """Check the workspace's integrity (``report.ok`` is False on problems)."""
    from reverie.memory.doctor import examine  # noqa: PLC0415

    return examine(stores)


def doctor_links(folder: Path) -> DoctorReport:
    """Doctor's link check of a folder workspace that ``open`` refused for a link.

    ``open`` stops at the first outside link (``OutsideLinkError``, whose ``root`` is the
    folder); this lists every one of them, so a person fixes them all at once.
    """
    from reverie.memory.doctor import examine_links  # noqa: PLC0415

    return examine_links(folder)


def status(parts: Parts, dense_status: DenseStatus) -> Status:
    """Where the workspace stands: pending entries, file sizes, last dream, ledger totals.

    Reads the dream schedule through ``DreamOutlook`` alone: the runner is not imported.
    """
    from reverie.memory.status import gather  # noqa: PLC0415

    config = parts.config
    return gather(
        parts.stores,
        parts.dream_outlook(),
        mode=parts.mode,
        chat_model=config.model.model,
        memory_model=config.memory.model,
        recall=recall_line(dense_status, parts.dense),
        sources=config.sources,
    )
