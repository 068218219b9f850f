"""Fill a workspace (folder or PostgreSQL) with generated chat, through the bulk paths.

Shape of a filled workspace of N items (an item is what recall and search see: a history
entry or a session message):

- one item in ten is a history entry (a compaction-style summary, ``ChatText.entry``), the
  rest are session messages, user and assistant alternating, timestamps one to three
  minutes apart, ascending from 2024-01-01;
- ``PROBES`` probe sessions (``probe:s00`` ...) of ``PROBE_LENGTH`` messages each are made
  once, in the first fill (shorter when the first size is below 12,000 items, so that they
  stay under half of it): the timed calls use them, so what a call costs depends on the
  workspace's size and not on how long the session it touches happens to be;
- the rest goes to bulk sessions whose lengths are log-uniform between 10 and 3,000 messages,
  under keys shaped like real channels (``cli:``, ``telegram:``, ``api:``);
- every session is compacted up to its last 8 messages, and the dream cursor sits 10 entries
  behind the last one, as in a workspace in steady use.

Growing is incremental: ``Filler.grow(target)`` adds items until the workspace holds
``target``, so 10k, 100k and 1M are one workspace measured three times. Writes go through the
stores' bulk paths (``SessionStore.append_many`` in chunks of 500; PostgreSQL's
``append_many`` for history in chunks of 1,000; the folder log has only ``append``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reverie.core.messages import Message
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend
from scalelib.chat import ChatText

PROBES = 50
PROBE_LENGTH = 120
CHUNK = 500
ENTRY_SHARE = 10
"""One item in ``ENTRY_SHARE`` is a history entry."""
CHANNELS = ("cli", "telegram", "api", "discord", "slack")
WORKSPACE = "bench-scale"
"""The workspace's name in the database."""


def open_backend(kind: str, target: str) -> Backend:
    """The stores of the bench's workspace: the folder ``target``, or ``WORKSPACE`` at that URL."""
    if kind == "folder":
        return FileBackend.open(Path(target), create=True)
    from reverie.storage.postgres.backend import PgBackend

    return PgBackend.open(target, WORKSPACE, create=True)


def probe_key(number: int) -> str:
    """The key of probe session ``number``."""
    return f"probe:s{number % PROBES:02d}"


@dataclass(slots=True)
class Filler:
    """Grows one workspace with generated items; remembers how many it holds."""

    backend: Backend
    text: ChatText
    items: int = 0
    sessions: int = 0
    moment: datetime = datetime(2024, 1, 1, tzinfo=UTC)

    def grow(self, target: int) -> None:
        """Add items until the workspace holds ``target`` (history, then sessions, then marks)."""
        wanted = target - self.items
        if wanted <= 0:
            return
        entries = wanted // ENTRY_SHARE
        messages = wanted - entries
        if self.items == 0:
            messages -= self._probes(min(PROBE_LENGTH, max(2, target // (2 * PROBES))))
        self._history(entries)
        while messages > 0:
            length = min(messages, self._length())
            self._session(f"{CHANNELS[self.sessions % 5]}:{self.sessions:06d}", length)
            messages -= length
        self.items = target
        self._settle()

    def _length(self) -> int:
        return int(math.exp(self.text.rng.uniform(math.log(10), math.log(3000))))

    def _probes(self, length: int) -> int:
        for number in range(PROBES):
            self._session(probe_key(number), length)
        return PROBES * length

    def _tick(self) -> datetime:
        self.moment += timedelta(seconds=self.text.rng.randint(60, 180))
        return self.moment

    def _session(self, key: str, length: int) -> None:
        self.sessions += 1
        batch: list[Message] = []
        for number in range(length):
            if number % 2 == 0:
                batch.append(Message(role="user", content=self.text.user(), timestamp=self._tick()))
            else:
                content = self.text.assistant()
                batch.append(Message(role="assistant", content=content, timestamp=self._tick()))
            if len(batch) == CHUNK:
                self.backend.sessions.append_many(key, batch)
                batch = []
        if batch:
            self.backend.sessions.append_many(key, batch)

    def _history(self, count: int) -> None:
        history = self.backend.history
        bulk = getattr(history, "append_many", None)  # PostgreSQL's one-transaction batch
        if bulk is None:
            for number in range(count):
                key = f"{CHANNELS[number % 5]}:{number % 997:06d}"
                history.append(self.text.entry(), session_key=key, at=self._tick())
            return
        from reverie.storage.postgres.history import NewEntry

        for start in range(0, count, 1000):
            batch = [
                NewEntry(text=self.text.entry(), session_key=f"api:{n % 997:06d}", at=self._tick())
                for n in range(start, min(count, start + 1000))
            ]
            bulk(batch)

    def _settle(self) -> None:
        """Compact every session to its last 8 messages; dream cursor 10 behind the last entry."""
        for info in self.backend.sessions.list():
            upto = max(0, info.message_count - 8)
            if info.compacted_upto < upto:
                self.backend.sessions.set_compacted_upto(info.key, upto)
        self.backend.dream_cursor.write(max(0, self.backend.history.last_cursor() - 10))
