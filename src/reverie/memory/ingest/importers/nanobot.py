"""nanobot workspaces, sessions folders and session files, read as values.

A workspace brings its history, cursors, durable files and sessions, wherever its release keeps
them (``nanobot_layout``: the 0.3.5 folder under ``~/.nanobot/sessions/<workspace-id>/`` and
the older in-workspace ``sessions/``). A sessions folder (0.3.5's, or an older ``sessions/``)
brings its session files; one file brings one session. A reverie workspace (a nanobot one
whose sessions are in ``.reverie/sessions.sqlite3``) brings those too (``reverie_sessions``).

Reading never writes to the source: the history log is parsed line by line here (a reverie
``HistoryLog`` would repair the file in place), and cursor files are parsed, not opened as
stores. Sessions are read with ``reverie.storage.sources.read_nanobot_session_file``; a line
it refuses is reported and the file read again with that line blanked (line numbers kept), so one
bad line costs one message, not the session. Records that are not messages (``provider_state``) are
counted in ``skipped``, not reported. History lines that fail to parse are reported and skipped; a
valid line whose cursor is not above the one before (nanobot writing from two processes) is kept. A
file that is a symlink out of its source folder is skipped and reported.

Every session and history entry is filed under ``import:nanobot:<source>:<nanobot key>``
(``nanobot_layout.imported_key``): never merged into a live session of the target. A file
whose metadata names no key uses the key its file name encodes. A problem with position 0
concerns a whole file (unreadable, not UTF-8, a symlink out).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from pathlib import Path

from reverie.config.bounded import read_bounded
from reverie.core.cursors import parse_cursor_text
from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS, MemoryFileName
from reverie.core.entries import EntryFormatError, HistoryEntry
from reverie.core.session import Session
from reverie.errors import CursorError, SessionImportError, StorageError
from reverie.memory.ingest.importers.conversation import (
    ImportedConversation,
    ImportedWorkspace,
    ImportProblem,
    ProgressCallback,
)
from reverie.memory.ingest.importers.nanobot_layout import (
    expected_sessions_folder,
    external_sessions_folder,
    imported_key,
    inside,
    key_from_file_name,
    session_files,
    source_name,
)
from reverie.memory.ingest.importers.reverie_sessions import (
    has_reverie_sessions,
    read_reverie_sessions,
)
from reverie.storage.sources import SourceFolder, read_nanobot_session_file


def looks_like_workspace(root: Path) -> bool:
    """True for a folder with a history log, session files, durable files or a workspace id."""
    if SourceFolder(root).history.is_file():
        return True
    if (root / ".nanobot" / "workspace-id").is_file():
        return True
    if any(root.glob("sessions/*.jsonl")):
        return True
    return any((root / RELATIVE_PATHS[name]).is_file() for name in MEMORY_FILE_NAMES)


@dataclass(slots=True, kw_only=True)
class NanobotReader:
    """Reads one nanobot workspace folder, one sessions folder, or one session file.

    ``home`` is where ``~/.nanobot`` is looked for (default: ``Path.home()``, i.e. ``$HOME``).
    """

    local_tz: tzinfo | None = None
    on_progress: ProgressCallback | None = None
    home: Path | None = None

    problems: list[ImportProblem] = field(default_factory=list, init=False)
    conversations: list[ImportedConversation] = field(default_factory=list, init=False)
    skipped: int = field(default=0, init=False)
    notes: list[str] = field(default_factory=list, init=False)
    """What a person should know that is not a bad record (where sessions were not found)."""

    def read_workspace(self, root: Path) -> ImportedWorkspace:
        """Read the workspace at ``root`` (problems are collected in ``self.problems``)."""
        root = root.resolve()
        # In-workspace sessions must stay inside the workspace (a symlinked sessions/ too);
        # 0.3.5's folder lives outside it by design and confines its own files.
        source = SourceFolder(root)
        folders = [(source.sessions, root)]
        external = external_sessions_folder(root, self.home)
        if external is not None:
            folders.append((external, external))
        files = [(path, bound) for folder, bound in folders for path in session_files(folder)]
        if not files:
            self._no_sessions(root)
        total = len(files) + 1
        history = self._history(root, root.name)
        self._progress(1, total)
        sessions: list[Session] = []
        for done, (path, folder) in enumerate(files, start=2):
            session = self._confined_session(path, folder, root.name)
            if session is not None:
                sessions.append(session)
            self._progress(done, total)
        sessions += self._reverie_sessions(root)
        return ImportedWorkspace(
            root=root,
            history=tuple(history),
            cursor=self._cursor(source.cursor),
            dream_cursor=self._cursor(source.dream_cursor),
            files=self._files(root),
            sessions=tuple(sessions),
        )

    def _no_sessions(self, root: Path) -> None:
        expected = expected_sessions_folder(root, self.home)
        if expected is None:
            return
        self.notes.append(
            f"{root}: no sessions imported; this nanobot workspace keeps them in {expected}, "
            "which does not exist here (a workspace copied from another HOME or a container?); "
            f"pass that sessions folder too: reverie ingest {root} "
            f"/path/to/.nanobot/sessions/{expected.name}"
        )

    def read_sessions_folder(self, folder: Path) -> list[Session]:
        """Read every session file of a sessions folder (0.3.5's, or an old ``sessions/``)."""
        files = session_files(folder)
        name = source_name(folder)
        sessions: list[Session] = []
        for done, path in enumerate(files, start=1):
            session = self._confined_session(path, folder, name)
            if session is not None:
                sessions.append(session)
            self._progress(done, len(files))
        return sessions

    def _confined_session(self, path: Path, folder: Path, source: str) -> Session | None:
        if not inside(path, folder):
            self._problem(path, 0, f"a symlink out of {folder}: skipped")
            return None
        return self.read_session(path, source=source)

    def read_session(self, path: Path, *, source: str | None = None) -> Session | None:
        """Read one nanobot session file, skipping (and reporting) lines it cannot parse.

        The session gets its imported key (``source``: the source name, by default found from
        the file's folder) and is also added to ``self.conversations``.
        """
        name = source if source is not None else source_name(path.parent)
        blanked: set[int] = set()
        while True:
            try:
                read = self._read_blanking(path, blanked)
                session = replace(read, key=imported_key(name, read.key))
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
        fallback = key_from_file_name(path)
        if not blanked:
            read = read_nanobot_session_file(path, key=fallback, local_tz=self.local_tz)
        else:
            with tempfile.TemporaryDirectory(prefix="reverie-import-") as folder:
                copy = Path(folder) / path.name
                lines = read_bounded(path).split(b"\n")
                copy.write_bytes(
                    b"\n".join(b"" if n in blanked else raw for n, raw in enumerate(lines, start=1))
                )
                shutil.copystat(path, copy)
                read = read_nanobot_session_file(copy, key=fallback, local_tz=self.local_tz)
        self.skipped += read.skipped
        return read.session

    def _reverie_sessions(self, root: Path) -> list[Session]:
        """A reverie workspace's own sessions (``reverie_sessions``), under imported keys."""
        if not has_reverie_sessions(root):
            return []
        path = SourceFolder(root).sessions_database
        if not inside(path, root):
            self._problem(path, 0, f"a symlink out of {root}: skipped")
            return []
        read, problems = read_reverie_sessions(root)
        self.problems.extend(problems)
        sessions = [replace(s, key=imported_key(root.name, s.key)) for s in read]
        self.conversations.extend(session_conversation(s, path) for s in sessions)
        return sessions

    def _history(self, root: Path, source: str) -> list[HistoryEntry]:
        path = SourceFolder(root).history
        if path.exists() and not inside(path, root):
            self._problem(path, 0, f"a symlink out of {root}: skipped")
            return []
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
            if entry.session_key is not None:
                entry = replace(entry, session_key=imported_key(source, entry.session_key))
            entries.append(entry)
        return entries

    def _cursor(self, path: Path) -> int:
        if path.exists() and not inside(path, path.parent.parent):
            self._problem(path, 0, "a symlink out of the workspace: skipped")
            return 0
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
            if path.exists() and not inside(path, root):
                self._problem(path, 0, f"a symlink out of {root}: skipped")
                continue
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
        compacted=session.compacted_upto,
        summary=session.summary,
    )


def _reason(exc: SessionImportError) -> str:
    # The error's text is "line N: reason: path"; the problem keeps its own path and line.
    text = str(exc).removeprefix(f"line {exc.line}: ")
    return text.rsplit(": ", 1)[0] if text.endswith(f": {exc.path}") else text
