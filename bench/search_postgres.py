"""Benchmark search on PostgreSQL: ``search()`` and recall's ``candidates()`` medians.

Run: .venv/bin/python bench/search_postgres.py [--leakproof] [SIZES...]
     (prints one JSON object; default 10000)
Starts a throwaway cluster (``reverie.testing.local_cluster``), fills one workspace per size
with ``bench/search.py``'s generated items (half history entries, half messages over 50
sessions, one in five in Chinese) and reports, per query of ``bench/search.py``, the median
time of ``search(query, limit=10)`` and of ``candidates(terms, limit=30)`` (recall's call,
context weight 0.3), over 30 runs each: first right after the fill (GIN's pending list
unmerged, as on a busy server), then after ``VACUUM ANALYZE`` (as autovacuum leaves it).
``--leakproof`` first marks ``ts_match_vq`` ``LEAKPROOF`` in the throwaway cluster, as its
superuser (what docs/scale-out.md, "Tenancy", leaves to a database administrator), so the
full-text conditions can use the GIN indexes under row-level security; without it every one
reads the whole workspace. Figures depend on the machine.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from reverie.core.messages import Message, Role
from reverie.core.text import query_terms
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.history import NewEntry
from reverie.storage.postgres.index import PgIndex
from reverie.storage.postgres.planning import LEAKPROOF_QUERY, MATCH_FUNCTION
from reverie.testing.local_cluster import LocalCluster
from search import QUERIES, _text

SESSIONS = 50


def _fill(backend: PgBackend, count: int, rng: random.Random) -> None:
    half = count // 2
    entries = [
        NewEntry(text=_text(rng, n), session_key=f"cli:s{n % SESSIONS}") for n in range(half)
    ]
    for start in range(0, half, 1000):
        backend.history.append_many(entries[start : start + 1000])
    per_session: dict[str, list[Message]] = {}
    for number in range(half, count):
        role: Role = "user" if number % 2 else "assistant"
        message = Message(role=role, content=_text(rng, number))
        per_session.setdefault(f"cli:s{number % SESSIONS}", []).append(message)
    for key, messages in per_session.items():
        for chunk in range(0, len(messages), 500):
            backend.sessions.append_many(key, messages[chunk : chunk + 500])


def _median_ms(action: Callable[[], object], repeats: int = 30) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(samples), 3)


def _measure(url: str, size: int) -> dict[str, object]:
    backend = PgBackend.open(url, f"bench-{size}", create=True)
    try:
        _fill(backend, size, random.Random(size))
        index = backend.open_index()
        figures: dict[str, object] = {"after_fill": _queries(index)}
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE history, messages")
        figures["after_vacuum"] = _queries(index)
        index.close()
    finally:
        backend.close()
    return figures


def _queries(index: PgIndex) -> dict[str, object]:
    search = {
        name: _median_ms(partial(index.search, query, limit=10)) for name, query in QUERIES.items()
    }
    candidates = {
        name: _median_ms(partial(index.candidates, query_terms(query), limit=30))
        for name, query in QUERIES.items()
    }
    return {
        "search_ms_median": search,
        "search_ms_median_overall": round(statistics.median(search.values()), 3),
        "candidates_ms_median": candidates,
        "candidates_ms_median_overall": round(statistics.median(candidates.values()), 3),
    }


def run(sizes: list[int], *, leakproof: bool) -> dict[str, object]:
    """The figures of each size in a new throwaway cluster (``leakproof``: see above)."""
    with LocalCluster(durable=False) as cluster:
        if leakproof:  # in the servers' database: pg_proc is one per database
            database = conninfo_to_dict(cluster.info.url)["dbname"]
            admin_url = make_conninfo(cluster.info.admin_url, dbname=database)
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f"ALTER FUNCTION {MATCH_FUNCTION} LEAKPROOF")
        with psycopg.connect(cluster.info.url) as conn:  # as the servers' role sees it
            row = conn.execute(LEAKPROOF_QUERY).fetchone()
        figures: dict[str, object] = {"match_leakproof": bool(row and row[0])}
        figures |= {str(size): _measure(cluster.info.url, size) for size in sizes}
    return figures


def main() -> None:
    leakproof = "--leakproof" in sys.argv[1:]
    sizes = [int(arg) for arg in sys.argv[1:] if arg != "--leakproof"] or [10_000]
    print(json.dumps(run(sizes, leakproof=leakproof), indent=2))


if __name__ == "__main__":
    main()
