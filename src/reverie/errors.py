"""reverie's exception tree: every error the library raises on purpose is one of these.

Library exceptions (OSError, json, dulwich, the model SDKs) are translated where they enter
reverie, with ``raise ... from exc``, so callers only ever catch this tree::

    ReverieError
    ├── WorkspaceError              the workspace on disk cannot be used as it is
    │   ├── WorkspaceMissingError       no workspace at the path and create=False
    │   ├── WorkspaceFormatError        written by a newer reverie (format number too high)
    │   ├── WorkspaceDamagedError       a file or folder is not what the layout needs
    │   └── OutsideLinkError            a path leads outside the workspace (symlink, hard link)
    ├── HistoryError                the history log refused an operation
    │   └── CursorError                 a cursor value is invalid (not a positive int, bool, ...)
    ├── SessionError                a session journal or session file cannot be used (path kept)
    │   └── SessionImportError          a nanobot session file has a line that is not valid
    ├── AuditError                  the git audit repository failed
    │   ├── RevisionNotFoundError       a revision does not name a commit
    │   └── ForeignRepositoryError      .git is a project's repository, not memory's (path kept)
    ├── ConfigError                 reverie.toml or a REVERIE_* variable is invalid (key named)
    ├── InputError                  a value given to reverie is refused before anything is written
    │   ├── MessageFormatError          a JSON object is not a valid message (core/messages.py)
    │   └── InputTooLargeError          a file or stream to read is past its size limit (path kept)
    ├── ImportSourceError           a file or folder to import cannot be read (path kept)
    │   └── UnknownImportFormatError    it holds no format reverie can import
    ├── DreamError                  the dream process refused or could not finish a step
    │   ├── ConfinementError            a path dream may not read or write (reason kept)
    │   ├── PatchError                  a unified-diff patch does not apply (hunk, line kept)
    │   ├── PublishConflictError        a durable file changed on disk while dream staged it
    │   ├── RestoreWouldLoseError       a restore needs history entries a trim dropped (force it)
    │   ├── PublishJournalError         the publish journal is unreadable or not reverie's
    │   └── EditError                   a person's edit of a durable file was refused (reason kept)
    ├── AccessError                 a credential does not reach the principal a request names
    │   └── UnknownPrincipalError       the principal has no workspace and the server makes none
    ├── PrincipalMissingError       a home has no such principal (principal, home kept)
    ├── LockTimeoutError            a cross-process lock was not acquired in time
    ├── IngestBusyError             another process is ingesting into the workspace
    ├── StorageError                an I/O operation on a workspace file failed (path kept)
    ├── DatabaseError               the PostgreSQL store failed or refused (where kept, no password)
    │   ├── DatabaseUnreachableError    no connection could be made to it at all (at open)
    │   └── SchemaVersionError          its schema is missing, older or newer than this reverie's
    └── ModelError                  a model call failed (or could not be made)
        ├── ModelHTTPError              the endpoint answered with an HTTP error (status, body kept)
        │   ├── ModelRateLimitError         429: too many requests (retry_after kept)
        │   └── ContextLengthExceededError  the prompt does not fit the model's context window
        ├── ModelTimeoutError           no answer within the timeout
        ├── ModelConnectionError        the endpoint could not be reached
        ├── MalformedReplyError         an answer arrived but is not a usable reply
        ├── ModelNotConfiguredError     no usable model: missing SDK extra, model name, ...
        └── ScriptExhaustedError        a ScriptedProvider was asked for more replies than scripted

Expected outcomes (a compaction that fell back to raw text, a no-op commit) are typed results,
not exceptions. Messages never carry secrets or URL credentials (``ReverieError`` redacts
them). Leaves carry the fields a caller needs to explain the problem (path, line, ...).
"""

from __future__ import annotations

from pathlib import Path


