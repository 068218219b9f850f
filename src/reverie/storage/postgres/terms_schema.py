"""Schema version 8: the searched words as rows a btree finds, and each workspace's item count.

Why. Every tenant table has row-level security, and PostgreSQL applies a condition of the
query before the policy's only when its function is ``LEAKPROOF``; ``words @@ query`` is not,
so on a stock server no full-text condition could use the GIN indexes: each one read every
row of the workspace (``search`` 131 ms at 100,000 items, a rare word's count 6.9 ms at
50,000). Equality of ``text`` and ``bigint`` is ``LEAKPROOF``, so a btree of words can be used
under the policy by any role, with no superuser's change.

What.
- ``history_terms`` and ``message_terms``: one row per distinct word (lexeme) of an item's
  ``words``, ``(workspace_id, lexeme, doc)``, the primary key a btree, ``doc`` the item's
  ``doc`` (``vectors_schema``: given from ``item_doc`` when the row is written and again when
  its text changes, so the newest writes have the highest). A search walks a word's rows from
  the highest ``doc`` down and tests ``words @@ query`` on the few items it reaches
  (``reverie.storage.postgres.index``).
- ``item_counts``: rows of ``(workspace_id, n)`` whose sum is the workspace's history entries
  plus messages, BM25's ``N``. Every write adds a row (its statement's change); no row is
  ever updated, so writers of one workspace never wait on one another for it. When a
  workspace has more than ``64`` rows, the writer that notices folds them into one, under a
  transaction advisory lock it only tries for (another writer that fails to get it folds
  nothing): a fold deletes only committed rows it sees and writes their sum, so the total
  stays exact.

Kept by statement triggers with transition tables on ``history`` and ``messages`` (insert,
update, delete: one statement each per write, whatever its rows), in the writer's
transaction, so the rows never disagree with the items. A trigger writes only rows of the
workspace the transaction names (``reverie.workspace``): a workspace deleted whole goes with
its rows by ``ON DELETE CASCADE``. The migration fills both from the rows there, with
row-level security lifted for the table owner for that one transaction.
"""

from __future__ import annotations

_CURRENT = "NULLIF(current_setting('reverie.workspace', true), '')::bigint"

_TABLES = """
CREATE TABLE history_terms (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    lexeme text NOT NULL,
    doc bigint NOT NULL,
    PRIMARY KEY (workspace_id, lexeme, doc)
);
CREATE TABLE message_terms (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    lexeme text NOT NULL,
    doc bigint NOT NULL,
    PRIMARY KEY (workspace_id, lexeme, doc)
);
CREATE TABLE item_counts (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id bigserial,
    n bigint NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
"""

_DROP = (
    "DELETE FROM {terms} AS t USING (SELECT o.doc, o.words FROM {gone} AS o"
    " WHERE o.workspace_id = ws{only}) AS o, unnest(tsvector_to_array(o.words)) AS l(lexeme)"
    " WHERE t.workspace_id = ws AND t.lexeme = l.lexeme AND t.doc = o.doc;"
)
_ADD = (
    "INSERT INTO {terms} (workspace_id, lexeme, doc) SELECT ws, l.lexeme, o.doc FROM"
    " (SELECT o.doc, o.words FROM {come} AS o WHERE o.workspace_id = ws{only}) AS o,"
    " unnest(tsvector_to_array(o.words)) AS l(lexeme);"
)
_CHANGED = (
    " AND NOT EXISTS (SELECT 1 FROM {other} AS x WHERE x.workspace_id = ws AND x.doc = o.doc)"
)
"""An updated row whose ``doc`` the other side lacks: its text changed (so it has a new ``doc``)."""

_FOLD = """
CREATE FUNCTION reverie_fold_counts(ws bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM item_counts WHERE workspace_id = ws LIMIT 65) AS c)
            > 64
        AND pg_try_advisory_xact_lock(1919252082, (ws % 2147483647)::integer) THEN
        WITH gone AS (DELETE FROM item_counts WHERE workspace_id = ws RETURNING n)
        INSERT INTO item_counts (workspace_id, n) SELECT ws, sum(n) FROM gone;
    END IF;
END $$;
"""
"""Fold a workspace's count rows into one once it has more than 64 (module docstring)."""


def _functions(table: str, terms: str) -> str:
    """The trigger function of ``table``: static SQL (its plans kept per connection)."""
    changed_old = _CHANGED.format(other="new_rows")
    changed_new = _CHANGED.format(other="old_rows")
    return f"""
CREATE FUNCTION reverie_{table}_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ws bigint := {_CURRENT};
    n bigint;
BEGIN
    IF ws IS NULL THEN
        RETURN NULL;
    ELSIF TG_OP = 'INSERT' THEN
        {_ADD.format(terms=terms, come="new_rows", only="")}
        SELECT count(*) INTO n FROM new_rows WHERE workspace_id = ws;
    ELSIF TG_OP = 'UPDATE' THEN
        {_DROP.format(terms=terms, gone="old_rows", only=changed_old)}
        {_ADD.format(terms=terms, come="new_rows", only=changed_new)}
        RETURN NULL;
    ELSIF EXISTS (SELECT 1 FROM workspaces WHERE id = ws) THEN
        {_DROP.format(terms=terms, gone="old_rows", only="")}
        SELECT -count(*) INTO n FROM old_rows WHERE workspace_id = ws;
    ELSE
        RETURN NULL;  -- the workspace itself is being deleted: its rows go by cascade
    END IF;
    IF n <> 0 THEN
        INSERT INTO item_counts (workspace_id, n) VALUES (ws, n);
        PERFORM reverie_fold_counts(ws);
    END IF;
    RETURN NULL;
END $$;
"""


def _triggers(table: str) -> str:
    return "".join(
        f"CREATE TRIGGER {table}_terms_{op.lower()} AFTER {op} ON {table}"
        f" REFERENCING {tables} FOR EACH STATEMENT EXECUTE FUNCTION reverie_{table}_written();\n"
        for op, tables in (
            ("INSERT", "NEW TABLE AS new_rows"),
            ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
            ("DELETE", "OLD TABLE AS old_rows"),
        )
    )


def _backfill() -> str:
    """Fill the new tables from every workspace's rows (the owner, with the policy lifted)."""
    sources = ("history", "messages")
    return (
        "".join(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY;\n" for table in sources)
        + "".join(
            f"INSERT INTO {terms} SELECT workspace_id, l.lexeme, doc FROM {table},"
            " unnest(tsvector_to_array(words)) AS l(lexeme);\n"
            for table, terms in zip(sources, ("history_terms", "message_terms"), strict=True)
        )
        + "INSERT INTO item_counts (workspace_id, n) SELECT workspace_id, count(*) FROM"
        " (SELECT workspace_id FROM history UNION ALL SELECT workspace_id FROM messages) AS i"
        " GROUP BY workspace_id;\n"
        + "".join(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY;\n" for table in sources)
    )


_NO_GIN = "DROP INDEX history_words;\nDROP INDEX messages_words;\n"
"""The GIN indexes go: under row-level security no role but a superuser could make them used."""

SCHEMA_V8 = (
    _NO_GIN
    + _TABLES
    + _FOLD
    + "".join(
        _functions(table, terms) + _triggers(table)
        for table, terms in (("history", "history_terms"), ("messages", "message_terms"))
    )
    + _backfill()
)
"""Version 8: the word tables, the item counts and their triggers (see the module docstring);
``schema`` adds row-level security to the three tables after."""
TABLES = ("history_terms", "message_terms", "item_counts")
"""The tables of version 8, each a workspace's rows."""
