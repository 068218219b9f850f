"""Workspace folders looked at from outside: read as a source, guarded, or checked unopened.

The processes above storage take a workspace through the ports once it is open
(``reverie.storage.open``). A few of them look at a folder that is *not* opened as stores, and
what they need of its layout is here, so no module above storage imports a backend's own:

- an ingest's source, a nanobot or reverie workspace folder (one layout: a nanobot workspace is
  a reverie workspace): where its history, cursors and sessions are (``SourceFolder``), its
  nanobot session files (``read_nanobot_session_file``) and a reverie folder's sessions database,
  read from a copy (``read_sessions_copy``) so the source is never written;
- the target folder itself, which an ingest may not read from (``inside_own_layout``);
- a folder ``open`` refused for a link: every link, for ``doctor`` (``link_findings``).

Nothing here writes to the folder it looks at. The folder's modules are imported on use: the
engine imports this module to guard every ingest, and most runs read no source.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.storage.folder import layout

if TYPE_CHECKING:
    from reverie.core.findings import DoctorReport
    from reverie.core.session import Session
    from reverie.storage.folder.nanobot_sessions import NanobotFile

__all__ = [
    "SourceFolder",
    "inside_own_layout",
    "link_findings",
    "read_nanobot_session_file",
    "read_sessions_copy",
]

_OWN_TOP: frozenset[str] = frozenset(relative.split("/")[0] for relative in layout.CHECKED)
"""The top-level names of a workspace's own layout (``memory``, ``.reverie``, ``SOUL.md``...)."""
_SIDE_FILES = ("-wal",)
"""What SQLite keeps beside a database that a copy needs (the newest transactions)."""


@dataclass(frozen=True, slots=True)
class SourceFolder:
    """Where the workspace folder at ``root`` keeps what an ingest reads of it."""

    root: Path

    @property
    def history(self) -> Path:
        """The history log (``memory/history.jsonl``)."""
        return self.root / layout.HISTORY

    @property
    def cursor(self) -> Path:
        """The last cursor handed out (``memory/.cursor``)."""
        return self.root / layout.CURSOR

    @property
    def dream_cursor(self) -> Path:
        """The last cursor dream consumed (``memory/.dream_cursor``)."""
        return self.root / layout.DREAM_CURSOR

    @property
    def sessions(self) -> Path:
        """The folder of nanobot session files kept in the workspace (``sessions/``)."""
        return self.root / layout.SESSIONS

    @property
    def sessions_database(self) -> Path:
        """A reverie workspace's sessions (``.reverie/sessions.sqlite3``)."""
        return self.root / layout.SESSIONS_DB


def inside_own_layout(path: Path, root: Path) -> bool:
    """Whether ``path`` is the workspace folder ``root``, or a file or folder of its layout.

    Both are resolved first (a symlink, ``ws/.reverie/..``). A file kept elsewhere inside the
    workspace (``ws/exports/chat.json``) is not part of its layout.
    """
    real_root = root.resolve()
    real = Path(path).expanduser().resolve()
    return real == real_root or (
        real.is_relative_to(real_root) and real.relative_to(real_root).parts[0] in _OWN_TOP
    )


def read_nanobot_session_file(
    path: Path, *, key: str | None, local_tz: tzinfo | None
) -> NanobotFile:
    """Read one nanobot session file (``reverie.storage.folder.nanobot_sessions``).

    Raises:
        SessionImportError: a line is not valid, or no key is known.
        StorageError: the file cannot be read.
    """
    from reverie.storage.folder.nanobot_sessions import read_nanobot_file  # noqa: PLC0415

    return read_nanobot_file(path, key=key, local_tz=local_tz)


def read_sessions_copy(database: Path, *, wanted: Callable[[str], bool]) -> list[Session]:
    """The sessions whose key is ``wanted`` of the reverie sessions database at ``database``.

    The database and its write-ahead log (where the newest transactions may still be) are
    copied into a temporary folder and the copy is read with the store's own reader: opening
    the source itself could create or checkpoint files in a folder that is only being read.
    The copy is gone when this returns.

    Raises:
        OSError: the database cannot be copied.
        StorageError, sqlite3.Error, ValueError: the copy is not a readable sessions database.
    """
    from reverie.storage.folder.sessions_sqlite import SqliteSessionStore  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="reverie-import-") as scratch:
        copy = Path(scratch) / database.name
        shutil.copyfile(database, copy)
        for suffix in _SIDE_FILES:
            side = database.with_name(database.name + suffix)
            if side.is_file():
                shutil.copyfile(side, copy.with_name(copy.name + suffix))
        store = SqliteSessionStore(Path(scratch) / "sessions", state_dir=Path(scratch), clock=_now)
        try:
            keys = [info.key for info in store.list() if wanted(info.key)]
            return [store.load(key) for key in keys]
        finally:
            store.close()


def link_findings(root: Path, report: DoctorReport) -> None:
    """Every link of the folder at ``root`` leading outside it, each with how to fix it."""
    from reverie.storage.folder.doctor_checks import link_findings as links  # noqa: PLC0415

    links(root, report)


def _now() -> datetime:
    return datetime.now(UTC)