class ReverieError(Exception):
    """Root of every error reverie raises on purpose.

    Every text argument is redacted (``reverie.core.redact``: secrets, and URLs without their
    userinfo or secret query values), so a message never shows a password or an API key,
    whichever part of reverie built it.
    """

    def __init__(self, *args: object) -> None:
        # Imported on the first error: a start that raises none (``--help``) does without it.
        from reverie.core.redact import redact, scrub_urls  # noqa: PLC0415

        super().__init__(
            *(redact(scrub_urls(arg)) if isinstance(arg, str) else arg for arg in args)
        )


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


class OutsideLinkError(WorkspaceError):
    """A path reverie would read or write is a link leading outside the workspace.

    ``path`` is the offending component, ``target`` where it leads, ``root`` the workspace
    (when known: ``doctor`` lists every link of a workspace that an open refused).
    """

    def __init__(self, message: str, *, path: Path, target: str, root: Path | None = None) -> None:
        super().__init__(
            f"{message} ({target}); reverie never reads or writes through it", path=path
        )
        self.target = target
        self.root = root


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


class ForeignRepositoryError(AuditError):
    """The folder's ``.git`` is another project's repository.

    Told apart by ``reverie.storage.folder.audit_foreign``.

    reverie never adopts it, commits on its branches or rewrites its history; ``path`` is the
    ``.git``.
    """

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{path} {message}")
        self.path = path


class ConfigError(ReverieError):
    """A configuration value is unknown, of the wrong type, or out of range."""

    def __init__(self, message: str, *, key: str) -> None:
        super().__init__(message)
        self.key = key


class InputError(ReverieError, ValueError):
    """A value given to reverie (a message, a query, a limit) is refused; nothing was written.

    The message says what was wrong and where (which message, which field, which limit).
    """


class InputTooLargeError(InputError):
    """A file or stream to read holds more than reverie's limit for it (path kept)."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class ImportSourceError(ReverieError):
    """A file or folder given to an importer cannot be read as a whole (path kept).

    A bad record inside a readable source is not an error: importers report it as an
    ``ImportProblem`` and go on.
    """

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class UnknownImportFormatError(ImportSourceError):
    """The path holds nothing reverie knows how to import; the message says what was seen."""


class DreamError(ReverieError):
    """The dream process refused or could not finish a step."""


class ConfinementError(DreamError):
    """A path that dream may not read or write; ``reason`` says which rule refused it."""

    def __init__(self, reason: str, *, path: str) -> None:
        super().__init__(f"refused path {path!r}: {reason}")
        self.reason = reason
        self.path = path


class PatchError(DreamError):
    """A unified-diff patch does not apply; the message says which hunk and line failed.

    ``hunk`` is the 1-based hunk number (None when the patch as a whole is malformed) and
    ``line`` the 1-based line of the patch text the problem was found at (None if not tied to
    one line).
    """

    def __init__(self, message: str, *, hunk: int | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.hunk = hunk
        self.line = line


class PublishConflictError(DreamError):
    """A durable file changed on disk after dream first read it, so publishing would lose it."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} changed on disk while dream was editing it; nothing published")
        self.path = path


class RestoreWouldLoseError(DreamError):
    """Restoring a commit older than a trim: the entries it would re-dream are gone."""

    def __init__(self, rev: str, *, first: int, last: int) -> None:
        super().__init__(
            f"restoring {rev} rolls the dream cursor back to {first - 1}, but history entries "
            f"{first}..{last} were trimmed and cannot be dreamt again, so what dream learnt "
            "from them would be lost; restore anyway with --force (force=True)"
        )
        self.rev = rev
        self.first = first
        self.last = last


class PublishJournalError(DreamError):
    """The dream publish journal cannot be read, or holds something reverie did not write."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class EditError(DreamError):
    """A person's edit of a durable file was refused; ``reason`` says why, nothing was written."""

    def __init__(self, reason: str, *, path: str) -> None:
        super().__init__(f"edit of {path} refused: {reason}")
        self.reason = reason
        self.path = path


class AccessError(ReverieError):
    """A credential does not reach the principal a request names (or names none)."""


