"""Which home a ``reverie principal`` or ``reverie token`` command works on.

The rule, first match wins: ``--home DIR`` (a folder home); ``--store URL`` after the command
or before it (a database home: one workspace per principal in that PostgreSQL database);
``$REVERIE_HOME``; ``$REVERIE_STORE``; else ``~/.reverie``, the folder whose ``default/`` is the
single-person workspace. ``--home`` and ``--store`` together are refused.

Every principal's engine is opened with the home's settings: a folder principal's own
``reverie.toml`` plus the ``REVERIE_*`` variables; a database principal's from the
``REVERIE_*`` variables (there is no folder).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.context import options
from reverie.cli.failure import fail

if TYPE_CHECKING:
    from reverie.engine.owners.home import Home

HOME_ENV = "REVERIE_HOME"
"""The environment variable that names a folder home."""
DEFAULT_HOME = Path("~/.reverie")

HomeOption = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="The folder home: one workspace folder per principal"
        " (default: $REVERIE_HOME, else ~/.reverie).",
        show_default=False,
    ),
]
StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="A postgresql:// URL: a database home, one workspace per principal"
        " (default: $REVERIE_STORE when no folder home is named).",
        show_default=False,
    ),
]


def choose_home(ctx: typer.Context, home: Path | None, store: str | None) -> Home:
    """The home the options and environment select (see the module doc); not opened yet."""
    from reverie.engine.owners.database_home import DatabaseHome
    from reverie.engine.owners.home import FolderHome, Openers
    from reverie.engine.stores import is_store_url

    store = store or options(ctx).store
    if home is not None and store:
        fail("give --home (a folder home) or --store (a database home), not both")
    env = os.environ
    if home is None and not store:
        if env.get(HOME_ENV):
            home = Path(env[HOME_ENV])
        elif env.get("REVERIE_STORE"):
            store = env["REVERIE_STORE"]
    openers = Openers(environ=env)
    if store:
        if not is_store_url(store):
            fail("--store takes a postgresql:// URL (a folder home needs none: --home DIR)")
        return DatabaseHome(store, openers=openers)
    return FolderHome(home if home is not None else DEFAULT_HOME, openers=openers)


@contextmanager
def opened_home(ctx: typer.Context, home: Path | None, store: str | None) -> Iterator[Home]:
    """The selected home, closed (its connection pool, if any) when the command ends."""
    chosen = choose_home(ctx, home, store)
    try:
        yield chosen
    finally:
        chosen.close()
