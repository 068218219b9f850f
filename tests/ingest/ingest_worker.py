"""Subprocess worker for the ingest concurrency and kill-and-rerun tests.

Usage: ``ingest_worker.py INPUT [STORE_URL [LEASE]]``. Imports reverie once, prints ``ready``,
then for each line ``WORKSPACE`` read on stdin forks a child that ingests INPUT into WORKSPACE
(with a STORE_URL: into the database workspace ``database_name(WORKSPACE)``, with leases that
expire LEASE seconds after a kill, default ``store.lease_seconds``; model-free, the small
budget of ``CONFIG`` so compaction and several dream batches happen), prints the child's
pid, waits for it and prints ``exit STATUS SECONDS``. Forking from an imported parent makes a
fresh process cheap, so a test can kill many ingests at chosen instants in a few seconds.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

from reverie.config import Config, DreamConfig, ModelConfig, RecallConfig, StoreConfig
from reverie.engine import MemoryEngine

CONFIG = Config(
    model=ModelConfig(context_window=1900, max_output_tokens=500),
    dream=DreamConfig(batch_entries=5),
    recall=RecallConfig(embeddings="off"),  # a child process: the suite's pin (tests/conftest.py)
)


KILLED_LEASE_SECONDS = 2.0
"""The lease time of the kill tests: a killed run's locks free fast. Tight on a loaded machine
(a heartbeat late by that much loses its lease), so only for runs that never overlap."""


def database_name(workspace: Path) -> str:
    """The database workspace standing for the folder ``workspace`` (its last two parts)."""
    return f"{workspace.parent.name}-{workspace.name}"


def ingest(source: Path, workspace: Path, store: str | None, lease: float) -> None:
    """Ingest ``source`` into ``workspace`` (the child's whole life)."""
    if store is None:
        engine = MemoryEngine.open(workspace, CONFIG, environ={})
    else:
        from reverie.postgres.database import Database

        database = Database(store, max_connections=1)
        try:
            database.tenant(database_name(workspace), create=True)
        finally:
            database.close()
        config = replace(CONFIG, store=StoreConfig(lease_seconds=lease))
        engine = MemoryEngine.open(database_name(workspace), config, store=store, environ={})
    engine.ingest([source])
    engine.close()


def main() -> None:
    source = Path(sys.argv[1])
    store = sys.argv[2] if len(sys.argv) > 2 else None
    lease = float(sys.argv[3]) if len(sys.argv) > 3 else StoreConfig().lease_seconds
    if store is not None:
        import reverie.postgres_backend  # noqa: F401 -- imported once, before the forks
    print("ready", flush=True)
    for line in sys.stdin:
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                ingest(source, Path(line.strip()), store, lease)
            except BaseException:  # noqa: BLE001 -- the child reports by exit status and stderr
                traceback.print_exc()
                status = 1
            os._exit(status)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {status} {time.monotonic() - started:.3f}", flush=True)


if __name__ == "__main__":
    main()
