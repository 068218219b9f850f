"""nanobot workspaces: history, cursors, durable files and ``sessions/*.jsonl``, read as values.

Reading never writes to the source: the history log is parsed line by line here (a reverie
``HistoryLog`` would repair the file in place), and cursor files are parsed, not opened as
stores. Sessions are read with ``reverie.store.nanobot_sessions.read_nanobot_session``; a line
it refuses is reported and the file read again with that line blanked (line numbers kept), so
one bad line costs one message, not the session. History lines that fail to parse, or whose
cursor is not above the line before, are reported and skipped.

A session keeps its nanobot key (a nanobot workspace's sessions continue under reverie); a file
whose metadata names no key gets ``import:nanobot:<file stem>``. A problem with position 0
concerns a whole file (unreadable, not UTF-8).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path

from reverie.errors import CursorError, SessionImportError, StorageError
from reverie.importers.conversation import (
    ImportedConversation,
    ImportedWorkspace,
    ImportProblem,
    ProgressCallback,
)
from reverie.session import Session
from reverie.store.bounded import read_bounded
from reverie.store.cursors import parse_cursor_text
from reverie.store.entries import EntryFormatError, HistoryEntry
from reverie.store.memory_files import MEMORY_FILE_NAMES, RELATIVE_PATHS, MemoryFileName
from reverie.store.nanobot_sessions import read_nanobot_session


def looks_like_workspace(root: Path) -> bool:
    """True when ``root`` is a folder with a history log, session files or durable files."""
    if (root / "memory" / "history.jsonl").is_file():
        return True
    if any(root.glob("sessions/*.jsonl")):
        return True
    return any((root / RELATIVE_PATHS[name]).is_file() for name in MEMORY_FILE_NAMES)


@dataclass(slots=True, kw_only=True)
class NanobotReader:
    """Reads one nanobot workspace folder, or one nanobot session file."""

    local_tz: tzinfo | None = None
    on_progress: ProgressCallback | None = None

    problems: list[ImportProblem] = field(default_factory=list, init=False)
    conversations: list[ImportedConversation] = field(default_factory=list, init=False)

    def read_workspace(self, root: Path) -> ImportedWorkspace:
        """Read the workspace at ``root`` (problems are collected in ``self.problems``)."""
        session_files = sorted(root.glob("sessions/*.jsonl"))
        total = len(session_files) + 1
        history = self._history(root / "memory" / "history.jsonl")
        self._progress(1, total)
        sessions: list[Session] = []
        for done, path in enumerate(session_files, start=2):
            session = self.read_session(path)
            if session is not None:
                sessions.append(session)
            self._progress(done, total)
        return ImportedWorkspace(
            root=root,
            history=tuple(history),
            cursor=self._cursor(root / "memory" / ".cursor"),
            dream_cursor=self._cursor(root / "memory" / ".dream_cursor"),
            files=self._files(root),
            sessions=tuple(sessions),
        )

    def read_session(self, path: Path) -> Session | None:
        """Read one nanobot session file, skipping (and reporting) lines it cannot parse.

        The session is also added to ``self.conversations``.
        """
        blanked: set[int] = set()
        while True:
            try:
                session = self._read_blanking(path, blanked)
                if session.messages:
                    self.conversations.append(session_conversation(session, path))
                return session
            except SessionImportError as exc:
                self._problem(path, exc.line, _reason(exc))
                if exc.line in blanked:
                    return None
                blanked.add(exc.line)
            except StorageError as exc:
                self._problem(path, 0, str(exc))
                return None

    def _read_blanking(self, path: Path, blanked: set[int]) -> Session:
        fallback = f"import:nanobot:{path.stem}"
        if not blanked:
            return read_nanobot_session(path, key=fallback, local_tz=self.local_tz)
        with tempfile.TemporaryDirectory(prefix="reverie-import-") as folder:
            copy = Path(folder) / path.name
            lines = read_bounded(path).split(b"\n")
            copy.write_bytes(
                b"\n".join(b"" if n in blanked else raw for n, raw in enumerate(lines, start=1))
            )
            shutil.copystat(path, copy)
            return read_nanobot_session(copy, key=fallback, local_tz=self.local_tz)

    def _history(self, path: Path) -> list[HistoryEntry]:
        try:
            data = read_bounded(path)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._problem(path, 0, f"cannot read ({exc.strerror})")
            return []
        entries: list[HistoryEntry] = []
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                entry = HistoryEntry.from_line(raw)
            except EntryFormatError as exc:
                self._problem(path, number, str(exc))
                continue
            if entries and entry.cursor <= entries[-1].cursor:
                self._problem(path, number, f"cursor {entry.cursor} is not above the one before")
                continue
            entries.append(entry)
        return entries

    def _cursor(self, path: Path) -> int:
        try:
            return parse_cursor_text(path.read_text(encoding="utf-8"), path=path) or 0
        except FileNotFoundError:
            return 0
        except (OSError, UnicodeDecodeError, CursorError) as exc:
            self._problem(path, 1, str(exc))
            return 0

    def _files(self, root: Path) -> dict[MemoryFileName, str]:
        files: dict[MemoryFileName, str] = {}
        for name in MEMORY_FILE_NAMES:
            path = root / RELATIVE_PATHS[name]
            try:
                files[name] = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError) as exc:
                self._problem(path, 0, f"cannot read ({exc})")
        return files

    def _problem(self, path: Path, position: int, reason: str) -> None:
        self.problems.append(ImportProblem(path=path, position=position, reason=reason))

    def _progress(self, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(done, total)


def session_conversation(session: Session, source: Path) -> ImportedConversation:
    """Return a nanobot session as an imported conversation under its own key."""
    title = session.metadata.get("title") or session.metadata.get("chat_title")
    return ImportedConversation(
        key=session.key,
        title=title if isinstance(title, str) else None,
        messages=session.messages,
        source=source,
    )


def _reason(exc: SessionImportError) -> str:
    # The error's text is "line N: reason: path"; the problem keeps its own path and line.
    text = str(exc).removeprefix(f"line {exc.line}: ")
    return text.rsplit(": ", 1)[0] if text.endswith(f": {exc.path}") else text
