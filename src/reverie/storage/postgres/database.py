"""The connection pool of one PostgreSQL database and the scope of one workspace inside it.

``Database`` owns a ``psycopg_pool.ConnectionPool`` (one per process and URL) and applies or
checks the schema. ``Tenant`` is one workspace: every transaction it opens first sets
``reverie.workspace`` *locally* (``set_config(..., true)``), so the row-level-security
policies of ``schema`` show it only its own rows, and a connection returned to the pool keeps
no workspace. psycopg errors are translated into ``DatabaseError`` here, where they enter.

What it must not do: read env vars or config files (the surface passes the URL), keep a
workspace setting on a pooled connection, or put a password in an error message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from reverie.errors import DatabaseError, DatabaseUnreachableError, ReverieError
from reverie.storage.postgres import schema

if TYPE_CHECKING:
    Conn = psycopg.Connection[tuple[object, ...]]


_CONNECT_TIMEOUT = 10
"""Seconds a new connection may take (an unreachable host that drops packets)."""


def describe_url(url: str) -> str:
    """Return ``postgresql://host:port/dbname`` for messages: no user, password or options."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable URL)"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"postgresql://{host}:{port}/{parts.get('dbname') or ''}"


class Database:
    """One database: a connection pool, ``init`` (migrations) and workspaces by name."""

    def __init__(self, url: str, *, max_connections: int = 8, timeout: float = 30.0) -> None:
        """Open a pool on ``url`` (connections are made lazily, at most ``max_connections``).

        One connection is made first, directly: a database that cannot be reached is one
        ``DatabaseUnreachableError`` at once, not a pool retrying in the background for
        ``timeout`` seconds with a warning per attempt.
        """
        self.url = url
        self.where = describe_url(url)
        self._max_connections = max_connections
        _reach(url, self.where)
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            timeout=timeout,
            open=False,
            kwargs={"autocommit": True, "connect_timeout": _CONNECT_TIMEOUT},
            name="reverie",
        )
        try:
            self._pool.open(wait=False)
        except psycopg.Error as exc:
            raise DatabaseError(f"cannot connect ({exc})", where=self.where) from exc

    @contextmanager
    def connection(self, where: str | None = None) -> Iterator[Conn]:
        """Lend one pooled connection (autocommit; open a transaction with ``transaction()``)."""
        place = where or self.where
        try:
            with self._pool.connection() as conn:
                yield conn
        except ReverieError:
            raise
        except PoolTimeout as exc:
            raise DatabaseError("no connection free in time (pool exhausted)", where=place) from exc
        except psycopg.Error as exc:
            raise DatabaseError(_first_line(exc), where=place) from exc

    @contextmanager
    def transaction(self, begin: str, where: str) -> Iterator[Conn]:
        """Run one transaction on a pooled connection, opened by the SQL text ``begin``.

        ``begin`` (``BEGIN`` and what must come first, literal text, no parameters) goes out
        as one simple query, a round trip that also proves the connection alive: one the
        server closed (a restart, a fail-over) fails there, before the caller's block runs,
        and is replaced, so it costs no failed call. (Checking each connection as the pool
        lends it took an empty round trip of its own: 0.65 ms of a 1.4 ms read on loopback.)
        The block's statements run one by one, not pipelined: for reverie's transactions of a
        few statements, pipeline mode's own synchronisation cost more than it saved (a read
        transaction waited on the socket 6 times and took 483 µs of client CPU pipelined,
        3 times and 214 µs not, on loopback); ``executemany`` still pipelines its rows.
        """
        try:
            conn = self._begun(begin)
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if not conn.broken:
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._pool.putconn(conn)
        except ReverieError:
            raise
        except PoolTimeout as exc:
            raise DatabaseError("no connection free in time (pool exhausted)", where=where) from exc
        except psycopg.Error as exc:
            raise DatabaseError(_first_line(exc), where=where) from exc

    def _begun(self, begin: str) -> Conn:
        """A pooled connection in a transaction opened by ``begin`` (dead ones replaced)."""
        for _ in range(self._max_connections):
            conn = self._pool.getconn()
            try:
                conn.execute(begin.encode())
            except psycopg.OperationalError:
                self._pool.putconn(conn)  # broken: the pool closes it and opens another
                continue
            return conn
        conn = self._pool.getconn()  # every pooled connection was dead: a new one's error
        try:
            conn.execute(begin.encode())
        except BaseException:
            self._pool.putconn(conn)
            raise
        return conn

    def init(self) -> tuple[int, int]:
        """Create or migrate the schema; return (version before, version after)."""
        with self.connection() as conn:
            return schema.migrate(conn, where=self.where)

    def check(self) -> None:
        """Raise ``SchemaVersionError`` unless the schema is the one this reverie speaks."""
        with self.connection() as conn:
            schema.check(conn, where=self.where)

    def tenant(self, name: str, *, create: bool = False) -> Tenant:
        """Return the workspace ``name``, made first when ``create`` (checks the schema).

        Raises:
            SchemaVersionError: the schema is missing, older or newer.
            DatabaseError: no such workspace and ``create`` is False.
        """
        where = f"{self.where} workspace {name!r}"
        with self.connection(where) as conn:
            schema.check(conn, where=self.where)
            if create:
                conn.execute(
                    "INSERT INTO workspaces (name) VALUES (%s) ON CONFLICT (name) DO NOTHING",
                    (name,),
                )
            row = conn.execute("SELECT id FROM workspaces WHERE name = %s", (name,)).fetchone()
            if row is None:
                raise DatabaseError(
                    f"no such workspace (`reverie init --store URL -w {name}` makes it)",
                    where=where,
                )
            tenant = Tenant(self, int(str(row[0])), name, where)
        with tenant.transaction() as conn:
            conn.execute(
                "INSERT INTO workspace_state (workspace_id) VALUES (%s)"
                " ON CONFLICT (workspace_id) DO NOTHING",
                (tenant.id,),
            )
        return tenant

    def drop(self, name: str) -> bool:
        """Delete workspace ``name`` and, by its foreign keys, every row of it."""
        with self.connection(f"{self.where} workspace {name!r}") as conn:
            cursor = conn.execute("DELETE FROM workspaces WHERE name = %s", (name,))
            return cursor.rowcount > 0

    def scrub(self) -> None:
        """Rewrite the tables so deleted rows' bytes leave the files (``schema.scrub``)."""
        try:
            with self.connection() as conn:
                schema.scrub(conn, where=self.where)
        except (DatabaseError, PermissionError) as exc:
            raise DatabaseError(
                f"cannot rewrite the tables ({exc}); the rows are deleted, but their bytes"
                " stay in the database's files until a scrub as the tables' owner"
                " (the role of `reverie init`)",
                where=self.where,
            ) from exc

    def exists(self, name: str) -> bool:
        """Whether the database has a workspace named ``name``."""
        with self.connection() as conn:
            row = conn.execute("SELECT 1 FROM workspaces WHERE name = %s", (name,)).fetchone()
        return row is not None

    def workspaces(self) -> list[str]:
        """Return the names of every workspace in the database, sorted."""
        with self.connection() as conn:
            rows = conn.execute("SELECT name FROM workspaces ORDER BY name").fetchall()
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Close every pooled connection."""
        self._pool.close()

    @staticmethod
    def of(database: object) -> Database:
        """``database`` itself, which a caller holds as a port (``ports.homes.HomeDatabase``).

        Raises:
            TypeError: it is not a ``Database`` (only ``open.shared_database`` makes one).
        """
        if not isinstance(database, Database):
            raise TypeError(f"not a PostgreSQL database: {type(database).__name__}")
        return database


class Tenant:
    """One workspace of a database: transactions that can see only its rows."""

    def __init__(self, database: Database, workspace_id: int, name: str, where: str) -> None:
        self.database = database
        self.id = workspace_id
        self.name = name
        self.where = where

    @contextmanager
    def transaction(self, *, snapshot: bool = False) -> Iterator[Conn]:
        """Run one transaction scoped to this workspace (committed when the block ends).

        Args:
            snapshot: every statement reads one snapshot (REPEATABLE READ), for reads that
                must agree with each other.
        """
        # BEGIN and the workspace setting go out as one query (the id is an int, so literal
        # text is safe): one round trip, which also proves the connection alive.
        isolation = " ISOLATION LEVEL REPEATABLE READ" if snapshot else ""
        begin = f"BEGIN{isolation}; SELECT set_config('reverie.workspace', '{int(self.id)}', true)"
        with self.database.transaction(begin, self.where) as conn:
            yield conn


def _reach(url: str, where: str) -> None:
    try:
        psycopg.connect(url, connect_timeout=_CONNECT_TIMEOUT).close()
    except psycopg.OperationalError as exc:
        raise DatabaseUnreachableError(_first_line(exc), where=where) from exc
    except psycopg.Error as exc:  # a URL psycopg cannot use
        raise DatabaseError(f"cannot connect ({_first_line(exc)})", where=where) from exc


def _first_line(exc: psycopg.Error) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
