"""Benchmark search on PostgreSQL: ``search()`` and recall's ``candidates()`` medians.

Run: .venv/bin/python bench/search_postgres.py [SIZES...]
     (prints one JSON object; default 10000)
Starts a throwaway cluster (``reverie.testing.local_cluster``), fills one workspace per size
with ``bench/search.py``'s generated items (half history entries, half messages over 50
sessions, one in five in Chinese) and reports, per query of ``bench/search.py``, the median
time of ``search(query, limit=10)`` and of ``candidates(terms, limit=30)`` (recall's call,
context weight 0.3), over 30 runs each: first right after the fill (the planner's statistics
not yet gathered, as on a busy server), then after ``VACUUM ANALYZE`` (as autovacuum leaves
it). The servers' role is an ordinary one (no superuser, row-level security binding it), as
reverie's servers must run. Figures depend on the machine.
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

from reverie.core.messages import Message, Role
from reverie.core.text import query_terms
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.history import NewEntry
from reverie.storage.postgres.index import PgIndex
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
            conn.execute(
                "VACUUM ANALYZE history, messages, history_terms, message_terms, item_counts"
            )
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


def run(sizes: list[int]) -> dict[str, object]:
    """The figures of each size in a new throwaway cluster."""
    with LocalCluster(durable=False) as cluster:
        return {str(size): _measure(cluster.info.url, size) for size in sizes}


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [10_000]
    print(json.dumps(run(sizes), indent=2))


if __name__ == "__main__":
    main()
