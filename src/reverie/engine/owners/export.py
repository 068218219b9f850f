"""A principal's memory whole, as JSON: what ``reverie principal export --json`` prints.

One document with every durable file (path and text: SOUL.md, USER.md, memory/MEMORY.md,
skills), every history entry (its cursor, stamp, time, session, range, kind and text) and
every session with every message (its index in the session, role, content, tool calls,
time), compacted ones included, plus each session's mark, summary and metadata. Read through
the engine's public reads, so it is the same on a folder and on a database, and it holds
only what the principal's own workspace holds (the engine is opened on that workspace alone).

The other form of an export, a new workspace folder, is ``Home.export_folder``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from reverie.core.json_data import jsonable

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject, JSONValue
    from reverie.core.session import Session
    from reverie.engine.facade import MemoryEngine

FORMAT = "reverie.principal-export/1"
"""The document's ``format``: bumped when a field changes meaning."""


def export_document(engine: MemoryEngine, principal: str) -> JSONObject:
    """Everything ``principal``'s workspace remembers, as one JSON object (see the module doc)."""
    history: list[JSONValue] = [json.loads(e.to_line()) for e in engine.history()]
    files: list[JSONValue] = [
        {"path": path, "text": text} for path, text in sorted(engine.durable_files().items())
    ]
    sessions: list[JSONValue] = [_session(engine.session(info.key)) for info in engine.sessions()]
    return {
        "format": FORMAT,
        "principal": principal,
        "location": engine.location,
        "files": files,
        "history": history,
        "sessions": sessions,
    }


def _session(session: Session) -> JSONObject:
    messages: list[JSONValue] = []
    for index, message in enumerate(session.messages):
        messages.append({"index": index, **message.to_json()})
    return {
        "key": session.key,
        "created_at": session.created_at.isoformat(),
        "updated_at": session.updated_at.isoformat(),
        "compacted_upto": session.compacted_upto,
        "summary": jsonable(session.summary),
        "metadata": dict(session.metadata),
        "messages": messages,
    }
