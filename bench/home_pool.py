"""Measure a database home: N principals' engines open at once over ONE connection pool.

Run: .venv/bin/python bench/home_pool.py [--principals 100] [--max-connections 10]
(prints one JSON object)

Starts a throwaway PostgreSQL cluster on loopback (``reverie.testing.local_cluster``), opens
``--principals`` engines of one ``DatabaseHome`` (each principal's workspace made on first use),
keeps them all open, and has each record one message and build one prompt, from 8 threads at
once. Figures:
- ``connections_peak``: the most server connections the home held at once (sampled from
  ``pg_stat_activity`` by the pool's application name while the engines worked);
- ``connections_open_idle``: the connections held with every engine open and idle;
- ``connections_after_close``: after every engine and then the home is closed;
- ``open_ms_p50`` / ``open_ms_p95``: one principal's first open (workspace made) on the
  shared pool;
- ``rss_mb_per_engine``: the resident memory the open engines added, divided by their number.
Figures are from whatever machine runs this; never a timed assertion.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import DatabaseHome, Openers
from reverie.storage.postgres.database import Database
from reverie.testing.local_cluster import LocalCluster

APP = "bench-home"


def _connections(admin: str) -> int:
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (APP,)
        ).fetchone()
    return 0 if row is None else int(str(row[0]))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _work(engine: MemoryEngine, index: int) -> None:
    engine.record("s", [{"role": "user", "content": f"principal {index} keeps a red kite"}])
    engine.prompt("s", "what do I keep?")


def measure(principals: int, max_connections: int) -> dict[str, float | int]:
    """Run the scenario of the module doc on a new cluster; return the figures."""
    with LocalCluster() as cluster:
        database = Database(cluster.info.url)
        database.init()
        database.close()
        admin = cluster.info.url.replace("reverie_app@", "postgres@")
        home = DatabaseHome(
            f"{cluster.info.url}?application_name={APP}",
            openers=Openers(config=Config(), environ={}),
            max_connections=max_connections,
        )
        before = _rss_mb()
        engines, opens = [], []
        for index in range(principals):
            start = time.perf_counter()
            engines.append(home.open_engine(f"user-{index}", create=True))
            opens.append((time.perf_counter() - start) * 1000)
        idle = _connections(admin)
        peak = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _connections(admin))
                time.sleep(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        with ThreadPoolExecutor(max_workers=8) as workers:
            list(workers.map(_work, engines, range(principals)))
        done.set()
        sampler.join()
        added = _rss_mb() - before
        for engine in engines:
            engine.close()
        home.close()
        time.sleep(0.2)
        after = _connections(admin)
    quantiles = statistics.quantiles(opens, n=20)
    return {
        "principals": principals,
        "max_connections": max_connections,
        "connections_open_idle": idle,
        "connections_peak": peak[0],
        "connections_after_close": after,
        "open_ms_p50": round(statistics.median(opens), 2),
        "open_ms_p95": round(quantiles[18], 2),
        "rss_mb_per_engine": round(added / principals, 3),
    }


def main() -> None:
    """Parse the options, measure, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--principals", type=int, default=100)
    parser.add_argument("--max-connections", type=int, default=10)
    options = parser.parse_args()
    print(json.dumps(measure(options.principals, options.max_connections), indent=2))


if __name__ == "__main__":
    main()
