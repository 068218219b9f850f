"""A workspace folder's skill files, dream files and back-off state, behind the seam's ports.

``FolderSkillFiles`` is ``SkillFilesPort`` over ``skills/<name>/SKILL.md``: every path is one
``SKILL_FILE`` names (else ``ValueError``, as on every backend) and is checked on the real
tree with dream's strict rule before it is read or written (``layout.check_writable_on_disk``:
no symlink at all, no hard link, no folder of the wrong kind), so a person's edit, the engine's
reads and a dream reach the same files the same safe way. A write replaces the file atomically
and is not committed (the caller commits).

``FolderDreamFiles`` is ``DreamFilesPort``: the writable files as a dream run stages them, each
checked with the same strict rule and read as strict UTF-8 (a staged base is never a guess),
the other workspace files the model may read (``confine.resolve_readable``: no hidden file, no
``sessions/``, no history log, no config; opened without following a symlink swapped in since
the check), and the workspace's ``prompts/dream.md`` when it overrides the instructions.

``FolderDreamState`` is ``DreamStatePort`` over ``.reverie/dream-state.json``: the text
``DreamState`` reads, replaced atomically; an unreadable file reads as absent (a fresh state
follows, with a warning), so one damaged file cannot stop dream.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from reverie.core.writable import SKILL_FILE
from reverie.errors import ConfinementError, StorageError
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.confine import resolve_readable
from reverie.storage.folder.dream_journal import disk_text
from reverie.storage.folder.layout import check_writable_on_disk

logger = logging.getLogger(__name__)


class FolderSkillFiles:
    """The skill files of the workspace at ``root`` (``reverie.storage.ports.SkillFilesPort``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def paths(self) -> list[str]:
        """Every skill file that exists as a regular file through no link, sorted."""
        return sorted(layout.skill_files(self.root))

    def read(self, path: str) -> str:
        """A skill file's text ('' when absent).

        Raises:
            ValueError: ``path`` is not ``skills/<name>/SKILL.md``.
            ConfinementError: reaching it is unsafe (a symlink, a hard link...).
            StorageError: the file cannot be read.
        """
        target = self._checked(path)
        try:
            return target.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError) as exc:
            raise StorageError(f"cannot read {path} ({exc})", path=target) from exc

    def write(self, path: str, text: str) -> None:
        """Replace a skill file's text atomically (not committed: the caller commits)."""
        target = self._checked(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create folder ({exc})", path=target.parent) from exc
        atomic_write_text(target, text)

    def _checked(self, path: str) -> Path:
        if SKILL_FILE.fullmatch(path) is None:
            raise ValueError(f"not a skill file path: {path!r} (skills/<name>/SKILL.md)")
        check_writable_on_disk(self.root, path)
        return self.root / path


class FolderDreamFiles:
    """The files a dream run stages and reads in the folder ``root`` (``DreamFilesPort``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def check(self, canonical: str) -> None:
        """Refuse a writable path that is unsafe on the real tree (``ConfinementError``)."""
        check_writable_on_disk(self.root, canonical)

    def read(self, canonical: str) -> str:
        """The disk text of a writable file ('' when absent), checked first, strict UTF-8."""
        check_writable_on_disk(self.root, canonical)
        return disk_text(self.root, canonical)

    def skill_paths(self) -> list[str]:
        """The skill files that exist through no link at all."""
        try:
            return layout.skill_files(self.root)
        except OSError:
            return []

    def read_other(self, raw_path: str, max_chars: int) -> bytes:
        """Read a readable workspace file (``confine.resolve_readable``), refusing a non-file."""
        return read_regular(resolve_readable(self.root, raw_path), max_chars)

    def instructions(self, max_chars: int) -> str | None:
        """``prompts/dream.md`` as UTF-8 text cut at ``max_chars``; None when absent or unusable."""
        override = layout.PROMPT_OVERRIDE
        try:
            real = resolve_readable(self.root, override)
        except ConfinementError as exc:
            if (self.root / override).exists() or (self.root / override).is_symlink():
                logger.warning("ignoring %s: %s", override, exc.reason)
            return None
        try:
            return _decode_cut(read_regular(real, max_chars, spare=1), max_chars)
        except (OSError, UnicodeDecodeError, ConfinementError) as exc:
            logger.warning("ignoring %s: cannot read it as UTF-8 text (%s)", override, exc)
            return None


def read_regular(real: Path, max_chars: int, *, spare: int = 4) -> bytes:
    """Read up to ``max_chars`` characters' worth of bytes, refusing a swapped-in non-file."""
    # O_NOFOLLOW and O_NONBLOCK: a symlink or FIFO put in place since the check neither
    # redirects nor blocks the read; fstat then sees what was really opened.
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfinementError("not a regular file", path=str(real))
        return handle.read(max_chars * 4 + spare)


def _decode_cut(data: bytes, max_chars: int) -> str:
    if len(data) > max_chars * 4:
        # Cut short: drop a character split at the end (at most 3 bytes), nothing else.
        data = data[: max_chars * 4]
        for cut in range(4):
            try:
                return data[: len(data) - cut].decode("utf-8")[:max_chars]
            except UnicodeDecodeError:
                continue
    return data.decode("utf-8")[:max_chars]


class FolderDreamState:
    """Dream's back-off state in one file (``reverie.storage.ports.DreamStatePort``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read_text(self) -> str | None:
        """The stored text; None when the file is absent or unreadable (logged)."""
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning("dream state %s is unreadable (%s); starting afresh", self.path, exc)
            return None

    def write_text(self, text: str) -> None:
        """Replace the stored text atomically.

        Raises:
            StorageError: the file could not be written.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create folder ({exc.strerror})", path=self.path.parent
            ) from exc
        atomic_write_text(self.path, text)
