"""A real PostgreSQL for the postgres tests: one throwaway cluster per test session.

The cluster (``pg_url``, in ``tests/conftest.py`` so that the ingest tests can run on both
backends too) is started there (initdb into a temporary folder, a free loopback port, run as the
``postgres`` user when the suite runs as root). Without PostgreSQL binaries the tests skip,
saying why, except under CI (``CI=true``), where ``.ci/run`` installs them and a missing
server is a failure.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

from reverie.storage.postgres.database import Database, Tenant


@pytest.fixture
def database(pg_url: str) -> Iterator[Database]:
    db = Database(pg_url)
    yield db
    db.close()


@pytest.fixture
def tenant(database: Database) -> Tenant:
    """A workspace of its own for each test (tests share the database, never a workspace)."""
    return database.tenant(f"t-{secrets.token_hex(6)}", create=True)


def new_workspace(pg_url: str, prefix: str) -> str:
    """Make a new, empty workspace named ``<prefix>-<random>`` in the test database."""
    made = f"{prefix}-{secrets.token_hex(5)}"
    database = Database(pg_url)
    try:
        database.tenant(made, create=True)
    finally:
        database.close()
    return made
