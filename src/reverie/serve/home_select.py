"""Which home ``reverie serve`` serves, with which settings and which token book.

The rule (OWNERS.md, first match wins):

1. ``--home DIR`` (or ``$REVERIE_HOME``): that folder home; its default principal is
   ``default``; the settings are ``DIR/default/reverie.toml`` (when there) plus ``REVERIE_*``;
2. a store (``--store URL`` / ``$REVERIE_STORE``, with ``-w NAME``): the database home, whose
   default principal is NAME (``default`` when none); settings from ``REVERIE_*``;
3. the selected workspace folder (``-w``, ``$REVERIE_WORKSPACE``, ``~/.reverie/default``):
   the home is its parent folder and the default principal its folder name, so the
   single-person setup (``~/.reverie`` holding ``default/``) is served unchanged; a folder
   whose ``reverie.toml`` names ``[store] url`` makes that database the home.

Every principal's engine is opened with these one settings (``owners.Openers``), so one model
configuration serves all. ``token_book`` is the one place that picks a home's book.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reverie.config.file import CONFIG_NAME, default_workspace, load_config
from reverie.config.settings import Config
from reverie.engine.owners import (
    DEFAULT_PRINCIPAL,
    DatabaseHome,
    FolderHome,
    Home,
    Openers,
    TokenBook,
    principal_of,
)
from reverie.errors import InputError
from reverie.storage.open import STORE_ENV

HOME_ENV = "REVERIE_HOME"


@dataclass(frozen=True, slots=True, kw_only=True)
class Served:
    """The home to serve and the one settings every principal's engine is opened with."""

    home: Home
    config: Config


def served_home(
    workspace: Path | str | None,
    *,
    store: str | None = None,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Served:
    """The home the rule above selects, with its settings.

    Raises:
        InputError: the selected folder's name is not one a principal's folder can have.
        ConfigError: the settings are invalid.
    """
    env = os.environ if environ is None else environ
    named_home = home or (Path(env[HOME_ENV]) if env.get(HOME_ENV) else None)
    if named_home is not None:
        root = named_home.expanduser()
        config = _settings(root / DEFAULT_PRINCIPAL, env)
        return Served(home=FolderHome(root, openers=_openers(config, env)), config=config)
    url = store or env.get(STORE_ENV) or None
    if url is not None:
        name = str(workspace) if workspace is not None and str(workspace) else DEFAULT_PRINCIPAL
        config = load_config(None, env)
        database = DatabaseHome(url, default=name, openers=_openers(config, env))
        return Served(home=database, config=config)
    path = Path(workspace).expanduser() if workspace is not None else default_workspace(env)
    config = _settings(path, env)
    if config.store.url:
        name = config.store.workspace or path.name
        database = DatabaseHome(config.store.url, default=name, openers=_openers(config, env))
        return Served(home=database, config=config)
    principal = principal_of(path.name)
    if principal is None:
        raise InputError(
            f"reverie serve serves the folder {path.parent} as a home, but {path.name!r} is "
            "not a principal's folder name (lower-case letters, digits, _ . -): rename the "
            "folder, or name a home with --home"
        )
    folder = FolderHome(path.parent, default=principal, openers=_openers(config, env))
    return Served(home=folder, config=config)


def token_book(home: Home) -> TokenBook:
    """The home's token book: ``<home>/.home/tokens.sqlite3``, or the database's table."""
    return home.tokens()


def _settings(folder: Path, env: Mapping[str, str]) -> Config:
    return load_config(folder if (folder / CONFIG_NAME).is_file() else None, env)


def _openers(config: Config, env: Mapping[str, str]) -> Openers:
    return Openers(config=config, environ=env)
