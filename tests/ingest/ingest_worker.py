"""Subprocess worker for the ingest concurrency and kill-and-rerun tests.

Usage: ``ingest_worker.py INPUT``. Imports reverie once, prints ``ready``, then for each line
``WORKSPACE`` read on stdin forks a child that ingests INPUT into WORKSPACE (model-free, the
small budget of ``CONFIG`` so compaction and several dream batches happen), prints the child's
pid, waits for it and prints ``exit STATUS SECONDS``. Forking from an imported parent makes a
fresh process cheap, so a test can kill many ingests at chosen instants in a few seconds.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

from reverie.config import Config, DreamConfig, ModelConfig, RecallConfig
from reverie.engine import MemoryEngine

CONFIG = Config(
    model=ModelConfig(context_window=1900, max_output_tokens=500),
    dream=DreamConfig(batch_entries=5),
    recall=RecallConfig(embeddings="off"),  # a child process: the suite's pin (tests/conftest.py)
)


def ingest(source: Path, workspace: Path) -> None:
    """Ingest ``source`` into ``workspace`` (the child's whole life)."""
    engine = MemoryEngine.open(workspace, CONFIG, environ={})
    engine.ingest([source])
    engine.close()


def main() -> None:
    source = Path(sys.argv[1])
    print("ready", flush=True)
    for line in sys.stdin:
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                ingest(source, Path(line.strip()))
            except BaseException:  # noqa: BLE001 -- the child reports by exit status and stderr
                traceback.print_exc()
                status = 1
            os._exit(status)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {status} {time.monotonic() - started:.3f}", flush=True)


if __name__ == "__main__":
    main()
