"""The durable files as MCP resources, and the watch that notices when they change.

Each durable file is one resource (``reverie://memory/SOUL.md``, ``.../USER.md``,
``.../MEMORY.md``, Markdown text). ``FileWatch`` keeps a fingerprint (a SHA-256 of the text)
of each file and says which ones changed since it last looked: the server asks it after a
dream run through its own tool, and every few seconds for changes made elsewhere (a dream in
``reverie chat``, a ``reverie restore``), and publishes a resource-updated event for each.
It reads the files through ``MemoryEngine.read_memory`` only, on the engine its lender
gives it for each look.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from reverie.core.durable import MEMORY_FILE_NAMES, MemoryFileName
from reverie.engine.facade import MemoryEngine

URI_PREFIX = "reverie://memory/"
FILE_TITLES: dict[MemoryFileName, tuple[str, str]] = {
    "SOUL": ("SOUL.md", "How the agent behaves: rules, tone, tool strategy."),
    "USER": ("USER.md", "Stable facts about the user: identity, preferences, habits."),
    "MEMORY": ("MEMORY.md", "Facts about projects and the world, and decisions made."),
}
"""The file name a client sees and the resource description, per durable file."""


def uri(name: MemoryFileName) -> str:
    """The resource URI of a durable file."""
    return URI_PREFIX + FILE_TITLES[name][0]


class FileWatch:
    """Which durable files changed since the last look (thread-safe)."""

    def __init__(self, lend: Callable[[], AbstractContextManager[MemoryEngine]]) -> None:
        self._lend = lend
        self._lock = threading.Lock()
        self._seen = self._fingerprints()

    def changed(self) -> list[str]:
        """The URIs of the files whose text changed since the previous call, in file order."""
        with self._lock:
            now = self._fingerprints()
            moved = [uri(name) for name in MEMORY_FILE_NAMES if now[name] != self._seen[name]]
            self._seen = now
            return moved

    def _fingerprints(self) -> dict[MemoryFileName, str]:
        with self._lend() as engine:
            return {
                name: hashlib.sha256(engine.read_memory(name).encode()).hexdigest()
                for name in MEMORY_FILE_NAMES
            }
