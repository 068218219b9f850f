"""``DatabaseHome``: a PostgreSQL database holding one workspace (tenant) per principal.

Every principal's engine is opened over ONE database (one connection pool, opened on first use,
held as a ``reverie.storage.ports.homes.HomeDatabase``): the backends borrow it
(``reverie.storage.open.open_shared``), so an engine's close leaves it open and any number of
principals cost at most ``max_connections`` connections. The workspace is named by the
principal's id; opening with ``create`` makes it (and migrates the schema once per home
first). Deleting a principal deletes its ``workspaces`` row, and every table's rows go with it
(``ON DELETE CASCADE``).
The token book is the database's ``tokens`` table (``database_tokens``).

``close`` closes the pool: after every engine opened from the home (``EnginePool.close``).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.engine.owners.home import Openers
from reverie.engine.owners.names import DEFAULT_PRINCIPAL, check_principal

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine
    from reverie.engine.owners.tokens import TokenBook
    from reverie.storage.ports.homes import HomeDatabase

DEFAULT_CONNECTIONS = 10
"""The pool's size: every principal's engine shares these connections."""


class DatabaseHome:
    """A PostgreSQL database holding one workspace per principal, over ONE connection pool.

    The pool is opened on first use and shared by every principal's backend (an engine's
    close leaves it open), so 10,000 principals cost at most ``max_connections`` connections;
    ``close`` closes it, after the engines (``EnginePool.close`` first).
    """

    def __init__(
        self,
        url: str,
        *,
        default: str = DEFAULT_PRINCIPAL,
        openers: Openers | None = None,
        max_connections: int = DEFAULT_CONNECTIONS,
    ) -> None:
        self.url = url
        self.default = check_principal(default)
        self.max_connections = max_connections
        self._openers = openers if openers is not None else Openers()
        self._database: HomeDatabase | None = None
        self._migrated = False
        self._guard = threading.Lock()

    @property
    def location(self) -> str:
        """The database, without its password."""
        from reverie.storage.homes import describe_store  # noqa: PLC0415

        return describe_store(self.url)

    def database(self) -> HomeDatabase:
        """The home's one connection pool (opened on first use)."""
        from reverie.storage.open import shared_database  # noqa: PLC0415

        with self._guard:
            if self._database is None:
                self._database = shared_database(self.url, max_connections=self.max_connections)
            return self._database

    def _schema(self, *, create: bool) -> HomeDatabase:
        """The pool, with the schema migrated once per home before the first workspace made."""
        database = self.database()
        if create and not self._migrated:
            database.init()  # idempotent, under the migration lock (several servers at once)
            self._migrated = True
        return database

    def principals(self) -> list[str]:
        """The workspaces of the database."""
        database = self.database()
        database.check()
        return database.workspaces()

    def exists(self, principal: str) -> bool:
        """Whether the database has a workspace named ``principal``."""
        return self.database().exists(check_principal(principal))

    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        """Open the engine on the workspace named ``principal`` (made first when ``create``)."""
        from reverie.storage.open import open_shared  # noqa: PLC0415

        check_principal(principal)
        o = self._openers
        opened = open_shared(
            self._schema(create=create),
            principal,
            create=create,
            config=o.config,
            environ=o.environ,
            clock=o.clock,
        )
        return o.engine_on(opened)

    def remove(self, principal: str) -> None:
        """Delete the workspace named ``principal`` and every row of it (by its foreign keys)."""
        database = self.database()
        database.check()
        database.drop(check_principal(principal))

    def scrub(self) -> None:
        """Rewrite every table (``VACUUM FULL``, ``schema.scrub``) after ``remove``.

        Deleted rows' bytes leave the tables' and indexes' files (the write-ahead log keeps
        them until PostgreSQL recycles it). Each table is locked while it is rewritten: every
        principal waits, for time in proportion to the table.
        """
        self.database().scrub()

    def export_folder(self, principal: str, folder: Path) -> None:
        """Copy ``principal``'s workspace into the new folder ``folder`` (``storage.transfer``)."""
        from reverie.storage.transfer import export_shared_workspace  # noqa: PLC0415

        export_shared_workspace(self.database(), check_principal(principal), folder)

    def tokens(self) -> TokenBook:
        """The ``tokens`` table of the database."""
        from reverie.engine.owners.database_tokens import DatabaseTokenBook  # noqa: PLC0415
        from reverie.storage.homes import token_rows  # noqa: PLC0415

        database = self.database()
        database.check()
        return DatabaseTokenBook(token_rows(database))

    def state_folder(self) -> None:
        """A database home keeps its state in the database."""
        return

    def close(self) -> None:
        """Close the pool (every engine opened from this home must be closed first)."""
        with self._guard:
            if self._database is not None:
                self._database.close()
                self._database = None
