"""The durable memory files of a folder: SOUL.md, USER.md and memory/MEMORY.md, by name.

The set of names is closed (``reverie.core.durable.MemoryFileName``); nothing here takes a
free path, so no caller can reach another file through this class, and no read or write goes
through a symlink leading outside the workspace (``layout.check_path``). Writes are atomic
replaces. Each file starts with a short starter text that says what belongs in it;
``is_starter`` lets prompt assembly skip a file nobody has written to yet.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reverie.core.durable import (
    MEMORY_FILE_NAMES,
    RELATIVE_PATHS,
    FileSize,
    MemoryFileName,
    size_of,
    starter_only,
)
from reverie.core.inbound import clean_text
from reverie.core.token_estimate import estimate_tokens
from reverie.errors import StorageError
from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.layout import check_path


class MemoryFiles:
    """Read and atomically replace the three durable files of a workspace."""

    def __init__(self, root: Path, *, count_tokens: Callable[[str], int] = estimate_tokens) -> None:
        self.root = root
        self._count_tokens = count_tokens

    def path(self, name: MemoryFileName) -> Path:
        """Return the absolute path of a memory file."""
        return self.root / RELATIVE_PATHS[name]

    def read(self, name: MemoryFileName) -> str:
        """Return a file's text ('' when it does not exist).

        Bytes that are not UTF-8 (a hand edit saved in another encoding) read as U+FFFD, so one
        bad byte cannot stop every prompt; ``doctor`` reports the file.

        Raises:
            OutsideLinkError: the file (or its folder) is a symlink leading outside.
        """
        check_path(self.root, RELATIVE_PATHS[name])
        try:
            data = self.path(name).read_bytes()
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise StorageError(f"cannot read memory file ({exc})", path=self.path(name)) from exc
        return data.decode("utf-8", errors="replace")

    def read_all(self) -> dict[MemoryFileName, str]:
        """Return every durable file's text by name ('' for a file that does not exist)."""
        return {name: self.read(name) for name in MEMORY_FILE_NAMES}

    def write(self, name: MemoryFileName, text: str) -> None:
        """Replace a file's text atomically (lone surrogates as U+FFFD; never through a link)."""
        check_path(self.root, RELATIVE_PATHS[name], write=True)
        atomic_write_text(self.path(name), clean_text(text))

    def is_starter(self, name: MemoryFileName) -> bool:
        """True when the file is absent, empty, or still holds only its starter text."""
        return starter_only(name, self.read(name))

    def size(self, name: MemoryFileName) -> FileSize:
        """Return the file's size in characters and estimated tokens."""
        return size_of(name, self.read(name), self._count_tokens)
