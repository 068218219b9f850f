"""Benchmark a home of many principals: prompts through an EnginePool, memory, maintenance.

Run: .venv/bin/python bench/principals.py [--folder N] [--database N] [--exchanges K]
     [--capacity C] [--samples S] [--dream M] [--workers W]   (prints one JSON object)

Makes a folder home of ``--folder`` principals (default 1,000) and a database home of
``--database`` principals (default 10,000) on a throwaway PostgreSQL cluster on loopback
(``reverie.testing.local_cluster``, fsync on), each principal with ``--exchanges`` recorded
exchanges (default 3; 0 skips that home), then measures on each:

- ``seed_s``, ``seed_ms_per_principal``: making the principals and recording their exchanges
  (through ``EnginePool.lease(create=True)`` and ``MemoryEngine.record``);
- ``prompt_cold_ms``: ``lease`` + ``prompt`` for ``--samples`` principals picked at random
  whose engine is closed (open, settings, layout check, index opened by the first query),
  p50 / p95;
- ``prompt_warm_ms``: the same on engines already open in the pool, p50 / p95;
- ``resident``: in a fresh process, ``--capacity`` engines opened (each built one prompt):
  the resident memory (``VmRSS``) and open file descriptors they added, per engine;
- ``maintenance``: ``Maintenance`` (model-free, ``--workers`` threads, the pool of
  ``--capacity`` engines) over ``--dream`` principals (default 500) whose sessions are idle
  and whose dream is due (``[dream] pending_trigger = 1`` so that one compaction makes it
  due): checks per second, dreams completed, and fairness: the longest and the p95 wait of a
  check past its due time (``MaintenanceStats``).

Dense recall is off unless ``--embeddings auto`` (it encodes every recorded message, which
would dominate every figure here; ``bench/recall.py --dense`` measures it).

Figures are from whatever machine runs this (say its load beside them); never a timed assert.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reverie.config.sections import DreamConfig
from reverie.config.settings import Config
from reverie.engine.owners import DatabaseHome, EnginePool, FolderHome, Home, Openers
from reverie.engine.owners.maintenance import CheckReport, Maintenance

STALL_SECONDS = 120.0
"""A maintenance run that finishes no check for this long is reported stalled (not waited)."""
PLACES = ("Porto", "Kyoto", "Lyon", "Tromso", "Cusco", "Hobart", "Oulu", "Goa")


class ShiftedClock:
    """The wall clock moved forward by hand (sessions go idle, dreams come due)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


def _principal(index: int) -> str:
    return f"user-{index:05d}"


def _exchange(index: int, turn: int) -> list[dict[str, str]]:
    place = PLACES[(index + turn) % len(PLACES)]
    return [
        {"role": "user", "content": f"I am principal {index}; trip {turn} goes to {place}."},
        {"role": "assistant", "content": f"Noted: trip {turn} to {place}."},
    ]


def _quantiles(timings: list[float]) -> dict[str, float]:
    if len(timings) < 2:
        return {"p50": round(timings[0], 2) if timings else 0.0, "p95": 0.0}
    return {
        "p50": round(statistics.median(timings), 2),
        "p95": round(statistics.quantiles(timings, n=20)[18], 2),
    }


