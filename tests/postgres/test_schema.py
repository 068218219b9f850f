"""Schema versions and tenancy: a workspace's queries never reach another's rows."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest

from reverie.core.provenance import EntrySource, Provenance
from reverie.errors import DatabaseError, SchemaVersionError
from reverie.storage.postgres import schema
from reverie.storage.postgres.database import Database, Tenant, describe_url
from reverie.storage.postgres.history import PgHistoryLog
from reverie.storage.postgres.index import PgIndex
from reverie.storage.postgres.provenance import PgProvenance


def test_init_twice_applies_nothing_the_second_time(database: Database) -> None:
    assert database.init() == (schema.SCHEMA_VERSION, schema.SCHEMA_VERSION)
    database.check()


def test_a_newer_schema_is_refused_with_a_clear_error(database: Database) -> None:
    with psycopg.connect(database.url, autocommit=True) as conn:
        conn.execute("UPDATE reverie_schema SET version = version + 1")
        try:
            with pytest.raises(SchemaVersionError, match="newer") as info:
                database.check()
            assert info.value.found == schema.SCHEMA_VERSION + 1
            with pytest.raises(SchemaVersionError, match="upgrade reverie"):
                database.init()
        finally:
            conn.execute("UPDATE reverie_schema SET version = version - 1")


def test_an_older_schema_asks_for_init(database: Database) -> None:
    with psycopg.connect(database.url, autocommit=True) as conn:
        conn.execute("UPDATE reverie_schema SET version = 0")
        try:
            with pytest.raises(SchemaVersionError, match="reverie init"):
                database.tenant("anything")
        finally:
            conn.execute("UPDATE reverie_schema SET version = %s", (schema.SCHEMA_VERSION,))


def test_an_empty_database_is_not_initialised(pg_url: str) -> None:
    admin = pg_url.replace("reverie_app@", "postgres@")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("CREATE DATABASE empty_one OWNER reverie_app")
    empty = Database(pg_url.rsplit("/", 1)[0] + "/empty_one")
    try:
        with pytest.raises(SchemaVersionError, match="no reverie schema"):
            empty.check()
    finally:
        empty.close()


def test_an_unknown_workspace_is_an_error_unless_created(database: Database) -> None:
    with pytest.raises(DatabaseError, match="no such workspace"):
        database.tenant("nobody-made-this")
    made = database.tenant("made-now", create=True)
    assert database.tenant("made-now").id == made.id
    assert "made-now" in database.workspaces()


def test_errors_name_the_database_without_credentials() -> None:
    assert describe_url("postgresql://u:secret@db.example:6543/mem") == (
        "postgresql://db.example:6543/mem"
    )


def test_a_home_database_held_as_its_port_is_the_pool_itself(database: Database) -> None:
    assert Database.of(database) is database
    with pytest.raises(TypeError, match="not a PostgreSQL database: str"):
        Database.of("postgresql://db.example/mem")


def test_a_workspace_cannot_read_or_write_another_workspaces_rows(
    database: Database, tenant: Tenant
) -> None:
    other = database.tenant(f"{tenant.name}-other", create=True)
    PgHistoryLog(tenant).append("alpha secret of the first workspace")
    PgHistoryLog(other).append("beta of the second")
    with tenant.transaction() as conn:
        # Even a query that names the other workspace's id explicitly sees none of its rows.
        rows = conn.execute(
            "SELECT content FROM history WHERE workspace_id = %s", (other.id,)
        ).fetchall()
        assert rows == []
        assert conn.execute("SELECT count(*) FROM history").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM workspace_state").fetchone() == (1,)
    with pytest.raises(DatabaseError, match="row-level security"), tenant.transaction() as conn:
        conn.execute(
            "INSERT INTO history (workspace_id, cursor, stamp, content) VALUES (%s, 99, '', 'x')",
            (other.id,),
        )
    assert [e.content for e in PgHistoryLog(other).read_since(0)] == ["beta of the second"]


def test_a_connection_that_names_no_workspace_sees_no_rows(
    database: Database, tenant: Tenant
) -> None:
    PgHistoryLog(tenant).append("visible only inside its workspace")
    with database.connection() as conn:
        assert conn.execute("SELECT count(*) FROM history").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (0,)


def test_connections_killed_by_the_database_are_replaced_without_a_failed_call(
    pg_url: str, tenant: Tenant
) -> None:
    log = PgHistoryLog(tenant)
    log.append("before")
    admin = pg_url.replace("reverie_app@", "postgres@").rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'reverie_app'"
        )
    assert log.append("after").cursor == 2


def test_provenance_records_stay_inside_their_workspace(database: Database, tenant: Tenant) -> None:
    other = database.tenant(f"{tenant.name}-prov", create=True)
    records = Provenance()
    at = datetime(2026, 11, 30, tzinfo=UTC)
    records.note("USER.md", "- Lives in Porto", (EntrySource(cursor=1),), at)
    PgProvenance(tenant).write(records)
    assert PgProvenance(other).read().records == {}
    with other.transaction() as conn:
        assert conn.execute("SELECT count(*) FROM provenance").fetchone() == (0,)
    assert PgProvenance(tenant).read() == records


def test_init_migrates_a_version_1_database_to_the_provenance_table(pg_url: str) -> None:
    url = _database_at(pg_url, 1)
    old = Database(url)
    try:
        with pytest.raises(SchemaVersionError, match="older"):
            old.check()
        assert old.init() == (1, schema.SCHEMA_VERSION)
        tenant = old.tenant("kept", create=True)
        assert PgProvenance(tenant).read().records == {}
    finally:
        old.close()


def test_init_migrates_a_version_4_database_to_the_token_table(pg_url: str) -> None:
    url = _database_at(pg_url, 4)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO workspaces (name) VALUES ('kept')")
    old = Database(url)
    try:
        with pytest.raises(SchemaVersionError, match="older"):
            old.check()
        assert old.init() == (4, schema.SCHEMA_VERSION)
        assert old.workspaces() == ["kept"]
        with old.connection() as conn:
            assert conn.execute("SELECT count(*) FROM tokens").fetchone() == (0,)
    finally:
        old.close()


def test_init_generates_the_searched_words_of_a_version_5_database_again(pg_url: str) -> None:
    """Rows written before CJK segmentation are found by a Chinese word once migrated."""
    url = _database_at(pg_url, 5)
    old = Database(url)
    try:
        with old.connection() as conn, conn.transaction():
            conn.execute("INSERT INTO workspaces (name) VALUES ('kept')")
            [(ws,)] = conn.execute("SELECT id FROM workspaces").fetchall()
            conn.execute("SELECT set_config('reverie.workspace', %s, true)", (str(ws),))
            conn.execute(
                "INSERT INTO workspace_state (workspace_id, last_cursor) VALUES (%s, 1)", (ws,)
            )
            conn.execute(
                "INSERT INTO history (workspace_id, cursor, stamp, content)"
                " VALUES (%s, 1, '2026-12-01 10:00', '我每天喝咖啡')",
                (ws,),
            )
        assert old.init() == (5, schema.SCHEMA_VERSION)
        index = PgIndex(old.tenant("kept"))
        assert [hit.cursor for hit in index.search("咖啡")] == [1]
    finally:
        old.close()


def test_init_fills_the_word_tables_and_counts_of_a_version_7_database(pg_url: str) -> None:
    """Rows written before schema 8 are searched through the word tables once migrated."""
    url = _database_at(pg_url, 7)
    old = Database(url)
    try:
        for name in ("one", "two"):
            with old.connection() as conn, conn.transaction():
                row = conn.execute(
                    "INSERT INTO workspaces (name) VALUES (%s) RETURNING id", (name,)
                ).fetchone()
                assert row is not None
                conn.execute("SELECT set_config('reverie.workspace', %s, true)", (str(row[0]),))
                conn.execute(
                    "INSERT INTO workspace_state (workspace_id, last_cursor) VALUES (%s, 40)",
                    (row[0],),
                )
                conn.execute(
                    "INSERT INTO history (workspace_id, cursor, stamp, content) SELECT %s, n,"
                    " '2026-12-01 10:00', 'harbour note ' || n || ' 我每天喝咖啡'"
                    " FROM generate_series(1, 40) AS n",
                    (row[0],),
                )
        assert old.init() == (7, schema.SCHEMA_VERSION)
        for name in ("one", "two"):
            tenant = old.tenant(name)
            with tenant.transaction() as conn:
                counted = conn.execute(
                    "SELECT sum(n) FROM item_counts WHERE workspace_id = %s", (tenant.id,)
                ).fetchone()
            assert counted == (40,)
            index = PgIndex(tenant)
            assert len(index.search("咖啡", limit=50)) == 40
            assert [hit.cursor for hit in index.search("harbour 17")][:1] == [17]
    finally:
        old.close()


def _database_at(pg_url: str, version: int) -> str:
    """A new database of the test cluster as a reverie of schema ``version`` made it; its URL."""
    admin = pg_url.replace("reverie_app@", "postgres@")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE at_v{version} OWNER reverie_app".encode())
    url = pg_url.rsplit("/", 1)[0] + f"/at_v{version}"
    with psycopg.connect(url, autocommit=True) as conn:
        for step, statements in schema.MIGRATIONS:
            if step <= version:
                conn.execute(statements.encode("utf-8"))
        conn.execute("INSERT INTO reverie_schema (version) VALUES (%s)", (version,))
    return url
