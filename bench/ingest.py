"""Benchmark ingest in model-free mode: a 10,000-message import of the example conversations.

Run: .venv/bin/python bench/ingest.py [MESSAGES]   (prints one JSON object)
The examples are copied into many conversations (ids and numbers varied so nothing is a
duplicate) and ingested end to end: import, compaction at a 16k context window, dream until
nothing is pending. Reports messages per second, peak RSS and the durable files' size.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from reverie.config import Config, ModelConfig
from reverie.engine import MemoryEngine

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


def main() -> None:
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        corpus = _corpus(target, Path(tmp))
        config = Config(model=ModelConfig(context_window=16_000, max_output_tokens=2_000))
        engine = MemoryEngine.open(Path(tmp) / "ws", config, environ={})
        started = time.perf_counter()
        report = engine.ingest([corpus])
        seconds = time.perf_counter() - started
        sizes = {size.name: size.tokens for size in engine.status().files}
        engine.close()
    figures = {
        "messages": report.messages_added,
        "sessions": report.sessions,
        "seconds": round(seconds, 2),
        "messages_per_second": round(report.messages_added / seconds, 1),
        "history_entries": report.entries,
        "dream_runs": report.dream_runs,
        "commits": report.commits,
        "mode": report.mode,
        "durable_file_tokens": sizes,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
