"""The global options of one CLI invocation and how a command opens the engine with them.

``--workspace`` (else ``$REVERIE_WORKSPACE``, else ``~/.reverie/default``) selects the
workspace; settings come from its ``reverie.toml`` and the ``REVERIE_*`` variables, read once by
``MemoryEngine.open``. With ``--store postgresql://...`` (else ``$REVERIE_STORE``, else
``[store] url`` in the folder's ``reverie.toml``) ``-w NAME`` names a workspace in that database
(``reverie.storage.open``). Commands that only read or curate memory refuse a missing workspace
(``reverie init`` makes one); ``chat``, ``ask`` and ``ingest`` lay it out on first use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace",
        "-w",
        help="The workspace folder (default: $REVERIE_WORKSPACE, else ~/.reverie/default);"
        " with --store or $REVERIE_STORE, the workspace's name in the database.",
        show_default=False,
    ),
]
"""Accepted before the command (``reverie -w X status``) and after it (``reverie status -w X``)."""

DEFAULT_SESSION = "cli:default"
"""The session ``chat`` and ``ask`` talk in unless ``--session`` names another."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """What the global options said."""

    workspace: Path | None = None
    store: str | None = None
    verbose: bool = False


def options(ctx: typer.Context) -> Options:
    """The global options of this invocation (defaults when a test calls a command alone)."""
    found = ctx.find_root().obj
    return found if isinstance(found, Options) else Options()


def workspace_path(ctx: typer.Context, workspace: Path | None = None) -> Path | None:
    """The workspace named after the command, else before it, else None (the default)."""
    return workspace if workspace is not None else options(ctx).workspace


@contextmanager
def engine(
    ctx: typer.Context,
    workspace: Path | None = None,
    *,
    create: bool = False,
    read_only: bool = False,
) -> Iterator[MemoryEngine]:
    """Open the engine on the selected workspace and close it when the command ends.

    Raises:
        WorkspaceMissingError: no workspace there and ``create`` is false.
        ConfigError: ``reverie.toml`` or a ``REVERIE_*`` variable is invalid.
    """
    from reverie.engine.facade import MemoryEngine

    path = workspace_path(ctx, workspace)
    store = options(ctx).store
    with MemoryEngine.open(path, create=create, read_only=read_only, store=store) as opened:
        yield opened
