"""Subprocess worker for the ingest concurrency and kill-and-rerun tests.

Usage: ``ingest_worker.py INPUT``. Imports reverie once, prints ``ready``, then for each line
``WORKSPACE[<TAB>LEASE[<TAB>STORE_URL]]`` read on stdin forks a child that ingests INPUT into
WORKSPACE (with a STORE_URL: into the database workspace ``database_name(WORKSPACE)``, with
leases that expire LEASE seconds after a kill, default ``store.lease_seconds``; model-free,
the small budget of ``CONFIG`` so compaction and several dream batches happen), prints the
child's pid and the monotonic instant it was forked, waits for it and prints
``exit STATUS SECONDS``. The child writes each progress step it
reports (``MONOTONIC STAGE DONE TOTAL``, flushed) to ``progress_file(WORKSPACE)``, so a test
can kill it at a chosen step. Forking from a parent that imported reverie and ingested once
into a scratch folder (lazy imports loaded) makes a fresh process cheap, so a test can kill
many ingests at chosen instants in a few seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path

from reverie.config.sections import DreamConfig, ModelConfig, RecallConfig, StoreConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.memory.ingest.run import Progress

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


def progress_file(workspace: Path) -> Path:
    """Where the child ingesting into ``workspace`` writes its progress steps."""
    return workspace.with_name(workspace.name + ".progress")


def ingest(source: Path, workspace: Path, store: str | None, lease: float) -> None:
    """Ingest ``source`` into ``workspace`` (the child's whole life)."""
    workspace.parent.mkdir(parents=True, exist_ok=True)
    with progress_file(workspace).open("a", encoding="utf-8") as steps:

        def report(stage: str, done: int, total: int) -> None:
            steps.write(f"{time.monotonic():.4f} {stage} {done} {total}\n")
            steps.flush()

        _ingest(source, workspace, store, lease, report)


def _ingest(
    source: Path, workspace: Path, store: str | None, lease: float, report: Progress
) -> None:
    if store is None:
        engine = MemoryEngine.open(workspace, CONFIG, environ={}, dense="off")
    else:
        from reverie.storage.postgres.database import Database

        database = Database(store, max_connections=1)
        try:
            database.tenant(database_name(workspace), create=True)
        finally:
            database.close()
        config = replace(CONFIG, store=StoreConfig(lease_seconds=lease))
        engine = MemoryEngine.open(
            database_name(workspace), config, store=store, environ={}, dense="off"
        )
    engine.ingest([source], on_progress=report)
    engine.close()


def warm() -> None:
    """Ingest a tiny conversation into a scratch folder, so forked children start warm."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "chat.json"
        turns = [
            {"role": "user", "content": "I prefer tea."},
            {"role": "assistant", "content": "Noted."},
        ]
        source.write_text(json.dumps([{"id": "warm", "messages": turns}]), encoding="utf-8")
        engine = MemoryEngine.open(Path(scratch) / "ws", CONFIG, environ={}, dense="off")
        engine.ingest([source])
        engine.close()


def main() -> None:
    source = Path(sys.argv[1])
    with contextlib.suppress(ImportError):  # the postgres extra: imported once, before forks
        import reverie.storage.postgres.backend  # noqa: F401
    warm()
    print("ready", flush=True)
    for line in sys.stdin:
        workspace, lease, store = [*line.rstrip("\n").split("\t"), "", ""][:3]
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                seconds = float(lease) if lease else StoreConfig().lease_seconds
                ingest(source, Path(workspace), store or None, seconds)
            except BaseException:  # noqa: BLE001 -- the child reports by exit status and stderr
                traceback.print_exc()
                status = 1
            os._exit(status)
        print(f"{pid} {started:.4f}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {status} {time.monotonic() - started:.3f}", flush=True)


if __name__ == "__main__":
    main()
