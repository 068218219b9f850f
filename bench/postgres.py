"""Benchmark the PostgreSQL backend beside the folder backend: append, read-since, persist, search.

Run: .venv/bin/python bench/postgres.py [--quick] [--no-sync] [--proxy]   (prints one JSON object)

Starts a throwaway PostgreSQL cluster on loopback (``reverie.testing.local_cluster``, fsync
and synchronous commit on, as a deployment would run it), and measures through the storage
seam (``reverie.storage.ports``) on both backends:
- ``append_ms``: one history append, median (allocation + write, committed);
- ``append_per_s``: history appends per second with 1 and 2 writer processes on one
  workspace (the per-workspace cursor lock is what 2 writers contend on);
- ``read_since_ms``: the last 50 entries of a 20,000-entry log (DESIGN.md 2);
- ``persist_ms``: one session message appended to a 2,000-message session (DESIGN.md 4);
- ``search_ms``: one two-word query over 5,000 entries and 5,000 messages.
With ``--proxy``, also the proxy's exchanges per second with 1 and 2 ``reverie serve``
processes (``bench/pg_proxy.py``, run as its own process). ``--no-sync`` adds a cluster
without fsync and synchronous commit, to show what the flush of each commit costs. Figures
are medians on whatever machine runs this.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reverie.core.messages import Message
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.history import NewEntry
from reverie.testing.local_cluster import LocalCluster

WORDS = [
    "harbour",
    "kyoto",
    "locker",
    "tea",
    "porto",
    "train",
    "ferry",
    "garden",
    "violin",
    "market",
]


def _text(i: int) -> str:
    return f"entry {i}: the user talked about {WORDS[i % 10]} and {WORDS[(i * 7) % 10]} today"


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        action()
        timings.append((time.perf_counter_ns() - start) / 1e6)
    return round(statistics.median(timings), 3)


def _open(kind: str, target: str, name: str) -> Backend:
    if kind == "folder":
        return FileBackend.open(Path(target) / name, create=True)
    return PgBackend.open(target, name, create=True)


def _fill(backend: Backend, count: int) -> None:
    if isinstance(backend, PgBackend):
        for start in range(0, count, 1000):
            batch = [NewEntry(text=_text(i)) for i in range(start, min(count, start + 1000))]
            backend.history.append_many(batch)
    else:
        for i in range(count):
            backend.history.append(_text(i))


def _writers(kind: str, target: str, name: str, processes: int, count: int) -> float:
    """Appends per second of ``processes`` writers that start together (start-up excluded)."""
    _open(kind, target, name).close()
    start_at = time.time() + 4  # every worker has imported and connected by then
    argv = [sys.executable, __file__, "--worker", kind, target, name, str(count), str(start_at)]
    workers = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(processes)]
    ends = [float(worker.communicate()[0]) for worker in workers]
    return round(processes * count / (max(ends) - start_at))


def _measure(kind: str, target: str, quick: bool) -> dict[str, object]:  # noqa: FBT001
    scale = 4 if quick else 1
    backend = _open(kind, target, "bench-main")
    try:
        figures: dict[str, object] = {}
        figures["append_ms"] = _median_ms(lambda: backend.history.append("one more"), 200)
        _fill(backend, 20_000 // scale)
        last = backend.history.last_cursor()
        figures["read_since_ms"] = _median_ms(lambda: backend.history.read_since(last - 50), 50)
        key = "bench:persist"
        for start in range(0, 2000, 500):
            batch = [Message(role="user", content=_text(i)) for i in range(start, start + 500)]
            backend.sessions.append_many(key, batch)
        message = Message(role="assistant", content="noted")
        figures["persist_ms"] = _median_ms(lambda: backend.sessions.append(key, message), 200)
        index = backend.open_index()
        index.refresh()
        figures["search_ms"] = _median_ms(lambda: index.search("kyoto locker", limit=10), 30)
        index.close()
    finally:
        backend.close()
    count = 1000 // scale
    figures["append_per_s"] = {
        f"{n}_writer{'s' if n > 1 else ''}": _writers(kind, target, f"bench-w{n}", n, count)
        for n in (1, 2)
    }
    return figures


def _worker(kind: str, target: str, name: str, count: int, start_at: float) -> None:
    backend = _open(kind, target, name)
    try:
        backend.history.append("warm-up")
        time.sleep(max(0.0, start_at - time.time()))
        for i in range(count):
            backend.history.append(_text(i))
        print(time.time())
    finally:
        backend.close()


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        kind, target, name, count, start_at = sys.argv[2:7]
        _worker(kind, target, name, int(count), float(start_at))
        return
    quick = "--quick" in sys.argv
    results: dict[str, object] = {"quick": quick}
    with tempfile.TemporaryDirectory() as folder:
        results["folder"] = _measure("folder", folder, quick)
    with LocalCluster(durable=True) as cluster:
        results["postgres"] = _measure("postgres", cluster.info.url, quick)
    if "--no-sync" in sys.argv:  # what the fsync of each commit costs on this disk
        with LocalCluster(durable=False) as cluster:
            results["postgres_no_sync"] = _measure("postgres", cluster.info.url, quick)
    if "--proxy" in sys.argv:
        script = Path(__file__).with_name("pg_proxy.py")
        ran = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
        results["proxy"] = json.loads(ran.stdout)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
