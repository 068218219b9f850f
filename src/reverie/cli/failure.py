"""How the CLI fails: one clear line on stderr and exit status 1, no traceback when expected.

Expected errors are reverie's own (``ReverieError``: no model configured, an unreachable
endpoint, a bad revision, a config error, a missing workspace, ...) and the CLI's
``CommandFailedError``. Each becomes ``error: <message>`` plus, for the common ones, what to do
next. Anything else is a bug and keeps its traceback, so it is visible and reportable.
"""

from __future__ import annotations

import gc
import sys
import traceback
from typing import NoReturn

from reverie.cli.render import err
from reverie.config.file import CONFIG_NAME
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
    if isinstance(exc, ConfigError):  # the file itself, or one key that the file or env set
        whole = exc.key == CONFIG_NAME
        return (
            f"fix {CONFIG_NAME}" if whole else f"fix {exc.key} in {CONFIG_NAME} or the environment"
        )
    if isinstance(exc, LockTimeoutError):
        return "another reverie process is busy with this workspace"
    return ""


def report(exc: ReverieError | CommandFailedError) -> int:
    """Print the error line for ``exc`` on stderr and return the exit status."""
    from rich.text import Text

    line = Text.assemble(("error: ", "bold red"), describe(exc))
    err().print(line, soft_wrap=True, highlight=False)
    return EXIT_FAILED


def release(exc: BaseException) -> None:
    """Free now what a failed call still holds through its traceback, quietly.

    On a full disk, dulwich's half-written lock file cannot flush when it is collected; left
    to the end of the process, its ``__del__`` printed a stray traceback after the one-line
    error. Clearing the finished frames collects it here, and what its clean-up raises is
    logged (``-v`` shows it) instead of printed. The CLI owns its process, so it may swap
    ``sys.unraisablehook`` for this moment; the library never does.
    """
    previous = sys.unraisablehook
    sys.unraisablehook = _log_unraisable
    try:
        seen: set[int] = set()
        error: BaseException | None = exc
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            traceback.clear_frames(error.__traceback__)
            error = error.__cause__ or error.__context__
        gc.collect()
    finally:
        sys.unraisablehook = previous


def _log_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    import logging  # only on this rare path: a start that fails nothing needs no logging

    failed = unraisable.exc_value
    logging.getLogger(__name__).info("clean-up after the failure also failed: %r", failed)
