"""What an owners' home needs of storage, without naming a backend's modules.

A home holds many workspaces (``reverie.engine.owners``): a folder with one workspace folder
per principal, or a database with one workspace per principal. The home keeps its own rules
(names, tokens, the pool of engines); what it must know of how a workspace is stored is here:

- a folder home: whether a folder holds a workspace (``holds_workspace``) and a copy of one
  that leaves its lock files behind (``copy_workspace``);
- a database home: the database for messages (``describe_store``) and its ``tokens`` table
  (``token_rows``, a ``reverie.storage.ports.homes.TokenRowsPort``); the database itself is
  opened by ``reverie.storage.open.shared_database``.

The PostgreSQL modules are imported on use (the ``postgres`` extra).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.errors import StorageError
from reverie.storage.folder import layout

if TYPE_CHECKING:
    from reverie.storage.ports.homes import HomeDatabase, TokenRowsPort

__all__ = ["copy_workspace", "describe_store", "holds_workspace", "token_rows"]


def holds_workspace(folder: Path) -> bool:
    """Whether ``folder`` holds a workspace (its ``memory/`` folder exists)."""
    return (folder / layout.MEMORY_DIR).is_dir()


def copy_workspace(source: Path, folder: Path) -> None:
    """Copy the workspace folder ``source`` whole into ``folder``, its lock files left behind.

    Links are copied as links; git history, the index and the vectors come along.

    Raises:
        StorageError: the copy failed.
    """
    locks = source / layout.LOCKS
    try:
        shutil.copytree(
            source,
            folder,
            symlinks=True,
            dirs_exist_ok=True,
            ignore=lambda where, _names: [locks.name] if Path(where) == locks.parent else [],
        )
    except (OSError, shutil.Error) as exc:
        raise StorageError(f"cannot export the workspace ({exc})", path=folder) from exc


def describe_store(url: str) -> str:
    """The database at ``url`` for messages: ``postgresql://host:port/dbname``, no password."""
    from reverie.storage.postgres.database import describe_url  # noqa: PLC0415 (postgres extra)

    return describe_url(url)


def token_rows(database: HomeDatabase) -> TokenRowsPort:
    """The ``tokens`` table of a home's ``database`` (one ``open.shared_database`` opened)."""
    from reverie.storage.postgres.database import Database  # noqa: PLC0415 (postgres extra)
    from reverie.storage.postgres.tokens import PgTokenRows  # noqa: PLC0415

    return PgTokenRows(Database.of(database))
