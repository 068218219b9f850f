"""The session store's last replays: decoded messages of recent sessions, bounded by size.

A prompt replays its session; decoding every message row again costs more than the rest of
a lexical prompt on a long session (about 15 µs a message). ``Replays`` keeps the decoded
messages of the sessions used last, each with the generation it was read at, so a load
reads only the rows past them while the generation holds (``sessions_sqlite``). The bound is
the size of what is kept (``CHARS``: the characters of the rows' JSON lines, a close
measure of the memory the messages take), not a number of sessions: a server with many
short sessions keeps many, one with a few long ones keeps those. The least recently used go
first; the session just read is always kept. Not shared between processes or stores.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from reverie.core.messages import Message

CHARS = 32_000_000
"""Characters of message rows kept at most, over every session (the last read is kept)."""


class Replay(NamedTuple):
    """One session's decoded messages, the generation they were read at, and their size."""

    generation: str
    messages: tuple[Message, ...]
    size: int


class Replays:
    """Decoded messages by session key, least recently used out first (see the module doc)."""

    def __init__(self, *, chars: int = CHARS) -> None:
        self._bound = chars
        self._kept: OrderedDict[str, Replay] = OrderedDict()
        self._size = 0

    def get(self, key: str) -> Replay | None:
        """What is kept for ``key``, if anything."""
        return self._kept.get(key)

    def put(self, key: str, replay: Replay) -> None:
        """Keep ``replay`` of ``key``; drop the least recently used past the bound."""
        self.drop(key)
        self._kept[key] = replay
        self._size += replay.size
        while self._size > self._bound and len(self._kept) > 1:
            _key, dropped = self._kept.popitem(last=False)
            self._size -= dropped.size

    def drop(self, key: str) -> None:
        """Forget ``key`` (its rows were replaced, or it was deleted)."""
        found = self._kept.pop(key, None)
        if found is not None:
            self._size -= found.size

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def size(self) -> int:
        """Characters kept."""
        return self._size
