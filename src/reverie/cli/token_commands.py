"""``reverie token``: the credentials of a home's server (docs/owners.md).

``add`` makes a token and prints its text once, on stdout alone (so
``TOKEN=$(reverie token add --principal alice)`` keeps it): a principal token
(``--principal NAME``: reaches that principal's memory only), an app token (``--app``: a
trusted backend names the principal per request) or an admin token (``--admin``: an app token
that may also list the principals). The book keeps only its SHA-256 digest and a 12-hex
public id, which ``list`` shows and ``revoke`` takes. The home is chosen as for ``reverie
principal`` (``reverie.cli.home_choice``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.failure import fail
from reverie.cli.home_choice import HomeOption, StoreOption, opened_home
from reverie.cli.render import emit_json, notice, when

if TYPE_CHECKING:
    from reverie.engine.owners.tokens import Grant, GrantKind

token_app = typer.Typer(
    name="token",
    help="The tokens that decide whose memory a request reaches: add, list, revoke.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@token_app.command("add")
def add(
    ctx: typer.Context,
    *,
    principal: Annotated[
        str | None, typer.Option("--principal", help="A token of this principal only.")
    ] = None,
    app_token: Annotated[
        bool, typer.Option("--app", help="An app token: each request names its principal.")
    ] = False,
    admin: Annotated[
        bool, typer.Option("--admin", help="An admin token: an app token that lists principals.")
    ] = False,
    label: Annotated[str, typer.Option("--label", help="A note: who or what holds it.")] = "",
    home: HomeOption = None,
    store: StoreOption = None,
) -> None:
    """Make a token and print it (the only time it is shown)."""
    from reverie.engine.owners.tokens import ID_DIGITS, digest

    kind = _kind(principal, app=app_token, admin=admin)
    with opened_home(ctx, home, store) as chosen:
        token = chosen.tokens().issue(kind, principal=principal, label=label)
    typer.echo(token)
    whose = f" of principal {principal!r}" if principal is not None else ""
    notice(f"{kind} token {digest(token)[:ID_DIGITS]}{whose}: shown once, keep it now")


def _kind(principal: str | None, *, app: bool, admin: bool) -> GrantKind:
    chosen = [
        name
        for name, given in (("--principal", principal), ("--app", app), ("--admin", admin))
        if given
    ]
    if len(chosen) != 1:
        fail("give exactly one of --principal NAME, --app or --admin")
    if principal is not None:
        return "principal"
    return "app" if app else "admin"


@token_app.command("list")
def list_tokens(
    ctx: typer.Context,
    *,
    home: HomeOption = None,
    store: StoreOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print every token's id, kind, principal, label, and when it was made or revoked."""
    with opened_home(ctx, home, store) as chosen:
        grants = chosen.tokens().grants()
    if json_output:
        emit_json({"tokens": grants})
        return
    for grant in grants:
        typer.echo(_line(grant))


def _line(grant: Grant) -> str:
    state = f"revoked {when(grant.revoked)}" if grant.revoked else "live"
    whose = grant.principal if grant.principal is not None else "-"
    return (
        f"{grant.id}  {grant.kind:<9}  {whose}  {state}  made {when(grant.created)}  {grant.label}"
    )


@token_app.command("revoke")
def revoke(
    ctx: typer.Context,
    token_id: Annotated[str, typer.Argument(help="The token's id (`reverie token list`).")],
    *,
    home: HomeOption = None,
    store: StoreOption = None,
) -> None:
    """Revoke a token: every server refuses it from its next request."""
    with opened_home(ctx, home, store) as chosen:
        grant = chosen.tokens().revoke(token_id)
    typer.echo(f"revoked {_line(grant)}")


def register(app: typer.Typer) -> None:
    """Add the ``token`` group to ``app``."""
    app.add_typer(token_app)
