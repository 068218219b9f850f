"""Secrets kept in session messages written before redaction ran on append: found, rewritten.

Every message is redacted as it is admitted (``reverie.core.inbound.admit``), so a session
written now never holds a secret. A session written by an older reverie (or an import made
before that) can: ``find`` lists, per session, the messages whose text or tool-call arguments
``redact_message`` would change, with the kinds of secret they hold (``find_kinds``), and the
compaction summaries that hold one. ``session_secrets`` is doctor's finding (a problem, naming
the fix: ``reverie doctor --redact-sessions``). ``rewrite`` replaces each such message in place
by its redacted form (``SessionsPort.redact(change=redact_message)``): same index, role, ids,
names and times, so every compaction mark, history range and reference stays true, and nothing
but the secrets goes. The engine then refreshes the search index and the vectors
(``MemoryEngine.redact_sessions``).

Works through the ports only: a folder and a database workspace alike. ``find`` and
``session_secrets`` only read.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from reverie.core.inbound import redact_message
from reverie.core.redact import find_kinds, redact

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.core.messages import Message
    from reverie.storage.ports import SessionsPort

FIX = "reverie doctor --redact-sessions"
"""The command that rewrites them (doctor's finding names it)."""


class _HasSessions(Protocol):
    @property
    def sessions(self) -> SessionsPort: ...


class _Report(Protocol):
    """Doctor's report (``reverie.memory.doctor.DoctorReport``), as this check uses it."""

    def problem(self, check: str, message: str, path: Path | None = None) -> None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSecrets:
    """One session's messages (by index) and compaction summary that still hold a secret."""

    session_key: str
    indices: tuple[int, ...]
    summary: bool
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionsRedacted:
    """What ``rewrite`` did: how many messages and summaries, in how many sessions."""

    sessions: int = 0
    messages: int = 0
    summaries: int = 0


def find(sessions: SessionsPort) -> list[SessionSecrets]:
    """Every session that still holds a secret, sorted by key."""
    found: list[SessionSecrets] = []
    for info in sessions.list():
        session = sessions.load(info.key)
        indices = [n for n, m in enumerate(session.messages) if redact_message(m) != m]
        summary = session.summary is not None and redact(session.summary.text) != (
            session.summary.text
        )
        if not indices and not summary:
            continue
        texts = [_text(session.messages[n]) for n in indices]
        if summary and session.summary is not None:
            texts.append(session.summary.text)
        kinds = sorted({kind for text in texts for kind in find_kinds(text)})
        found.append(
            SessionSecrets(
                session_key=info.key, indices=tuple(indices), summary=summary, kinds=tuple(kinds)
            )
        )
    return found


def rewrite(sessions: SessionsPort, found: list[SessionSecrets]) -> SessionsRedacted:
    """Replace every message and summary ``find`` listed by its redacted form."""
    messages = summaries = 0
    for item in found:
        # ``redact`` overwrites with no old byte left (and, on a folder, leaves the store
        # doing so for the summary written next); the second call clears what it replaced.
        sessions.redact(item.session_key, item.indices, change=redact_message)
        messages += len(item.indices)
        session = sessions.load(item.session_key)
        if item.summary and session.summary is not None:
            text = redact(session.summary.text)
            sessions.set_summary(item.session_key, text, session.summary.last_active)
            sessions.redact(item.session_key, (), change=redact_message)
            summaries += 1
    return SessionsRedacted(sessions=len(found), messages=messages, summaries=summaries)


def session_secrets(stores: _HasSessions, report: _Report) -> None:
    """Doctor's finding: a problem for each session that still holds a secret.

    A session store that cannot be read is the database check's finding, not this one's.
    """
    try:
        found = find(stores.sessions)
    except sqlite3.DatabaseError:
        return
    for item in found:
        held = f"{len(item.indices)} message(s)" + (" and its summary" if item.summary else "")
        report.problem(
            "session-secrets",
            f"session {item.session_key}: {held} hold a secret ({', '.join(item.kinds)}),"
            f" written before redaction ran on append; run `{FIX}` to rewrite them redacted",
        )


def _text(message: Message) -> str:
    calls = " ".join(call.arguments for call in message.tool_calls)
    return f"{message.text} {calls}"
