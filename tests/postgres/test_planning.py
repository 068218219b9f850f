"""Row-level security and the full-text indexes: what ``doctor`` says, and why it matters.

Its own throwaway cluster (the suite's shared one must not have a core function changed
under it): as shipped, ``@@`` is not LEAKPROOF, so under row-level security a workspace's
full-text condition cannot use the GIN index, and doctor notes it; once a superuser marks
it, the planner uses the index for the servers' role and the note is gone.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")

from reverie import MemoryEngine  # noqa: E402 -- after the extra's skip
from reverie.storage.postgres.backend import PgBackend  # noqa: E402
from reverie.storage.postgres.database import Database  # noqa: E402
from reverie.storage.postgres.planning import MATCH_FUNCTION  # noqa: E402
from reverie.testing.local_cluster import ClusterInfo, LocalCluster  # noqa: E402
from tests.conftest import require_postgres_binaries  # noqa: E402

COUNT = (
    "EXPLAIN SELECT count(*) FROM (SELECT 1 FROM history WHERE workspace_id = %(ws)s"
    " AND words @@ to_tsquery('simple', 'harbour') LIMIT 7) AS h"
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterInfo]:
    require_postgres_binaries()
    with LocalCluster() as running:
        database = Database(running.info.url)
        try:
            database.init()
            database.tenant("plan", create=True)
        finally:
            database.close()
        yield running.info


FILLER = (
    "INSERT INTO history (workspace_id, cursor, stamp, content)"
    " SELECT %(ws)s, 1000 + n, '2026-12-03 10:00', 'note ' || n || ' about the garden'"
    " FROM generate_series(1, 3000) AS n"
)
"""Enough rows of one workspace that a rare word's index beats the workspace's own."""


def _fill(url: str, name: str) -> None:
    backend = PgBackend.open(url, name)
    try:
        with backend.tenant.transaction() as conn:
            conn.execute(FILLER, {"ws": backend.tenant.id})
            conn.execute("ANALYZE history")
    finally:
        backend.close()


def _plan(url: str, name: str) -> str:
    backend = PgBackend.open(url, name)
    try:
        with backend.tenant.transaction() as conn:
            conn.execute("SET LOCAL enable_seqscan = off")  # what the index allows, not costs
            rows = conn.execute(COUNT, {"ws": backend.tenant.id}).fetchall()
    finally:
        backend.close()
    return "\n".join(str(row[0]) for row in rows)


def _leakproof(info: ClusterInfo, on: bool) -> None:
    admin = info.admin_url.rsplit("/", 1)[0] + "/reverie"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"ALTER FUNCTION {MATCH_FUNCTION} {'' if on else 'NOT '}LEAKPROOF")


def test_doctor_notes_a_search_that_cannot_use_its_index_until_it_can(
    cluster: ClusterInfo,
) -> None:
    with MemoryEngine.open("plan", store=cluster.url, environ={}, dense="off") as memory:
        memory.remember("The boat is moored in the harbour at Porto.")
    _fill(cluster.url, "plan")
    with MemoryEngine.open("plan", store=cluster.url, environ={}, dense="off") as memory:
        notes = [f for f in memory.doctor().findings if f.check == "search index"]
    assert [f.severity for f in notes] == ["note"]
    assert "LEAKPROOF" in notes[0].message
    assert "history_words" not in _plan(cluster.url, "plan")  # every row read instead

    _leakproof(cluster, on=True)
    try:
        with MemoryEngine.open("plan", store=cluster.url, environ={}, dense="off") as memory:
            report = memory.doctor()
        assert [f for f in report.findings if f.check == "search index"] == []
        assert "Bitmap Index Scan on history_words" in _plan(cluster.url, "plan")
    finally:
        _leakproof(cluster, on=False)
