"""Benchmark the search index's catch-up after one write, against the number of sessions.

Run: .venv/bin/python bench/catchup.py [--sessions 227,1728] [--appends 300]
(prints one JSON object). For each count N: a folder workspace of N sessions of five short
messages each, indexed once; then ``--appends`` times one message appended to a random
session, the index refreshed (``refresh_ms``: the catch-up after that write) and searched once
(``level_query_ms``: a query that finds the index level). Each figure is wall p50 / p95 and
this process's CPU p50. 227 and 1,728 are the session counts of ``bench/scale.py``'s
workspace at 100k and 1M items; the catch-up should cost the same at both (it reads what
changed, ``storage/folder/index/catch_up.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reverie import Message
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace


def _summary(wall: list[float], cpu: list[float]) -> dict[str, float]:
    ordered = sorted(wall)
    rank = max(0, -(-len(ordered) * 95 // 100) - 1)  # nearest rank
    return {
        "p50": round(statistics.median(wall) * 1000, 3),
        "p95": round(ordered[rank] * 1000, 3),
        "cpu_p50": round(statistics.median(cpu) * 1000, 3),
    }


def _timed(action: Callable[[], object], wall: list[float], cpu: list[float]) -> None:
    started, used = time.perf_counter(), time.process_time()
    action()
    wall.append(time.perf_counter() - started)
    cpu.append(time.process_time() - used)


def measure(sessions: int, appends: int, seed: int = 1) -> dict[str, object]:
    """The figures of the module docstring for one session count."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="reverie-bench-catchup-") as folder:
        workspace = Workspace.open(Path(folder) / "ws", create=True)
        for number in range(sessions):
            texts = [f"note {number} line {line} about the garden" for line in range(5)]
            workspace.sessions.append_many(
                f"cli:s{number}", [Message(role="user", content=text) for text in texts]
            )
        index = SearchIndex(workspace)
        index.refresh()
        refresh: tuple[list[float], list[float]] = ([], [])
        level: tuple[list[float], list[float]] = ([], [])
        for number in range(appends):
            key = f"cli:s{rng.randrange(sessions)}"
            workspace.sessions.append(key, Message(role="user", content=f"bees {number}"))
            _timed(index.refresh, *refresh)
            _timed(lambda: index.search("bees"), *level)
        index.close()
        workspace.close()
    return {
        "sessions": sessions,
        "refresh_ms": _summary(*refresh),
        "level_query_ms": _summary(*level),
    }


def main() -> None:
    """Parse the options, measure each session count, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="227,1728", help="comma-separated session counts")
    parser.add_argument("--appends", type=int, default=300, help="timed appends per count")
    args = parser.parse_args()
    counts = [int(part) for part in args.sessions.split(",")]
    rows = [measure(count, args.appends) for count in counts]
    report = {"load_average": round(os.getloadavg()[0], 2), "rows": rows}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
