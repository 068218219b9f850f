"""PostgreSQL's vector rows are read back a fetch at a time, in order, none lost or repeated
across fetches (all at once, 1M rows kept a server 1.6 GB resident: bench/scale.py --dense)."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

from reverie.storage.postgres import vectors
from reverie.storage.postgres.backend import PgBackend
from tests.postgres.conftest import new_workspace


def test_rows_since_reads_every_row_once_in_order_across_fetches(pg_url: str) -> None:
    backend = PgBackend.open(pg_url, new_workspace(pg_url, "vecrows"))
    rows = backend.open_vectors()
    try:
        rows.reset("test", 4)
        count = vectors.ROWS_PER_FETCH + 7
        written = [(f"#h{n + 1}", None, bytes(12), bytes(8)) for n in range(count)]
        rows.write(written, {"after": "0"})

        every = list(rows.rows_since(0))
        middle = every[vectors.ROWS_PER_FETCH - 1][0]
        rest = list(rows.rows_since(middle))
    finally:
        rows.close()
        backend.close()

    assert [row[0] for _, row in every] == [ref for ref, *_ in written]
    assert [seq for seq, _ in every] == sorted({seq for seq, _ in every})
    assert [row[0] for _, row in rest] == [ref for ref, *_ in written[vectors.ROWS_PER_FETCH :]]
