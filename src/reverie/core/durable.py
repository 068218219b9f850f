"""The durable files by name: SOUL, USER and MEMORY, the one way every layer addresses them.

The set of names is closed (``MemoryFileName``): a caller names a file, never a path, so no
name can reach another file. ``RELATIVE_PATHS`` says where each lives in a folder workspace
(``SOUL.md``, ``USER.md``, ``memory/MEMORY.md``; a database keeps them in rows under the same
names), ``FILE_NAMES`` the names clients see, ``durable_name`` the one parser of a name a
person or client gives, ``STARTER_TEXTS`` what a new file says belongs in it,
``starter_only`` whether nobody has written to it yet. This module does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

MemoryFileName = Literal["SOUL", "USER", "MEMORY"]


MEMORY_FILE_NAMES: tuple[MemoryFileName, ...] = ("SOUL", "USER", "MEMORY")


RELATIVE_PATHS: dict[MemoryFileName, str] = {
    "SOUL": "SOUL.md",
    "USER": "USER.md",
    "MEMORY": "memory/MEMORY.md",
}


DREAM_CURSOR = "memory/.dream_cursor"
"""The dream cursor's file: audited and restored with the durable files, on every backend."""

FILE_NAMES: dict[str, MemoryFileName] = {
    "SOUL.md": "SOUL",
    "USER.md": "USER",
    "MEMORY.md": "MEMORY",
}
"""The durable files by the name a client sees (tool schemas, routes, adapters)."""


def durable_name(text: str) -> MemoryFileName | None:
    """The durable file a person or client names, or None.

    Accepted, case-insensitively: the name (``USER``), the file name (``USER.md``) and the
    workspace path (``memory/MEMORY.md``, ``./SOUL.md``). Nothing else: no other folder.
    """
    base = text.strip().removeprefix("./")
    folder, slash, rest = base.rpartition("/")
    if slash and folder.casefold() != "memory":
        return None
    base = rest if rest.casefold().endswith(".md") else rest + ".md"
    return FILE_NAMES.get(base[:-3].upper() + ".md")


STARTER_TEXTS: dict[MemoryFileName, str] = {
    "SOUL": "# Soul\n\nHow the agent behaves: rules, tone, tool strategy.\n",
    "USER": "# User\n\nStable facts about the user: identity, preferences, habits.\n",
    "MEMORY": "# Memory\n\nFacts about projects and the world, and decisions made.\n",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class FileSize:
    """The size of one memory file in characters and estimated tokens."""

    name: MemoryFileName
    chars: int
    tokens: int


def starter_only(name: MemoryFileName, text: str) -> bool:
    """True when ``text`` of file ``name`` is empty or still only its starter text."""
    stripped = text.strip()
    return not stripped or stripped == STARTER_TEXTS[name].strip()


def size_of(name: MemoryFileName, text: str, count_tokens: Callable[[str], int]) -> FileSize:
    """The size of file ``name`` holding ``text``, in characters and estimated tokens."""
    return FileSize(name=name, chars=len(text), tokens=count_tokens(text))
