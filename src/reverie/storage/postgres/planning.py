"""Whether PostgreSQL can use the full-text indexes of a workspace under row-level security.

Every tenant table has row-level security (``schema``). PostgreSQL lets a condition of the
query use an index before the policy's own condition is applied only when its function is
``LEAKPROOF``; ``words @@ query`` is ``ts_match_vq``, which PostgreSQL does not mark so. So on
a stock server every full-text condition of reverie's (search, recall's candidates, the
BM25 counts) reads every row of the workspace instead of the ``*_words`` GIN index: the cost
grows with the workspace (measured at 50,000 rows a table: a capped count of a rare word
6.9 ms as the servers' role, 0.03 ms once ``ts_match_vq`` is ``LEAKPROOF`` and the index's
pending list merged by ``VACUUM``).

Marking it is the database administrator's choice (a superuser, once per cluster:
``ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF``; docs/scale-out.md says what it
trades). reverie's servers must not run as a superuser, so it never does it itself;
``doctor`` says which way the server is (``search_index_note``). This module only reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Tenant

MATCH_FUNCTION = "ts_match_vq(tsvector, tsquery)"
"""The function behind ``tsvector @@ tsquery``."""
LEAKPROOF_QUERY = f"SELECT proleakproof FROM pg_proc WHERE oid = '{MATCH_FUNCTION}'::regprocedure"
"""Whether the server marks ``MATCH_FUNCTION`` ``LEAKPROOF`` (one row, one boolean)."""


def match_is_leakproof(tenant: Tenant) -> bool:
    """True when the server lets ``@@`` use the GIN indexes under row-level security."""
    with tenant.transaction() as conn:
        row = conn.execute(LEAKPROOF_QUERY).fetchone()
    return bool(row is not None and row[0])


def search_index_note(tenant: Tenant) -> str | None:
    """What ``doctor`` notes when full-text conditions cannot use the indexes, else None."""
    if match_is_leakproof(tenant):
        return None
    return (
        f"full-text search reads every row of the workspace: under row-level security "
        f"PostgreSQL uses the GIN indexes only for a LEAKPROOF {MATCH_FUNCTION}; a superuser "
        f"can mark it once per cluster (ALTER FUNCTION {MATCH_FUNCTION} LEAKPROOF; "
        "see docs/scale-out.md, Tenancy)"
    )
