"""Which backend a workspace is on: a folder, or a workspace of a PostgreSQL database.

The rule, first match wins (``MemoryEngine.open`` applies it; the CLI passes ``--store``):

1. a store URL given to ``open`` (the CLI's ``--store``) or in ``$REVERIE_STORE``: the
   workspace is the one *named* ``workspace`` (``-w NAME``, default ``default``) in that
   database; settings come from the ``REVERIE_*`` variables only (there is no folder);
2. the folder's ``reverie.toml`` has ``[store] url``: the workspace is ``[store] workspace``
   (default: the folder's name) in that database, with the folder's settings;
3. otherwise the folder itself (``reverie.storage.folder.backend``), as always.

A database workspace is never made implicitly: ``reverie init --store URL -w NAME`` applies the
schema's migrations and makes it; opening checks the schema (``SchemaVersionError``).

A server of many principals (``reverie.engine.owners.database_home.DatabaseHome``) opens ONE
pool on the database (``shared_database``) and each principal's backend over it
(``open_shared``): the backend borrows the pool, so an engine's close leaves it open for the
others. This module and ``reverie.storage.transfer`` are the only ones of ``storage`` that name
both backend classes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.config.file import CONFIG_NAME, default_workspace, load_config
from reverie.config.settings import Config
from reverie.core.clock import Clock
from reverie.errors import ConfigError
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend

if TYPE_CHECKING:
    from reverie.storage.ports.homes import HomeDatabase

STORE_ENV = "REVERIE_STORE"
"""The environment variable that names the database (a ``postgresql://`` URL)."""
SCHEMES = ("postgresql://", "postgres://")
"""What a database store's URL starts with (``is_store_url``)."""
DEFAULT_NAME = "default"
"""The workspace's name in the database when ``-w`` names none."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Opened:
    """The backend chosen and opened, with the settings that go with it."""

    backend: Backend
    config: Config


def open_backend(
    workspace: Path | str | None,
    *,
    store: str | None,
    config: Config | None,
    environ: Mapping[str, str] | None,
    create: bool,
    clock: Clock,
    read_only: bool,
) -> Opened:
    """Open the backend the rule above selects, and its settings (``config`` if given).

    Raises:
        ConfigError: a store that is not a postgresql:// URL, or the postgres extra missing.
        DatabaseError, SchemaVersionError: the database refused (no such workspace, ...).
        WorkspaceMissingError: the folder does not exist and ``create`` is false.
    """
    env = os.environ if environ is None else environ
    url = store or env.get(STORE_ENV) or None
    if url is not None:
        name = str(workspace) if workspace is not None and str(workspace) else DEFAULT_NAME
        settings = config if config is not None else load_config(None, env)
        backend = _database(url, name, clock, settings, "--store / REVERIE_STORE")
        return Opened(backend=backend, config=settings)
    path = Path(workspace).expanduser() if workspace is not None else default_workspace(env)
    if config is None and (path / CONFIG_NAME).is_file():
        config = load_config(path, env)
    if config is not None and config.store.url:
        name = config.store.workspace or path.name
        backend = _database(config.store.url, name, clock, config, "store.url")
        return Opened(backend=backend, config=config)
    folder = FileBackend.open(path, create=create, clock=clock, read_only=read_only)
    try:
        settings = config if config is not None else load_config(folder.root, env)
    except BaseException:
        folder.close()
        raise
    return Opened(backend=folder, config=settings)


def open_folder(
    path: Path,
    *,
    create: bool,
    config: Config | None,
    environ: Mapping[str, str] | None,
    clock: Clock,
) -> Opened:
    """Open the folder ``path`` itself, whatever ``$REVERIE_STORE`` or its ``[store] url`` say.

    A folder home's principal (``reverie.engine.owners.home.FolderHome``): its memory is its folder,
    so no variable can move it into a database. Settings: ``config`` if given, else the
    folder's ``reverie.toml`` and the ``REVERIE_*`` variables.

    Raises:
        WorkspaceMissingError: the folder does not exist and ``create`` is false.
    """
    env = os.environ if environ is None else environ
    folder = FileBackend.open(path, create=create, clock=clock, read_only=False)
    try:
        settings = config if config is not None else load_config(folder.root, env)
    except BaseException:
        folder.close()
        raise
    return Opened(backend=folder, config=settings)


def is_store_url(text: str) -> bool:
    """Whether ``text`` names a database store (a ``postgresql://`` URL), not a folder."""
    return text.startswith(SCHEMES)


def _checked(url: str, key: str) -> str:
    if not is_store_url(url):
        raise ConfigError(
            f"{key} must be a postgresql:// URL (a folder workspace needs no store)", key=key
        )
    return url


def _database(url: str, name: str, clock: Clock, config: Config, key: str) -> Backend:
    _checked(url, key)
    try:
        from reverie.storage.postgres.backend import PgBackend  # noqa: PLC0415 (the postgres extra)
    except ImportError as exc:
        raise ConfigError(
            "a postgresql:// store needs the postgres extra: pip install 'reverie[postgres]'",
            key=key,
        ) from exc
    lease = timedelta(seconds=config.store.lease_seconds)
    return PgBackend.open(url, name, clock=clock, lease_ttl=lease)


def shared_database(url: str, *, max_connections: int) -> HomeDatabase:
    """Open one connection pool on the database at ``url`` for many workspaces' backends.

    Connections are made lazily, at most ``max_connections`` whatever the number of backends
    opened over it (``open_shared``). The caller closes it, after every backend's engine, and
    holds it as the port a database home uses (``reverie.storage.ports.homes``).

    Raises:
        ConfigError: not a postgresql:// URL, or the postgres extra missing.
        DatabaseError: the database cannot be reached.
    """
    _checked(url, "--store")
    try:
        from reverie.storage.postgres.database import Database  # noqa: PLC0415 (the postgres extra)
    except ImportError as exc:
        raise ConfigError(
            "a postgresql:// store needs the postgres extra: pip install 'reverie[postgres]'",
            key="--store",
        ) from exc
    return Database(url, max_connections=max_connections)


def open_shared(
    database: HomeDatabase,
    name: str,
    *,
    create: bool,
    config: Config | None,
    environ: Mapping[str, str] | None,
    clock: Clock,
) -> Opened:
    """Open workspace ``name`` over the shared ``database`` (made first when ``create``).

    Settings: ``config`` if given, else the ``REVERIE_*`` variables (there is no folder). The
    backend's close leaves the pool open. The schema must be in place (``Database.init``).

    Raises:
        SchemaVersionError: the schema is missing, older or newer.
        DatabaseError: no such workspace and ``create`` is false.
    """
    from reverie.storage.postgres.backend import PgBackend  # noqa: PLC0415 (the postgres extra)
    from reverie.storage.postgres.database import Database  # noqa: PLC0415

    env = os.environ if environ is None else environ
    settings = config if config is not None else load_config(None, env)
    lease = timedelta(seconds=settings.store.lease_seconds)
    pool = Database.of(database)
    backend = PgBackend.on_shared(pool, name, create=create, clock=clock, lease_ttl=lease)
    return Opened(backend=backend, config=settings)


@dataclass(frozen=True, slots=True, kw_only=True)
class Initialised:
    """What ``init_database`` did: the schema version before and after, and where."""

    before: int
    after: int
    where: str


def init_database(url: str, name: str) -> Initialised:
    """Create or migrate the schema of the database at ``url``, then make workspace ``name``.

    Both steps are idempotent (``reverie init --store URL -w NAME``, ``reverie store init``).
    """
    from reverie.storage.postgres.database import Database  # noqa: PLC0415 (the postgres extra)

    database = Database(_checked(url, "--store"))
    try:
        before, after = database.init()
        database.tenant(name, create=True)
    finally:
        database.close()
    return Initialised(before=before, after=after, where=database.where)


def database_workspaces(url: str) -> list[str]:
    """The names of the workspaces in the database at ``url`` (its schema checked first)."""
    from reverie.storage.postgres.database import Database  # noqa: PLC0415 (the postgres extra)

    database = Database(_checked(url, "--store"))
    try:
        database.check()
        return database.workspaces()
    finally:
        database.close()


def drop_database_workspace(url: str, name: str) -> bool:
    """Delete workspace ``name`` of the database at ``url`` with every row of it.

    Every table's rows belong to a workspace and go with it (``ON DELETE CASCADE``). Returns
    whether there was such a workspace.
    """
    from reverie.storage.postgres.database import Database  # noqa: PLC0415 (the postgres extra)

    database = Database(_checked(url, "--store"))
    try:
        database.check()
        return database.drop(name)
    finally:
        database.close()