class UnknownPrincipalError(AccessError):
    """The named principal has no workspace and ``[serve] unknown_principals`` is "refuse"."""


class PrincipalMissingError(ReverieError):
    """A home has no principal of that id (``reverie principal list`` names them)."""

    def __init__(self, principal: str, *, where: str) -> None:
        super().__init__(f"no principal {principal!r} in {where} (`reverie principal list`)")
        self.principal = principal
        self.where = where


class LockTimeoutError(ReverieError):
    """A cross-process lock was not acquired within its timeout."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__(f"could not lock {path} within {timeout:g}s")
        self.path = path
        self.timeout = timeout


class IngestBusyError(ReverieError):
    """Another process is ingesting into this workspace (and the caller chose not to wait)."""

    def __init__(self, root: Path | str) -> None:
        """``root``: the workspace (a folder, or a database workspace's description)."""
        super().__init__(
            f"another ingest is running on {root}; wait for it to finish (or run without "
            "--no-wait to queue behind it)"
        )
        self.root = root


class StorageError(ReverieError):
    """An I/O operation on a workspace file failed."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class DatabaseError(ReverieError):
    """The PostgreSQL store failed or refused an operation (``reverie.storage.postgres``).

    ``where`` names the database (URL without its password) and the workspace.
    """

    def __init__(self, message: str, *, where: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


class DatabaseUnreachableError(DatabaseError):
    """No connection to the database could be made (refused, no such host, timed out, denied).

    Raised at once when a store opens, instead of a pool retrying in the background.
    """

    def __init__(self, reason: str, *, where: str) -> None:
        ReverieError.__init__(self, f"cannot reach the database at {where}: {reason}")
        self.where = where


class SchemaVersionError(DatabaseError):
    """The database schema is missing, older or newer than the one this reverie speaks."""

    def __init__(self, message: str, *, where: str, found: int, expected: int) -> None:
        super().__init__(message, where=where)
        self.found = found
        self.expected = expected


class StoreUnsupportedError(ReverieError):
    """An operation needs a folder workspace, and this one is in a PostgreSQL store.

    Raised before anything is written; the message names the operation and what to do
    instead (``reverie store export`` to a folder). ``operation`` is kept.
    """

    def __init__(self, operation: str, *, where: str) -> None:
        super().__init__(
            f"{operation} does not run on a PostgreSQL workspace yet ({where}); nothing was"
            " changed. To run it, copy the workspace to a folder with `reverie store export"
            " FOLDER -w NAME` and use that folder (docs/scale-out.md says what runs where)"
        )
        self.operation = operation
        self.where = where


class ModelError(ReverieError):
    """A model call failed, or could not be made.

    Attributes:
        attempts: how many calls were made before giving up (set by the retry policy).
    """

    attempts: int = 1


class ModelHTTPError(ModelError):
    """The model endpoint answered with an HTTP error status.

    Attributes:
        status: the HTTP status code.
        body: the response body as text (possibly empty), kept for diagnosis.
        retry_after: seconds the endpoint asked us to wait (Retry-After), if it said.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.body = body
        self.retry_after = retry_after


class ModelRateLimitError(ModelHTTPError):
    """The endpoint refused the call for rate or quota reasons (HTTP 429)."""


class ContextLengthExceededError(ModelHTTPError):
    """The prompt (plus the requested output) does not fit the model's context window.

    Never retried as is: the caller must shrink the prompt (compaction reacts to this).
    """


class ModelTimeoutError(ModelError):
    """The endpoint did not answer within the timeout."""


class ModelConnectionError(ModelError):
    """The endpoint could not be reached (refused, reset, DNS, TLS, ...)."""


class MalformedReplyError(ModelError):
    """An answer arrived but is not a usable reply (bad JSON, no choices, wrong shapes)."""


class ModelNotConfiguredError(ModelError):
    """No usable model: an optional SDK is not installed, or a required setting is missing."""


class ScriptExhaustedError(ModelError):
    """A ScriptedProvider received more requests than replies were scripted."""
