"""The ``reverie`` command: global options, the command list, and the error boundary.

``ReverieGroup.invoke`` is the one place expected errors are caught (``ReverieError`` and
``CommandFailedError``): they print one line on stderr and exit 1. Every other exception keeps its
plain Python traceback (typer's pretty tracebacks are off), so bugs stay visible.

Logging: quiet by default (reverie's warnings, such as a retried model call, would break the
one-line promise); ``--verbose`` prints INFO and above on stderr.
"""

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from reverie.cli import (
    ingest_command,
    memory_commands,
    owner_commands,
    provenance_commands,
    reach_commands,
    read_commands,
    session_commands,
    store_commands,
    token_commands,
)
from reverie.cli.coercion import plain_values
from reverie.cli.context import Options, WorkspaceOption
from reverie.cli.failure import CommandFailedError, release, report
from reverie.errors import ReverieError


class ReverieGroup(TyperGroup):
    """The top-level command group, turning expected errors into one line and exit status 1."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        plain_values(self)  # before parsing: no pydantic for plain options (cli.coercion)

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        """Run the command; report reverie's own errors without a traceback."""
        try:
            return super().invoke(ctx)
        except (ReverieError, CommandFailedError) as exc:
            release(exc)
            ctx.exit(report(exc))


app = typer.Typer(
    name="reverie",
    cls=ReverieGroup,
    help="Long-term memory for LLM agents: chat, inspect and curate what is remembered.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help and usage errors: rich's help formatter alone doubles the start-up time.
    rich_markup_mode=None,
)


def _show_version(value: bool) -> None:  # noqa: FBT001 (typer passes the flag positionally)
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"reverie {version('reverie')}")
        except PackageNotFoundError:  # pragma: no cover - only in a source tree without install
            typer.echo("reverie (not installed)")
        raise typer.Exit


@app.callback()
def _global_options(
    ctx: typer.Context,
    workspace: WorkspaceOption = None,
    *,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            help="A postgresql:// URL: -w then names a workspace in that database"
            " (default: $REVERIE_STORE, else [store] url in reverie.toml, else the folder).",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log what reverie does on stderr.")
    ] = False,
    _version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Long-term memory for LLM agents: chat, inspect and curate what is remembered."""
    ctx.obj = Options(workspace=workspace, store=store, verbose=verbose)
    _configure_logging(verbose=verbose)


def _configure_logging(*, verbose: bool) -> None:
    import logging  # here, not at the top: ``--help`` runs no command and needs no logging

    package = logging.getLogger("reverie")
    if package.handlers:
        return
    if verbose:
        handler: logging.Handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        package.setLevel(logging.INFO)
    else:
        handler = logging.NullHandler()
    package.addHandler(handler)


session_commands.register(app)
ingest_command.register(app)
read_commands.register(app)
memory_commands.register(app)
provenance_commands.register(app)
reach_commands.register(app)
store_commands.register(app)
owner_commands.register(app)
token_commands.register(app)


def main() -> None:
    """Run the CLI (the ``reverie`` console script and ``python -m reverie``)."""
    app(prog_name="reverie")
