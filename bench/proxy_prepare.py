"""The proxy's own work on one request, without HTTP: ``serve.chat_request.prepare``.

Run: .venv/bin/python bench/proxy_prepare.py [--backend folder|postgres] [--messages 400]
     [--samples 200]   (prints one JSON object)

A session of ``--messages`` recorded messages (a fresh folder workspace, or a workspace of a
throwaway PostgreSQL cluster on loopback, ``reverie.testing.local_cluster``), then ``--samples``
times the same request: a client that sends only its new user message. ``prepare`` reconciles
it against the session, records nothing (the final user message is recorded with the answer)
and builds the prompt: the part of ``bench/serve.py``'s proxy overhead that reads the session.
Wall and CPU p50 in milliseconds. Model-free, lexical recall; the request is never answered, so
the session does not grow between samples.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from reverie import MemoryEngine
from reverie.core.messages import JSONValue, Message
from reverie.serve.chat_request import ChatCall, prepare

WORKSPACE = "bench"
SESSION = "api:bench"


@contextlib.contextmanager
def _engine(kind: str) -> Iterator[MemoryEngine]:
    if kind == "folder":
        with (
            tempfile.TemporaryDirectory(prefix="reverie-prepare-") as folder,
            MemoryEngine.open(Path(folder), create=True, environ={}, dense="off") as engine,
        ):
            yield engine
        return
    from reverie.storage.postgres.backend import PgBackend
    from reverie.testing.local_cluster import LocalCluster

    with LocalCluster(durable=True) as cluster:
        PgBackend.open(cluster.info.url, WORKSPACE, create=True).close()  # the schema
        with MemoryEngine.open(
            WORKSPACE, store=cluster.info.url, environ={}, dense="off"
        ) as engine:
            yield engine


def measure(kind: str, messages: int, samples: int) -> dict[str, object]:
    """``prepare``'s wall and CPU p50 on a session of ``messages`` messages."""
    with _engine(kind) as engine:
        said = [
            Message(
                role="user" if number % 2 == 0 else "assistant",
                content=f"line {number} about the harbour and boat {number % 37}",
            )
            for number in range(messages)
        ]
        engine.record(SESSION, said)
        question: JSONValue = {"role": "user", "content": "when does the harbour open?"}
        body: JSONValue = {"model": "m", "messages": [question], "metadata": {"session": SESSION}}
        call = ChatCall.parse(body, {})
        prepare(engine, call)  # the index caught up, the caches warm
        wall, cpu = [], []
        for _ in range(samples):
            started, used = time.perf_counter(), time.process_time()
            prepare(engine, call)
            cpu.append((time.process_time() - used) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
    return {
        "backend": kind,
        "messages": messages,
        "samples": samples,
        "prepare_ms": {
            "p50": round(statistics.median(wall), 3),
            "cpu_p50": round(statistics.median(cpu), 3),
        },
    }


def main() -> None:
    """Parse the options, measure, print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--backend", choices=("folder", "postgres"), default="folder")
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--samples", type=int, default=200)
    options = parser.parse_args()
    print(json.dumps(measure(options.backend, options.messages, options.samples)))


if __name__ == "__main__":
    main()
