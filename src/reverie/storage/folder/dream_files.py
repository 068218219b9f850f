"""A workspace folder's skill files and dream back-off state, behind the storage seam's ports.

``FolderSkillFiles`` is ``SkillFilesPort`` over ``skills/<name>/SKILL.md``: every path is one
``layout.SKILL_FILE`` names (else ``ValueError``, as on every backend) and is checked on the real
tree with dream's strict rule before it is read or written (``layout.check_writable_on_disk``:
no symlink at all, no hard link, no folder of the wrong kind), so a person's edit, the engine's
reads and a dream reach the same files the same safe way. A write replaces the file atomically
and is not committed (the caller commits).

``FolderDreamState`` is ``DreamStatePort`` over ``.reverie/dream-state.json``: the text
``DreamState`` reads, replaced atomically; an unreadable file reads as absent (a fresh state
follows, with a warning), so one damaged file cannot stop dream.
"""

from __future__ import annotations

import logging
from pathlib import Path

from reverie.errors import StorageError
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text
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
        if layout.SKILL_FILE.fullmatch(path) is None:
            raise ValueError(f"not a skill file path: {path!r} (skills/<name>/SKILL.md)")
        check_writable_on_disk(self.root, path)
        return self.root / path


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
