"""A real PostgreSQL for the postgres tests: one throwaway cluster per test session.

The cluster is started here (initdb into a temporary folder, a free loopback port, run as the
``postgres`` user when the suite runs as root). Without PostgreSQL binaries the tests skip,
saying why, except under CI (``CI=true``), where ``.ci/run`` installs them and a missing
server is a failure.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

from reverie.postgres.database import Database, Tenant
from reverie.postgres.local_cluster import LocalCluster, find_binaries


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """The URL of a fresh database (as a non-superuser role), schema applied."""
    if find_binaries() is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("CI: PostgreSQL binaries are missing (.ci/run installs them)")
        pytest.skip("no PostgreSQL binaries (initdb) on this machine")
    with LocalCluster() as cluster:
        database = Database(cluster.info.url)
        try:
            database.init()
        finally:
            database.close()
        yield cluster.info.url


@pytest.fixture
def database(pg_url: str) -> Iterator[Database]:
    db = Database(pg_url)
    yield db
    db.close()


@pytest.fixture
def tenant(database: Database) -> Tenant:
    """A workspace of its own for each test (tests share the database, never a workspace)."""
    return database.tenant(f"t-{secrets.token_hex(6)}", create=True)
