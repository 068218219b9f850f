"""``reverie store``: a PostgreSQL store shared by several servers (docs/scale-out.md).

``init`` applies the schema's migrations and makes a workspace; ``list`` names the
workspaces; ``import`` moves a workspace folder into the database and ``export`` moves a
database workspace into a new folder, losing nothing (``reverie.storage.transfer``). The
store is ``--store URL``, given after ``store`` or before it (``reverie --store URL store
list``), else ``$REVERIE_STORE``; the workspace inside it ``-w NAME``, after or before
(default ``default``). Needs the ``postgres`` extra. Every other command takes the same
``--store`` (or ``$REVERIE_STORE``) and ``-w NAME`` to run on a database workspace
(``reverie.storage.open``); those whose process needs a folder say so (docs/scale-out.md).
"""

import os
from pathlib import Path
from typing import Annotated

import typer

from reverie.cli.context import options
from reverie.cli.failure import fail

store_app = typer.Typer(
    name="store",
    help="A PostgreSQL store shared by several reverie servers: init, list, import, export.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="The database: postgresql://user@host:port/dbname (default: the --store given "
        "before `store`, else $REVERIE_STORE).",
        show_default=False,
    ),
]
NameOption = Annotated[
    str | None,
    typer.Option(
        "--workspace",
        "-w",
        help="The workspace inside the database (default: the -w given before `store`, else "
        "'default').",
        show_default=False,
    ),
]
FolderArgument = Annotated[Path, typer.Argument(help="The workspace folder.")]


def _url(ctx: typer.Context, store: str | None) -> str:
    """The store: this command's ``--store``, else the root one, else ``$REVERIE_STORE``."""
    store = store or options(ctx).store or os.environ.get("REVERIE_STORE")
    if not store:
        fail("no store: give --store postgresql://... or set REVERIE_STORE")
    from reverie.engine.stores import is_store_url

    if not is_store_url(store):
        fail("--store takes a postgresql:// URL (a folder workspace needs no store)")
    return store


def _name(ctx: typer.Context, workspace: str | None) -> str:
    """The workspace: this command's ``-w``, else the root one, else ``default``."""
    if workspace:
        return workspace
    root = options(ctx).workspace
    return str(root) if root is not None else "default"


@store_app.command("init")
def init(ctx: typer.Context, store: StoreOption = None, workspace: NameOption = None) -> None:
    """Create or migrate the schema, then make the workspace (both idempotent)."""
    from reverie.engine.stores import init_database

    workspace = _name(ctx, workspace)
    done = init_database(_url(ctx, store), workspace)
    before, after = done.before, done.after
    change = f"schema version {after}" if before == after else f"schema {before} -> {after}"
    typer.echo(f"{change}; workspace {workspace!r} ready in {done.where}")


@store_app.command("list")
def list_workspaces(ctx: typer.Context, store: StoreOption = None) -> None:
    """Print the name of every workspace in the database."""
    from reverie.engine.stores import database_workspaces

    for name in database_workspaces(_url(ctx, store)):
        typer.echo(name)


@store_app.command("import")
def import_folder(
    ctx: typer.Context,
    folder: FolderArgument,
    store: StoreOption = None,
    workspace: NameOption = None,
) -> None:
    """Move a workspace folder into an empty database workspace (the folder is unchanged)."""
    from reverie.engine.stores import import_folder as copy_in

    workspace = _name(ctx, workspace)
    done = copy_in(folder, _url(ctx, store), workspace)
    typer.echo(
        f"imported {done.entries} entries, {done.sessions} sessions ({done.messages} messages),"
        f" {done.files} files into {workspace!r}"
    )


@store_app.command("export")
def export_folder(
    ctx: typer.Context,
    folder: FolderArgument,
    store: StoreOption = None,
    workspace: NameOption = None,
) -> None:
    """Copy a database workspace into a new workspace folder (nanobot's files plus sessions)."""
    from reverie.engine.stores import export_folder as copy_out

    workspace = _name(ctx, workspace)
    if folder.exists() and any(folder.iterdir()):
        fail(f"{folder} is not empty; export writes a new workspace folder")
    done = copy_out(_url(ctx, store), workspace, folder)
    typer.echo(
        f"exported {done.entries} entries, {done.sessions} sessions ({done.messages} messages),"
        f" {done.files} files to {folder}"
    )


def register(app: typer.Typer) -> None:
    """Add the ``store`` group to ``app``."""
    app.add_typer(store_app)
