"""Benchmark ingest in model-free mode: a 10,000-message import of the example conversations.

Run: .venv/bin/python bench/ingest.py [MESSAGES] [--postgres] [--lexical]   (prints one JSON object)
The examples are copied into many conversations (ids and numbers varied so nothing is a
duplicate) and ingested end to end: import, compaction at a 16k context window, dream until
nothing is pending. Reports messages per second, peak RSS and the durable files' size. With
``--postgres`` the ingest goes into a workspace of a throwaway PostgreSQL cluster on loopback
(``reverie.testing.local_cluster``, fsync on) instead of a folder (``backend`` says which).
``--lexical`` turns dense recall off (``recall.embeddings = "off"``): a folder with the
embeddings extra installed encodes every item it ingests, which a database workspace does not
do yet, so compare the backends with it.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reverie.config.sections import ModelConfig, RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine

EXAMPLES = Path(__file__).parents[1] / "examples" / "conversations.json"


def _corpus(target: int, folder: Path) -> Path:
    base = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    conversations, total, copy = [], 0, 0
    while total < target:
        for conversation in base:
            clone = json.loads(json.dumps(conversation))
            clone["id"] = f"{conversation.get('id', 'c')}-{copy}"
            for message in clone["messages"]:
                if isinstance(message.get("content"), str):
                    message["content"] = f"[copy {copy}] " + message["content"]
            conversations.append(clone)
            total += len(clone["messages"])
            if total >= target:
                break
        copy += 1
    path = folder / "corpus.json"
    path.write_text(json.dumps(conversations), encoding="utf-8")
    return path


@contextmanager
def _engine(folder: Path, config: Config, *, postgres: bool) -> Iterator[MemoryEngine]:
    if not postgres:
        yield MemoryEngine.open(folder / "ws", config, environ={})
        return
    from reverie.storage.open import init_database
    from reverie.testing.local_cluster import LocalCluster  # the postgres extra

    with LocalCluster(durable=True) as cluster:
        init_database(cluster.info.url, "bench-ingest")
        yield MemoryEngine.open("bench-ingest", config, store=cluster.info.url, environ={})


def main() -> None:
    postgres = "--postgres" in sys.argv
    numbers = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    target = int(numbers[0]) if numbers else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        corpus = _corpus(target, Path(tmp))
        config = Config(
            model=ModelConfig(context_window=16_000, max_output_tokens=2_000),
            recall=RecallConfig(embeddings="off" if "--lexical" in sys.argv else "auto"),
        )
        with _engine(Path(tmp), config, postgres=postgres) as engine:
            figures = _run(engine, corpus)
    figures["backend"] = "postgres" if postgres else "folder"
    figures["dense"] = "--lexical" not in sys.argv
    figures["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(figures, indent=2))


def _run(engine: MemoryEngine, corpus: Path) -> dict[str, object]:
    try:
        started = time.perf_counter()
        report = engine.ingest([corpus])
        seconds = time.perf_counter() - started
        sizes = {size.name: size.tokens for size in engine.status().files}
    finally:
        engine.close()
    return {
        "messages": report.messages_added,
        "sessions": report.sessions,
        "seconds": round(seconds, 2),
        "messages_per_second": round(report.messages_added / seconds, 1),
        "history_entries": report.entries,
        "dream_runs": report.dream_runs,
        "commits": report.commits,
        "mode": report.mode,
        "durable_file_tokens": sizes,
    }


if __name__ == "__main__":
    main()
