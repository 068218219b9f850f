"""``bench/search_postgres.py`` runs end to end.

Not a timing: that the script fills a workspace in a throwaway cluster and times every query,
so the script cannot rot between runs.
"""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

import search_postgres
from search import QUERIES
from tests.conftest import require_postgres_binaries


def test_the_postgres_search_bench_times_every_query() -> None:
    require_postgres_binaries()

    figures = search_postgres.run([200])

    size = figures["200"]
    assert isinstance(size, dict)
    for stage in ("after_fill", "after_vacuum"):
        timed = size[stage]
        for column in ("search_ms_median", "candidates_ms_median"):
            medians = timed[column]
            assert set(medians) == set(QUERIES)
            assert all(value > 0 for value in medians.values())
