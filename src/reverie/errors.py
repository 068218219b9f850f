"""reverie's exception tree: every error the library raises on purpose is one of these.

Library exceptions (OSError, json, dulwich, the model SDKs) are translated where they enter
reverie, with ``raise ... from exc``, so callers only ever catch this tree::

    ReverieError
    ├── WorkspaceError              the workspace on disk cannot be used as it is
    │   ├── WorkspaceMissingError       no workspace at the path and create=False
    │   ├── WorkspaceFormatError        written by a newer reverie (format number too high)
    │   └── WorkspaceDamagedError       a file or folder is not what the layout needs
    ├── HistoryError                the history log refused an operation
    │   └── CursorError                 a cursor value is invalid (not a positive int, bool, ...)
    ├── SessionError                a session journal or session file cannot be used (path kept)
    │   └── SessionImportError          a nanobot session file has a line that is not valid
    ├── AuditError                  the git audit repository failed
    │   └── RevisionNotFoundError       a revision does not name a commit
    ├── LockTimeoutError            a cross-process lock was not acquired in time
    └── StorageError                an I/O operation on a workspace file failed (path kept)

Expected outcomes (a compaction that fell back to raw text, a no-op commit) are typed results,
not exceptions. Leaves carry the fields a caller needs to explain the problem (path, line, ...).
"""

from __future__ import annotations

from pathlib import Path


class ReverieError(Exception):
    """Root of every error reverie raises on purpose."""


class WorkspaceError(ReverieError):
    """The workspace on disk cannot be used as it is."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class WorkspaceMissingError(WorkspaceError):
    """There is no workspace at the path and creation was not asked for."""


class WorkspaceFormatError(WorkspaceError):
    """The workspace was written by a newer reverie whose format this one does not know."""


class WorkspaceDamagedError(WorkspaceError):
    """A file or folder of the layout is missing, of the wrong kind, or unreadable."""


class HistoryError(ReverieError):
    """The history log refused an operation."""


class CursorError(HistoryError):
    """A cursor value is invalid: cursors are non-negative integers (never bool or text)."""

    def __init__(self, message: str, *, value: object, path: Path | None = None) -> None:
        where = f" in {path}" if path is not None else ""
        super().__init__(f"{message}{where}: {value!r}")
        self.value = value
        self.path = path


class SessionError(ReverieError):
    """A session journal or session file cannot be used as it is."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class SessionImportError(SessionError):
    """A line of a nanobot session file is not valid; ``line`` is its 1-based number."""

    def __init__(self, message: str, *, path: Path, line: int) -> None:
        super().__init__(f"line {line}: {message}", path=path)
        self.line = line


class AuditError(ReverieError):
    """The git audit repository failed."""


class RevisionNotFoundError(AuditError):
    """A revision string does not name a commit of the audit repository."""

    def __init__(self, revision: str) -> None:
        super().__init__(f"no commit matches revision {revision!r}")
        self.revision = revision


class LockTimeoutError(ReverieError):
    """A cross-process lock was not acquired within its timeout."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__(f"could not lock {path} within {timeout:g}s")
        self.path = path
        self.timeout = timeout


class StorageError(ReverieError):
    """An I/O operation on a workspace file failed."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path
