"""Schema version 7: dense recall's tables in PostgreSQL (``reverie.storage.postgres.vectors``).

``vectors`` (one row per item: its reference with the database's escape, session, text hash,
quantised vector, and ``seq`` from ``vector_seq``, given again when a row is replaced) and
``vector_meta`` (the follower's notes); both get row-level security in ``schema``. Every
``history`` and ``messages`` row gets ``doc`` from ``item_doc``, given again when its text
changes, and a trigger deletes the item's vector when its text changes or it is deleted, in the
same transaction: a vector never outlives the text it was made from.
"""

SCHEMA_V7 = """
CREATE SEQUENCE item_doc;
ALTER TABLE history ADD COLUMN doc bigint NOT NULL DEFAULT nextval('item_doc');
ALTER TABLE messages ADD COLUMN doc bigint NOT NULL DEFAULT nextval('item_doc');
CREATE INDEX history_doc ON history (workspace_id, doc);
CREATE INDEX messages_doc ON messages (workspace_id, doc);
CREATE SEQUENCE vector_seq;
CREATE TABLE vectors (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    ref text NOT NULL,
    session_key text,
    hash bytea NOT NULL,
    v bytea NOT NULL,
    seq bigint NOT NULL DEFAULT nextval('vector_seq'),
    PRIMARY KEY (workspace_id, ref)
);
CREATE INDEX vectors_seq ON vectors (workspace_id, seq);
CREATE TABLE vector_meta (
    workspace_id bigint NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    name text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (workspace_id, name)
);
CREATE FUNCTION reverie_item_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    item text;
BEGIN
    IF TG_TABLE_NAME = 'history' THEN
        item := '#h' || OLD.cursor;
    ELSE
        item := '#m' || OLD.idx || '@' || OLD.session_key;
    END IF;
    DELETE FROM vectors WHERE workspace_id = OLD.workspace_id AND ref = item;
    IF TG_OP = 'UPDATE' THEN
        NEW.doc := nextval('item_doc');
        RETURN NEW;
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER history_changed BEFORE UPDATE OF content ON history
    FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content)
    EXECUTE FUNCTION reverie_item_changed();
CREATE TRIGGER messages_changed BEFORE UPDATE OF plain ON messages
    FOR EACH ROW WHEN (OLD.plain IS DISTINCT FROM NEW.plain)
    EXECUTE FUNCTION reverie_item_changed();
CREATE TRIGGER history_deleted AFTER DELETE ON history
    FOR EACH ROW EXECUTE FUNCTION reverie_item_changed();
CREATE TRIGGER messages_deleted AFTER DELETE ON messages
    FOR EACH ROW EXECUTE FUNCTION reverie_item_changed();
"""
"""Version 7: dense recall's tables and the ``doc`` sequence (see the module docstring)."""
