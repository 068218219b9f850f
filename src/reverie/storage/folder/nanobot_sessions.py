"""Reading nanobot session files into reverie sessions.

A nanobot session file is JSON Lines: the first line is a metadata object (``{"_type":
"metadata", "key", "created_at", "updated_at", "metadata", "last_archived",
"last_consolidated"}``), every further line one chat message or another record that says what
it is with ``_type`` (nanobot 0.3.5 writes ``{"_type": "provider_state", ...}`` after the
metadata). Such records are not messages: they are skipped and counted
(``NanobotFile.skipped``), never reported as bad lines. A message flagged ``_hidden_history``
is nanobot's own internal turn, not something the person said: it is skipped and counted the
same way (the compaction mark, which counted it, is moved back over it). nanobot writes naive
local times; they are read as times in ``local_tz`` (the system's zone by default) and made
aware. Messages keep every field (unknown ones in ``Message.extra``). The compaction mark is
``last_archived`` (0.3.5's name, read first) else ``last_consolidated`` (older releases), reset
to 0 with a warning when outside ``0..len``; the metadata is kept as it is, except that
nanobot's ``_last_summary`` object becomes ``Session.summary``.

This module only reads the nanobot file; ``import_nanobot_session`` stores the result with
``SessionStore.put``. A line that is not valid JSON or not a valid message raises
``SessionImportError`` with its line number: an import never drops a message silently.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.config.bounded import read_bounded
from reverie.core.clock import aware, read_iso
from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError
from reverie.core.session import CompactionSummary, Session, safe_mark
from reverie.errors import SessionImportError, StorageError

if TYPE_CHECKING:
    from reverie.core.session import SessionInfo
    from reverie.storage.folder.sessions_sqlite import SessionStore

logger = logging.getLogger(__name__)

_SUMMARY_KEY = "_last_summary"
_HIDDEN = "_hidden_history"
"""nanobot's flag on a turn it keeps out of the conversation (its own bookkeeping)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NanobotFile:
    """One nanobot session file read: the session, and how many non-message records it skipped."""

    session: Session
    skipped: int = 0


def read_nanobot_session(
    path: Path, *, key: str | None = None, local_tz: tzinfo | None = None
) -> Session:
    """Read the nanobot session file at ``path`` (see ``read_nanobot_file``)."""
    return read_nanobot_file(path, key=key, local_tz=local_tz).session


def read_nanobot_file(
    path: Path, *, key: str | None = None, local_tz: tzinfo | None = None
) -> NanobotFile:
    """Read the nanobot session file at ``path``.

    Args:
        path: the ``.jsonl`` file.
        key: the session key, when the file's metadata line has none.
        local_tz: the zone nanobot's naive times are in (default: this system's zone).

    Raises:
        SessionImportError: a line is not valid, or no key is known.
        StorageError: the file cannot be read.
    """
    try:
        lines = read_bounded(path).split(b"\n")
        modified = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError as exc:
        raise StorageError(f"cannot read nanobot session ({exc.strerror})", path=path) from exc
    header: JSONObject = {}
    messages: list[Message] = []
    hidden: list[int] = []
    skipped = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        obj = _json(raw, path, number)
        if number == 1 and obj.get("_type") == "metadata":
            header = obj
            continue
        if ("_type" in obj and "role" not in obj) or obj.get(_HIDDEN) is True:
            skipped += 1  # provider_state and other bookkeeping records: not conversation
            if "role" in obj:
                hidden.append(len(messages) + len(hidden))  # its place among the messages
            continue
        try:
            messages.append(_localised(Message.from_json(obj), local_tz))
        except MessageFormatError as exc:
            raise SessionImportError(str(exc), path=path, line=number) from exc
    found_key = header.get("key")
    session_key = found_key if isinstance(found_key, str) and found_key else key
    if session_key is None:
        raise SessionImportError("no session key in the metadata line", path=path, line=1)
    session = _session(
        header, messages, key=session_key, local_tz=local_tz, modified=modified, hidden=hidden
    )
    return NanobotFile(session=session, skipped=skipped)


def import_nanobot_session(
    store: SessionStore, path: Path, *, key: str | None = None, local_tz: tzinfo | None = None
) -> SessionInfo:
    """Read the nanobot session file at ``path`` and store it (replacing that key's session)."""
    return store.put(read_nanobot_session(path, key=key, local_tz=local_tz))


def _json(raw: bytes, path: Path, number: int) -> JSONObject:
    try:
        obj = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SessionImportError(f"not JSON ({exc})", path=path, line=number) from exc
    except RecursionError as exc:
        raise SessionImportError("JSON nested too deeply", path=path, line=number) from exc
    if not isinstance(obj, dict):
        raise SessionImportError("not a JSON object", path=path, line=number)
    return obj


def _localised(message: Message, local_tz: tzinfo | None) -> Message:
    if message.timestamp is None:
        return message
    return replace(message, timestamp=aware(message.timestamp, local_tz))


def _time(value: JSONValue, local_tz: tzinfo | None) -> datetime | None:
    return read_iso(value, local_tz) if isinstance(value, str) else None


def _session(
    header: JSONObject,
    messages: list[Message],
    *,
    key: str,
    local_tz: tzinfo | None,
    modified: datetime,
    hidden: list[int],
) -> Session:
    created = _time(header.get("created_at"), local_tz) or modified
    updated = _time(header.get("updated_at"), local_tz) or created
    raw_metadata = header.get("metadata")
    metadata: JSONObject = dict(raw_metadata) if isinstance(raw_metadata, dict) else {}
    summary = _summary(metadata.get(_SUMMARY_KEY), local_tz)
    if summary is not None:
        del metadata[_SUMMARY_KEY]
    raw_mark = _archive_mark(header)
    if isinstance(raw_mark, int) and not isinstance(raw_mark, bool):
        raw_mark -= sum(1 for at in hidden if at < raw_mark)  # counted by nanobot, not kept
    mark = safe_mark(raw_mark, len(messages))
    if mark is None:
        logger.warning(
            "nanobot session %s: last_consolidated %r is outside 0..%d; importing with mark 0",
            key,
            raw_mark,
            len(messages),
        )
    return Session(
        key=key,
        created_at=created,
        updated_at=updated,
        messages=tuple(messages),
        metadata=metadata,
        compacted_upto=mark or 0,
        summary=summary,
    )


def _archive_mark(header: JSONObject) -> JSONValue:
    """``last_archived`` (nanobot 0.3.5) when it is a whole number, else ``last_consolidated``."""
    for name in ("last_archived", "last_consolidated"):
        value = header.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return header.get("last_archived", header.get("last_consolidated", 0))


def _summary(value: JSONValue, local_tz: tzinfo | None) -> CompactionSummary | None:
    if not isinstance(value, dict):
        return None
    text = value.get("text")
    last_active = _time(value.get("last_active"), local_tz)
    if not isinstance(text, str) or last_active is None:
        return None
    return CompactionSummary(text=text, last_active=last_active)
