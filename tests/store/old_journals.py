"""Session journals as an older reverie wrote them, byte for byte, for the move into SQLite.

Nothing in reverie writes journals any more, so these helpers spell the old format out
(``reverie.storage.folder.session_records`` documents it) and return the ``Session`` the old journal
store would have loaded from what they wrote.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from reverie import ArchivedSummary, Message, Session
from reverie.core.messages import JSONObject
from reverie.storage.folder.session_keys import key_to_stem


def journal_path(root: Path, key: str) -> Path:
    """Where the journal store kept session ``key`` of the workspace at ``root``."""
    return root / "sessions" / (key_to_stem(key) + ".journal")


def line(kind: str, at: datetime, **fields: object) -> bytes:
    """One journal record: ``{"t": kind, "at": ..., **fields}`` and a newline."""
    record = {"t": kind, "at": at.isoformat(), **fields}
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def head(key: str, created: datetime) -> bytes:
    """The first line of a journal: key, random id, creation time."""
    record = {"t": "head", "format": 1, "key": key, "id": secrets.token_hex(8)}
    record["created_at"] = created.isoformat()
    return (json.dumps(record, ensure_ascii=False) + "\n").encode()


@dataclass(slots=True)
class OldJournal:
    """A journal being written record by record, and the session it holds."""

    key: str
    created: datetime
    data: bytearray = field(default_factory=bytearray)
    at: datetime | None = None
    messages: list[Message] = field(default_factory=list)
    mark: int = 0
    summary: ArchivedSummary | None = None
    metadata: JSONObject = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.data += head(self.key, self.created)
        self.at = self.created

    def _tick(self) -> datetime:
        assert self.at is not None
        self.at += timedelta(seconds=1)
        return self.at

    def message(self, message: Message) -> OldJournal:
        """Append one ``msg`` record."""
        self.data += line("msg", self._tick(), m=message.to_json())
        self.messages.append(message)
        return self

    def set_mark(self, upto: int) -> OldJournal:
        """Append one ``mark`` record."""
        self.data += line("mark", self._tick(), upto=upto)
        self.mark = upto
        return self

    def set_summary(self, text: str, last_active: datetime) -> OldJournal:
        """Append one ``summary`` record."""
        value = {"text": text, "last_active": last_active.isoformat()}
        self.data += line("summary", self._tick(), summary=value)
        self.summary = ArchivedSummary(text=text, last_active=last_active)
        return self

    def set_metadata(self, values: JSONObject) -> OldJournal:
        """Append one ``meta`` record (its keys merge into the metadata)."""
        self.data += line("meta", self._tick(), set=values)
        self.metadata.update(values)
        return self

    def write(self, root: Path) -> Session:
        """Write the journal into ``root/sessions``; return the session it holds."""
        path = journal_path(root, self.key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(bytes(self.data))
        assert self.at is not None
        return Session(
            key=self.key,
            created_at=self.created,
            updated_at=self.at,
            messages=tuple(self.messages),
            metadata=dict(self.metadata),
            compacted_upto=self.mark if 0 <= self.mark <= len(self.messages) else 0,
            summary=self.summary,
        )
