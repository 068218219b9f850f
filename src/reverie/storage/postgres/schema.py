"""The PostgreSQL schema: versioned migrations, applied by ``migrate`` and checked by ``check``.

Every table that holds a workspace's data has ``workspace_id`` as the first column of its key
and a row-level-security policy that shows and accepts only the rows of the workspace named by
the transaction's ``reverie.workspace`` setting (``FORCE`` makes it bind the tables' owner
too; only a superuser or a ``BYPASSRLS`` role escapes it, so servers must not connect as one).
A transaction that names no workspace sees no rows at all. ``workspaces`` is the directory of
names and ids; it holds no memory. ``tokens`` is a home's token book (a server's credentials,
stored as digests), outside every workspace.

Migrations are a list of (version, statements); ``migrate`` applies the missing ones in one
transaction under an advisory lock, so two ``reverie init`` at once apply each step once.
``check`` refuses a database whose version differs from ``SCHEMA_VERSION``, with a clear
error: never initialised, older (run ``reverie init``), or newer (upgrade reverie).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.errors import SchemaVersionError
from reverie.storage.postgres import terms_schema, tsearch, vectors_schema

if TYPE_CHECKING:
    import psycopg

_MIGRATION_LOCK = 0x7265766572696500  # "reverie\0": the advisory lock key of migrations

_TENANT_TABLES = (
    "workspace_state",
    "history",
    "sessions",
    "messages",
    "commits",
    "files",
    "file_versions",
    "rejections",
    "quarantine",
    "ledger",
    "leases",
)

_V1 = """
CREATE TABLE workspaces (
    id bigserial PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE workspace_state (
    workspace_id bigint PRIMARY KEY REFERENCES workspaces ON DELETE CASCADE,
    last_cursor bigint NOT NULL DEFAULT 0 CHECK (last_cursor >= 0),
    dream_cursor bigint NOT NULL DEFAULT 0 CHECK (dream_cursor >= 0),
    CHECK (dream_cursor <= last_cursor)
);
CREATE TABLE history (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    cursor bigint NOT NULL CHECK (cursor > 0),
    stamp text NOT NULL,
    content text NOT NULL,
    session_key text,
    at timestamptz,
    at_offset integer,
    range_start integer,
    range_end integer,
    kind text,
    words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, content)) STORED,
    PRIMARY KEY (workspace_id, cursor)
);
CREATE INDEX history_words ON history USING gin (words);
CREATE INDEX history_session ON history (workspace_id, session_key, cursor);
CREATE TABLE sessions (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    key text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    message_count integer NOT NULL DEFAULT 0,
    compacted_upto integer NOT NULL DEFAULT 0,
    summary text,
    summary_active timestamptz,
    metadata text NOT NULL DEFAULT '{}',
    CHECK (compacted_upto BETWEEN 0 AND message_count),
    PRIMARY KEY (workspace_id, key)
);
CREATE TABLE messages (
    workspace_id bigint NOT NULL,
    session_key text NOT NULL,
    idx integer NOT NULL CHECK (idx >= 0),
    role text NOT NULL,
    at timestamptz,
    body text NOT NULL,
    plain text NOT NULL,
    words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, plain)) STORED,
    PRIMARY KEY (workspace_id, session_key, idx),
    FOREIGN KEY (workspace_id, session_key) REFERENCES sessions ON DELETE CASCADE
);
CREATE INDEX messages_words ON messages USING gin (words);
CREATE TABLE commits (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    number bigint NOT NULL CHECK (number > 0),
    sha text NOT NULL,
    author text NOT NULL,
    subject text NOT NULL,
    message text NOT NULL,
    at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, number)
);
CREATE INDEX commits_sha ON commits (workspace_id, sha text_pattern_ops);
CREATE TABLE files (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    path text NOT NULL,
    content text NOT NULL,
    PRIMARY KEY (workspace_id, path)
);
CREATE TABLE file_versions (
    workspace_id bigint NOT NULL,
    path text NOT NULL,
    number bigint NOT NULL,
    content text,
    PRIMARY KEY (workspace_id, path, number),
    FOREIGN KEY (workspace_id, number) REFERENCES commits ON DELETE CASCADE
);
CREATE TABLE ledger (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id bigserial,
    at timestamptz NOT NULL,
    job text NOT NULL,
    record jsonb NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
CREATE TABLE leases (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    name text NOT NULL,
    holder text NOT NULL,
    token bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, name)
);
CREATE TABLE rejections (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id bigserial,
    at timestamptz NOT NULL,
    file text NOT NULL,
    rule text NOT NULL,
    reason text NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
CREATE TABLE quarantine (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id bigserial,
    at timestamptz NOT NULL,
    source text NOT NULL,
    line integer NOT NULL,
    "offset" bigint NOT NULL,
    raw bytea NOT NULL,
    reason text NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
CREATE TABLE reverie_schema (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    version integer NOT NULL
);
"""


_V4_DREAM_STATE = """
ALTER TABLE workspace_state ADD COLUMN dream_state text;
"""
"""Version 4: dream's back-off state (``reverie.storage.postgres.dream_stores.PgDreamState``)."""


def _tenancy(table: str) -> str:
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
CREATE POLICY one_workspace ON {table}
    USING (workspace_id = NULLIF(current_setting('reverie.workspace', true), '')::bigint)
    WITH CHECK (workspace_id = NULLIF(current_setting('reverie.workspace', true), '')::bigint);
"""


_V2_PROVENANCE = """
CREATE TABLE provenance (
    workspace_id bigint PRIMARY KEY REFERENCES workspaces ON DELETE CASCADE,
    document text NOT NULL
);
"""
"""Version 2: the provenance records of each workspace (``reverie.storage.postgres.provenance``)."""

_INGEST_TABLES = ("ingest_marks", "ingest_runs")

_V3_INGEST = """
CREATE TABLE ingest_marks (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    mark text NOT NULL CHECK (mark ~ '^[0-9a-f]{64}$'),
    PRIMARY KEY (workspace_id, mark)
);
CREATE TABLE ingest_runs (
    workspace_id bigint PRIMARY KEY REFERENCES workspaces ON DELETE CASCADE,
    sessions text[] NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now()
);
"""
"""Version 3: ingest's records (``reverie.storage.postgres.ingest_records``): the content keys of
what a nanobot workspace brought in, and the sessions of the ingest running now (one row, or
none)."""

_V5_TOKENS = """
CREATE TABLE tokens (
    id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{12}$'),
    digest text NOT NULL UNIQUE CHECK (digest ~ '^[0-9a-f]{64}$'),
    kind text NOT NULL CHECK (kind IN ('principal', 'app', 'admin')),
    principal text CHECK ((kind = 'principal') = (principal IS NOT NULL)),
    label text NOT NULL,
    created timestamptz NOT NULL,
    revoked timestamptz
);
CREATE INDEX tokens_principal ON tokens (principal);
"""
"""Version 5: the home's token book (rows: ``tokens.PgTokenRows``; values:
``reverie.engine.owners.database_tokens``): SHA-256 digests only, never a token's text.
Like ``workspaces``, it is the home's own table, not a workspace's: no row-level security (a
principal token's principal may have no workspace yet), and deleting a principal deletes its
rows (``DatabaseTokenBook.forget_principal``)."""


def _v6_segmented_words() -> str:
    return "".join(
        f"""
ALTER TABLE {table} DROP COLUMN words;
ALTER TABLE {table} ADD COLUMN words tsvector GENERATED ALWAYS AS ({tsearch.words(column)}) STORED;
CREATE INDEX {table}_words ON {table} USING gin (words);
"""
        for table, column in (("history", "content"), ("messages", "plain"))
    )


_V6_SEGMENTED_WORDS = _v6_segmented_words()
"""Version 6: the searched words split Chinese and Japanese into one token per character
(``reverie.storage.postgres.tsearch``), so "咖啡" is found inside "我每天喝咖啡"; the columns
and their indexes are generated again from the rows."""

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, _V1 + "".join(_tenancy(table) for table in _TENANT_TABLES)),
    (2, _V2_PROVENANCE + _tenancy("provenance")),
    (3, _V3_INGEST + "".join(_tenancy(table) for table in _INGEST_TABLES)),
    (4, _V4_DREAM_STATE),
    (5, _V5_TOKENS),
    (6, _V6_SEGMENTED_WORDS),
    (7, vectors_schema.SCHEMA_V7 + _tenancy("vectors") + _tenancy("vector_meta")),
    (8, terms_schema.SCHEMA_V8 + "".join(_tenancy(table) for table in terms_schema.TABLES)),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]
"""The schema version this reverie reads and writes."""

WORKSPACE_TABLES = (
    *_TENANT_TABLES,
    "provenance",
    *_INGEST_TABLES,
    "vectors",
    "vector_meta",
    *terms_schema.TABLES,
)
"""Every table whose rows belong to one workspace (and go with it, ``ON DELETE CASCADE``)."""
SCRUBBED_TABLES = (*WORKSPACE_TABLES, "workspaces", "tokens")
"""What ``scrub`` rewrites: every table that can hold a deleted principal's bytes."""


def scrub(conn: psycopg.Connection[tuple[object, ...]], *, where: str) -> None:
    """Rewrite every table that held deleted rows, so their bytes leave the database's files.

    A deleted row stays in its table's file after the DELETE; a plain VACUUM frees its room
    but leaves its bytes where live rows share the page, and an index keeps a deleted row's
    keys (the word tables' keys are an item's words, ``terms_schema``). ``VACUUM FULL``
    writes each table and its indexes anew and drops the old files. Each table is locked
    while it is rewritten (every workspace waits, for time in proportion to the table's
    size), so a server deleting many principals scrubs once after the last. Needs an
    autocommit connection and the tables' owner (the role that ran ``reverie init``):
    PostgreSQL would only warn and skip a table it may not rewrite, so that is checked first.
    The write-ahead log keeps old bytes until PostgreSQL recycles its segments, and a backup
    for as long as it is kept.

    Raises:
        PermissionError: the role does not own every table (``Database.scrub`` translates it).
    """
    row = conn.execute(
        "SELECT count(*) FROM pg_class"
        " WHERE relname = ANY(%s) AND relkind = 'r' AND pg_has_role(relowner, 'USAGE')",
        (list(SCRUBBED_TABLES),),
    ).fetchone()
    if row is None or int(str(row[0])) != len(SCRUBBED_TABLES):
        raise PermissionError(f"{where}: only the tables' owner can rewrite them")
    for table in SCRUBBED_TABLES:
        conn.execute(f"VACUUM FULL {table}".encode())


def installed_version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    """Return the schema version in the database (0 when reverie never initialised it)."""
    row = conn.execute("SELECT to_regclass('reverie_schema') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        return 0
    found = conn.execute("SELECT version FROM reverie_schema").fetchone()
    return 0 if found is None else int(str(found[0]))


def migrate(conn: psycopg.Connection[tuple[object, ...]], *, where: str) -> tuple[int, int]:
    """Apply every missing migration in one transaction; return (version before, after).

    Raises:
        SchemaVersionError: the database is newer than this reverie.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        before = installed_version(conn)
        if before > SCHEMA_VERSION:
            raise _newer(before, where)
        for version, statements in MIGRATIONS:
            if version > before:
                conn.execute(statements.encode("utf-8"))
        conn.execute(
            "INSERT INTO reverie_schema (version) VALUES (%s)"
            " ON CONFLICT (only_row) DO UPDATE SET version = excluded.version",
            (SCHEMA_VERSION,),
        )
    return before, SCHEMA_VERSION


def check(conn: psycopg.Connection[tuple[object, ...]], *, where: str) -> None:
    """Refuse a database whose schema is not exactly ``SCHEMA_VERSION``.

    Raises:
        SchemaVersionError: never initialised, older (``reverie init`` migrates it) or newer.
    """
    found = installed_version(conn)
    if found == SCHEMA_VERSION:
        return
    if found == 0:
        message = "no reverie schema in this database; run `reverie init` with this store"
    elif found < SCHEMA_VERSION:
        message = (
            f"schema version {found} is older than {SCHEMA_VERSION};"
            " run `reverie init` with this store to migrate it"
        )
    else:
        raise _newer(found, where)
    raise SchemaVersionError(message, where=where, found=found, expected=SCHEMA_VERSION)


def _newer(found: int, where: str) -> SchemaVersionError:
    return SchemaVersionError(
        f"schema version {found} is newer than {SCHEMA_VERSION}, which this reverie speaks;"
        " upgrade reverie",
        where=where,
        found=found,
        expected=SCHEMA_VERSION,
    )
