"""How the CLI fails: one clear line on stderr and exit status 1, no traceback when expected.

Expected errors are reverie's own (``ReverieError``: no model configured, an unreachable
endpoint, a bad revision, a config error, a missing workspace, ...) and the CLI's
``CommandFailedError``. Each becomes ``error: <message>`` plus, for the common ones, what to do
next. Anything else is a bug and keeps its traceback, so it is visible and reportable.
"""

from __future__ import annotations

from typing import NoReturn

from reverie.cli.render import err
from reverie.errors import (
    ConfigError,
    LockTimeoutError,
    ModelConnectionError,
    ModelHTTPError,
    ModelTimeoutError,
    ReverieError,
    RevisionNotFoundError,
    WorkspaceMissingError,
)

EXIT_FAILED = 1
"""The exit status of every expected failure (click uses 2 for bad arguments)."""


class CommandFailedError(Exception):
    """A command cannot go on; ``message`` is the one line to print."""


def fail(message: str) -> NoReturn:
    """Stop the command with ``message`` as its one error line."""
    raise CommandFailedError(message)


def describe(exc: BaseException) -> str:
    """The one line that explains ``exc`` to a person, with a hint when there is a usual fix."""
    if isinstance(exc, WorkspaceMissingError):
        return f"no workspace at {exc.path}: run `reverie init` or pass --workspace"
    message = " ".join(str(exc).split()) or type(exc).__name__
    notes = [" ".join(note.split()) for note in getattr(exc, "__notes__", ())]
    hint = _hint(exc)
    return "; ".join([message, *notes, *([hint] if hint else [])])


def _hint(exc: BaseException) -> str:
    if isinstance(exc, ModelConnectionError | ModelTimeoutError):
        return "is the server running? check REVERIE_BASE_URL"
    if isinstance(exc, ModelHTTPError) and exc.status in (401, 403):
        return "check REVERIE_API_KEY"
    if isinstance(exc, RevisionNotFoundError):
        return "`reverie log` lists the commits"
    if isinstance(exc, ConfigError):
        return f"fix {exc.key} in reverie.toml or the environment"
    if isinstance(exc, LockTimeoutError):
        return "another reverie process is busy with this workspace"
    return ""


def report(exc: ReverieError | CommandFailedError) -> int:
    """Print the error line for ``exc`` on stderr and return the exit status."""
    from rich.text import Text

    line = Text.assemble(("error: ", "bold red"), describe(exc))
    err().print(line, soft_wrap=True, highlight=False)
    return EXIT_FAILED
