"""A PostgreSQL store: one database shared by several reverie servers (docs/scale-out.md).

Needs the ``postgres`` extra (``pip install -e '.[postgres]'``: psycopg 3 and its pool);
nothing else in reverie imports this package unless a ``postgresql://`` store is chosen.

- ``database``: the pool, the schema check, and ``Tenant`` (one workspace's scope).
- ``schema``: versioned migrations; every table keyed and row-level-secured by workspace.
- ``history``: the history log (gap-free cursors under the workspace's row lock).
- ``sessions``: session messages and state (one row per message).
- ``leases``: dream and compaction leases that expire when their holder dies.
- ``audit``: durable files as versioned rows (commit, log, show, restore, dream cursor).
- ``files``: the durable files' working copy and the dream cursor.
- ``records``: the ledger, rejected rules and quarantined lines.
- ``locks``: named locks across servers (leases with a heartbeat).
- ``dream_stores``: skill files, dream's back-off state, a dream's fenced one-step publish.
- ``local_cluster``: a throwaway cluster on loopback for tests and benchmarks.

Search (``reverie.storage.postgres.index``) and the ``Backend`` bundle
(``reverie.storage.postgres.backend``) sit in the layers above, beside
``reverie.storage.folder.index`` and ``reverie.storage.folder.backend``.
"""
