"""Deleting a database principal leaves no row of it in any table of the schema."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from reverie.config.settings import Config
from reverie.engine.owners import DatabaseHome, EnginePool, Openers
from reverie.engine.owners.purge import delete_principal
from reverie.errors import DatabaseError, PrincipalMissingError
from reverie.storage.postgres import schema
from tests.owners.planting import plant, unique_fact

pytestmark = pytest.mark.slow

HOME_TABLES = {"workspaces", "reverie_schema", "tokens"}
"""The schema's tables that belong to no workspace (the directory, the version, the tokens)."""


@pytest.fixture
def admin(pg_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A superuser connection: it sees every workspace's rows (row-level security bypassed)."""
    with psycopg.connect(pg_url.replace("reverie_app@", "postgres@"), autocommit=True) as conn:
        yield conn


def _tables(conn: psycopg.Connection[tuple[object, ...]]) -> list[str]:
    rows = conn.execute(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name"
    ).fetchall()
    return [str(row[0]) for row in rows]


def _with_workspace_id(conn: psycopg.Connection[tuple[object, ...]]) -> set[str]:
    rows = conn.execute(
        "SELECT table_name FROM information_schema.columns"
        " WHERE table_schema = 'public' AND column_name = 'workspace_id'"
    ).fetchall()
    return {str(row[0]) for row in rows}


def _cascading(conn: psycopg.Connection[tuple[object, ...]]) -> set[str]:
    """The tables whose rows go when their workspace goes: ON DELETE CASCADE chains."""
    rows = conn.execute(
        "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c"
        " WHERE c.contype = 'f' AND c.confdeltype = 'c'"
    ).fetchall()
    edges = [(str(child), str(parent)) for child, parent in rows]
    reached = {"workspaces"}
    while True:
        more = {child for child, parent in edges if parent in reached} - reached
        if not more:
            return reached - {"workspaces"}
        reached |= more


def test_every_table_of_a_workspace_cascades_from_workspaces(
    admin: psycopg.Connection[tuple[object, ...]],
) -> None:
    tables = set(_tables(admin))
    assert tables >= HOME_TABLES
    tenant_tables = tables - HOME_TABLES
    assert tenant_tables == _with_workspace_id(admin)
    assert tenant_tables == _cascading(admin)
    assert tenant_tables == set(schema.WORKSPACE_TABLES)
    assert tables == set(schema.SCRUBBED_TABLES) | {"reverie_schema"}  # what a scrub rewrites


def test_a_deleted_principal_leaves_no_row_and_no_byte_of_its_fact(
    pg_url: str, admin: psycopg.Connection[tuple[object, ...]]
) -> None:
    home = DatabaseHome(pg_url, openers=Openers(config=Config(), environ={}, dense="off"))
    pool = EnginePool(home, capacity=4)
    fact, kept = unique_fact(), unique_fact()
    alice, bob = f"alice-{secrets.token_hex(4)}", f"bob-{secrets.token_hex(4)}"
    try:
        with pool.lease(alice, create=True) as engine:
            plant(engine, fact)
            engine.dream()  # model-free: the dream's commit, cursor and provenance too
        with pool.lease(bob, create=True) as engine:
            plant(engine, kept)
        book = home.tokens()
        book.issue("principal", principal=alice, label=f"{fact} phone")
        book.issue("principal", principal=bob)
        row = admin.execute("SELECT id FROM workspaces WHERE name = %s", (alice,)).fetchone()
        assert row is not None
        alice_id = row[0]
        assert _holding(admin, fact)  # planted everywhere the test then checks
        assert _data_files_holding(admin, fact)

        done = delete_principal(home, alice, pool=pool)

        assert done.tokens == 1
        assert alice not in pool.open_principals()
        assert not home.exists(alice)
        for table in sorted(_with_workspace_id(admin)):
            query = sql.SQL("SELECT count(*) FROM {} WHERE workspace_id = %s").format(
                sql.Identifier(table)
            )
            count = admin.execute(query, (alice_id,)).fetchone()
            assert count == (0,), table
        assert _holding(admin, fact) == []
        assert _holding(admin, alice) == []
        assert _data_files_holding(admin, fact) == []  # the scrub: no table or index file
        assert "tokens" in _holding(admin, bob)
        with pool.lease(bob) as engine:  # the other principal keeps everything
            assert engine.search(kept)
        with pytest.raises(PrincipalMissingError, match=alice):
            delete_principal(home, alice, pool=pool)
    finally:
        pool.close()
        home.close()


def _holding(conn: psycopg.Connection[tuple[object, ...]], text: str) -> list[str]:
    """Every table of the schema that has a row whose text holds ``text``."""
    found = []
    for table in _tables(conn):
        query = sql.SQL("SELECT count(*) FROM {} t WHERE t::text LIKE %s").format(
            sql.Identifier(table)
        )
        row = conn.execute(query, (f"%{text}%",)).fetchone()
        if row is not None and row[0] != 0:
            found.append(table)
    return found


def _data_files_holding(conn: psycopg.Connection[tuple[object, ...]], text: str) -> list[str]:
    """The database's table and index files holding ``text``, once written out (CHECKPOINT).

    The write-ahead log (``pg_wal``) is not read: it keeps old bytes until PostgreSQL
    recycles its segments, which no purge can force (``reverie.engine.owners.purge`` says so).
    """
    conn.execute("CHECKPOINT")
    row = conn.execute(
        "SELECT current_setting('data_directory'), oid FROM pg_database"
        " WHERE datname = current_database()"
    ).fetchone()
    assert row is not None
    folder = Path(str(row[0])) / "base" / str(row[1])
    needle = text.encode()
    return sorted(path.name for path in folder.iterdir() if needle in path.read_bytes())


def test_a_scrub_by_a_role_that_does_not_own_the_tables_is_refused_not_skipped(
    pg_url: str, admin: psycopg.Connection[tuple[object, ...]]
) -> None:
    # PostgreSQL only warns and skips a table its role may not rewrite: the scrub checks first.
    role = f"guest_{secrets.token_hex(4)}"
    admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    admin.execute(
        sql.SQL("GRANT ALL ON ALL TABLES IN SCHEMA public TO {}").format(sql.Identifier(role))
    )
    guest = DatabaseHome(pg_url.replace("reverie_app@", f"{role}@"))
    try:
        with pytest.raises(DatabaseError, match="tables' owner"):
            guest.scrub()
    finally:
        guest.close()
