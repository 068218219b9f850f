"""``reverie principal``: the principals of a home (docs/owners.md).

A *principal* (a person, or an agent) owns one workspace of a *home*: a folder home holds one
workspace folder per principal, a database home one workspace per principal
(``reverie.cli.home_choice`` says which home a command works on). ``list`` names them; ``add``
makes one; ``export`` copies one whole into a new workspace folder (``--to DIR``) or prints it
as JSON (``--json``); ``delete`` purges one (its workspace whole and its tokens,
``reverie.engine.owners.purge``), asking first unless ``--yes``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reverie.cli.failure import fail
from reverie.cli.home_choice import HomeOption, StoreOption, opened_home
from reverie.cli.render import agreed, emit_json, notice

principal_app = typer.Typer(
    name="principal",
    help="The principals of a home (one workspace each): list, add, delete, export.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

NameArgument = Annotated[str, typer.Argument(help="The principal's id (alice, lc:user1, ...).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


@principal_app.command("list")
def list_principals(
    ctx: typer.Context,
    *,
    home: HomeOption = None,
    store: StoreOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Print every principal that has a workspace in the home."""
    with opened_home(ctx, home, store) as chosen:
        names = chosen.principals()
        where = chosen.location
    if json_output:
        emit_json({"home": where, "default": chosen.default, "principals": names})
        return
    for name in names:
        typer.echo(name)
    notice(f"{len(names)} principal(s) in {where}")


@principal_app.command("add")
def add(
    ctx: typer.Context, principal: NameArgument, home: HomeOption = None, store: StoreOption = None
) -> None:
    """Make the principal's workspace (nothing changes if it exists)."""
    from reverie.engine.owners.names import check_principal

    check_principal(principal)
    with opened_home(ctx, home, store) as chosen:
        existed = chosen.exists(principal)
        if not existed:
            chosen.open_engine(principal, create=True).close()
        where = chosen.location
    state = "already in" if existed else "added to"
    typer.echo(f"principal {principal!r} {state} {where}")


@principal_app.command("delete")
def delete(
    ctx: typer.Context,
    principal: NameArgument,
    *,
    home: HomeOption = None,
    store: StoreOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first.")] = False,
) -> None:
    """Delete the principal whole: its workspace (every file or row) and its tokens."""
    from reverie.engine.owners.purge import delete_principal

    with opened_home(ctx, home, store) as chosen:
        if not yes:
            question = (
                f"Delete principal {principal!r} from {chosen.location}:"
                " its whole memory and every token of it? This cannot be undone."
            )
            if not agreed(question):
                notice("nothing was deleted")  # the person's answer, not an error: exit 0
                return
        done = delete_principal(chosen, principal)
    typer.echo(
        f"deleted principal {principal!r} from {done.location}"
        f" (its workspace and {done.tokens} token(s))"
    )


@principal_app.command("export")
def export(
    ctx: typer.Context,
    principal: NameArgument,
    *,
    to: Annotated[
        Path | None,
        typer.Option("--to", help="A new folder: the principal's workspace, whole."),
    ] = None,
    home: HomeOption = None,
    store: StoreOption = None,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print every file, history entry and session message."),
    ] = False,
) -> None:
    """Export the principal's memory whole: a new workspace folder, or JSON."""
    from reverie.engine.owners.export import export_document
    from reverie.engine.owners.names import check_principal

    if (to is None) == (not json_output):
        fail("give --to DIR (a new workspace folder) or --json, one of them")
    check_principal(principal)
    with opened_home(ctx, home, store) as chosen:
        if to is not None:
            chosen.export_folder(principal, to)
            typer.echo(f"exported principal {principal!r} to {to}")
            return
        with chosen.open_engine(principal, create=False) as engine:
            document = export_document(engine, principal)
    emit_json(document)


def register(app: typer.Typer) -> None:
    """Add the ``principal`` group to ``app``."""
    app.add_typer(principal_app)