def _timed_ms(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def _home(kind: str, where: str, clock: ShiftedClock, embeddings: str) -> Home:
    base = Config()
    recall = replace(base.recall, embeddings="auto" if embeddings == "auto" else "off")
    config = replace(base, dream=DreamConfig(pending_trigger=1), recall=recall)
    openers = Openers(config=config, clock=clock, environ={})
    if kind == "folder":
        return FolderHome(Path(where), openers=openers)
    return DatabaseHome(where, openers=openers)


def _close(home: Home) -> None:
    if isinstance(home, DatabaseHome):
        home.close()


def seed(home: Home, count: int, exchanges: int, capacity: int) -> dict[str, float]:
    """Make ``count`` principals with ``exchanges`` recorded exchanges each."""
    pool = EnginePool(home, capacity=capacity)
    start = time.perf_counter()
    for index in range(count):
        with pool.lease(_principal(index), create=True) as engine:
            for turn in range(exchanges):
                engine.record("api:default", _exchange(index, turn))
    pool.close()
    took = time.perf_counter() - start
    return {"seed_s": round(took, 1), "seed_ms_per_principal": round(took * 1000 / count, 2)}


def prompts(home: Home, count: int, capacity: int, samples: int) -> dict[str, object]:
    """Cold then warm ``lease`` + ``prompt`` p50/p95 over principals picked at random."""
    picked = random.Random(7).sample(range(count), min(samples, count))
    pool = EnginePool(home, capacity=capacity)

    def ask(index: int) -> None:
        with pool.lease(_principal(index)) as engine:
            engine.prompt("api:default", "Where does my next trip go?")

    def timed(index: int) -> float:
        return _timed_ms(lambda: ask(index))

    cold = [timed(index) for index in picked]  # distinct principals: each one opens
    open_now = picked[-min(capacity, len(picked)) :]  # the ones the pool still holds
    warm = [timed(index) for _ in range(3) for index in open_now]
    pool.close()
    return {"prompt_cold_ms": _quantiles(cold), "prompt_warm_ms": _quantiles(warm)}


def _resident_now() -> tuple[float, int]:
    """(VmRSS in MiB, open file descriptors) of this process."""
    status = Path("/proc/self/status").read_text(encoding="ascii")
    kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    return kib / 1024, sum(1 for _ in Path("/proc/self/fd").iterdir())


def resident_worker(kind: str, where: str, count: int, engines: int, embeddings: str) -> None:
    """In this fresh process: open ``engines`` engines (one prompt each), print the deltas."""
    home = _home(kind, where, ShiftedClock(), embeddings)
    engines = min(engines, count - 1)  # principal 0 warms up; each of the others once
    pool = EnginePool(home, capacity=engines + 1)
    with pool.lease(_principal(0)) as engine:  # imports, tokenizer, shared pool: not per engine
        engine.prompt("api:default", "warm up")
    gc.collect()
    rss, fds = _resident_now()
    held = []
    for index in range(1, engines + 1):
        lease = pool.lease(_principal(index))
        held.append(lease)
        lease.__enter__().prompt("api:default", "Where does my next trip go?")
    gc.collect()
    rss_after, fds_after = _resident_now()
    opened = pool.stats().open - 1
    for lease in held:
        lease.__exit__(None, None, None)
    pool.close()
    _close(home)
    figures = {
        "engines": opened,
        "rss_mb_per_engine": round((rss_after - rss) / opened, 3),
        "fds_per_engine": round((fds_after - fds) / opened, 2),
    }
    print(json.dumps(figures))


def resident(kind: str, where: str, count: int, engines: int, embeddings: str) -> object:
    """``resident_worker`` in a fresh process, so no earlier engine's memory is reused."""
    argv = [sys.executable, __file__, "--resident", kind, where, str(count), str(engines)]
    argv.append(embeddings)
    ran = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(ran.stdout)


def maintenance(
    home: Home, clock: ShiftedClock, count: int, capacity: int, workers: int
) -> dict[str, object]:
    """Model-free compaction and dream over ``count`` principals by ``Maintenance``."""
    clock.offset += timedelta(hours=3)  # every session idle
    pool = EnginePool(home, capacity=capacity)
    reports: list[CheckReport] = []
    done = time.perf_counter()
    with Maintenance(
        pool, workers=workers, interval=0.0, watch_seconds=0.0, report=reports.append
    ) as work:
        start = time.perf_counter()
        for index in range(count):
            work.touch(_principal(index))
        progress = (0, time.perf_counter())
        while len(reports) < count:
            time.sleep(0.05)
            if len(reports) > progress[0]:
                progress = (len(reports), time.perf_counter())
            elif time.perf_counter() - progress[1] > STALL_SECONDS:
                raise SystemExit(f"maintenance stalled after {len(reports)} of {count} checks")
        done = time.perf_counter()
    pool.close()
    took = done - start
    waits = sorted(work.stats.waits)
    return {
        "principals": count,
        "workers": workers,
        "seconds": round(took, 1),
        "checks_per_s": round(len(reports) / took, 2),
        "dreams_completed": sum("dream: completed" in r.lines for r in reports),
        "failures": work.stats.failures,
        "longest_wait_s": round(work.stats.longest_wait, 2),
        "p95_wait_s": round(statistics.quantiles(waits, n=20)[18], 2) if len(waits) > 1 else 0,
    }


def measure(kind: str, where: str, count: int, options: argparse.Namespace) -> dict[str, object]:
    """Every figure of the module doc for one home of ``count`` principals at ``where``."""
    clock = ShiftedClock()
    home = _home(kind, where, clock, options.embeddings)
    figures: dict[str, object] = {"principals": count, "capacity": options.capacity}
    try:
        figures |= seed(home, count, options.exchanges, options.capacity)
        figures |= prompts(home, count, options.capacity, options.samples)
        figures["resident"] = resident(kind, where, count, options.capacity, options.embeddings)
        dreamers = min(options.dream, count)
        figures["maintenance"] = maintenance(
            home, clock, dreamers, options.capacity, options.workers
        )
    finally:
        _close(home)
    return figures


def main() -> None:
    """Parse the options, run each home, print the figures."""
    if sys.argv[1:2] == ["--resident"]:
        kind, where, count, engines, embeddings = sys.argv[2:7]
        resident_worker(kind, where, int(count), int(engines), embeddings)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=int, default=1_000, help="principals (0: skip)")
    parser.add_argument("--database", type=int, default=10_000, help="principals (0: skip)")
    parser.add_argument("--exchanges", type=int, default=3)
    parser.add_argument("--capacity", type=int, default=64, help="the pool's open engines")
    parser.add_argument("--samples", type=int, default=200, help="prompts timed cold")
    parser.add_argument("--dream", type=int, default=500, help="principals maintained")
    parser.add_argument("--workers", type=int, default=2, help="maintenance threads")
    parser.add_argument("--embeddings", choices=["off", "auto"], default="off", help="dense recall")
    options = parser.parse_args()
    results: dict[str, object] = {"load_average": os.getloadavg()[0], "options": vars(options)}
    if options.folder > 0:
        with tempfile.TemporaryDirectory() as folder:
            results["folder"] = measure("folder", folder, options.folder, options)
    if options.database > 0:
        from reverie.testing.local_cluster import LocalCluster  # the postgres extra

        with LocalCluster(durable=True) as cluster:
            results["database"] = measure("postgres", cluster.info.url, options.database, options)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
