"""Dense recall's cost: encoding, a dense ``prompt()`` at 10k and 100k items, memory at 1M.

Run: .venv/bin/python bench/dense.py [--encode N] [--prompt SIZES...] [--store SIZES...]
     [--agreement CACHE]   (prints one JSON object; each part runs only when asked)

- ``--encode N``: N real-chat-shaped texts (``curationset.realchat`` and the recall dev set's
  conversations, ``recalllib.devset``, repeated in order up to N) through the real model of the
  embeddings extra: the model alone (``E5Encoder.passages`` in batches of 32: items/s, CPU ms
  per item and per token), then the whole path (each text recorded as a message of a folder
  workspace, then ``MemoryEngine.index_vectors``: index, store, model), so the difference is
  what reverie adds to the model; and how many texts were repeats (encoded once).
- ``--prompt SIZES``: a workspace of SIZE items (``recalllib.filler``, as bench/recall.py's
  latency run: half history entries, half messages over 50 sessions), every item given a
  **synthetic** vector (random unit vectors: the query cost does not depend on what they hold;
  encoding 100k items with the model would take an hour here), then ``prompt()`` for distinct
  questions in one session, with dense off and on (the query encoded by the real model), and
  the query's model pass alone: what is the model and what is ours.
- ``--store SIZES``: the vector store alone at SIZE synthetic vectors over 50 sessions, in a
  child process: write and load seconds, nearest 80 in one session and over every session,
  and the child's resident memory before and after loading (``VmRSS``; the model is not
  loaded there).
- ``--agreement CACHE``: the dev set's real vectors memoised by bench/recall.py
  (``--dense-cache``): how much of the float32 top 10 and top 80 the stored (quantised)
  ranking keeps.

Quality with the real model is bench/recall.py's own table: ``bench/recall.py --no-quality
--dense quality`` (context recall and R@k with dense fused), run before and after a change.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sized
from pathlib import Path
from typing import Any

import numpy as np

from recalllib.dense import RandomEncoder, attach
from recalllib.devset import build
from recalllib.filler import fill, questions
from reverie import Config, MemoryEngine, Message
from reverie.config.sections import ModelConfig, RecallConfig
from reverie.memory.recall.dense.encoder import E5Encoder
from reverie.testing.folders import workspace_of


def _texts(count: int) -> list[str]:
    sys.path.insert(0, str(Path(__file__).parent))
    from curationset.realchat import CONVERSATIONS

    pool = [turn[2] for c in CONVERSATIONS for s in c.sessions for turn in s.turns]
    pool += [text for convo in build() for text in convo.texts]
    return [pool[n % len(pool)] for n in range(count)]


def encode(count: int) -> dict[str, object]:
    """Items/s of the model alone and of ``index_vectors`` over the same texts."""
    texts = _texts(count)
    model = E5Encoder()
    model.passages(["warm up"])
    tokens = sum(int(model._model.token_count(t)) for t in texts)  # noqa: SLF001 -- a count
    started, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(texts), 32):
        model.passages(texts[start : start + 32])
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    config = Config(model=ModelConfig(context_window=8192), recall=RecallConfig(embeddings="off"))
    with tempfile.TemporaryDirectory() as folder:
        engine = MemoryEngine.open(Path(folder), config)
        for n, text in enumerate(texts):
            engine.record(f"bench:s{n % 10}", [Message(role="user", content=text)])
        engine.index.refresh()
        dense = attach(engine, E5Encoder(), per_call=4)
        started, cpu = time.perf_counter(), time.process_time()
        done = engine.index_vectors()
        whole, whole_cpu = time.perf_counter() - started, time.process_time() - cpu
        repeated = getattr(dense, "repeated", 0)
        engine.close()
    return {
        "texts": len(texts),
        "distinct_texts": len(set(texts)),
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
        "mean_tokens": round(tokens / len(texts), 1),
        "model_items_per_s": round(len(texts) / wall, 1),
        "model_cpu_ms_per_item": round(1000 * used / len(texts), 2),
        "model_cpu_ms_per_token": round(1000 * used / tokens, 3),
        "index_vectors_items": done,
        "index_vectors_items_per_s": round(done / whole, 1),
        "index_vectors_cpu_ms_per_item": round(1000 * whole_cpu / max(1, done), 2),
        "repeats_not_encoded": repeated,
        "load_average": round(os.getloadavg()[0], 2),
    }


def _timed(call: Callable[[int], Sized | object], count: int) -> dict[str, float]:
    samples, cpu = [], []
    for number in range(count):
        started, used = time.perf_counter(), time.process_time()
        call(number)
        samples.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    samples.sort()
    cpu.sort()
    return {
        "p50_ms": pick(samples, 0.5),
        "p95_ms": pick(samples, 0.95),
        "cpu_p50_ms": pick(cpu, 0.5),
        "cpu_p95_ms": pick(cpu, 0.95),
    }


def pick(samples: list[float], share: float) -> float:
    """The sample at ``share`` of the sorted ``samples``."""
    return round(samples[min(len(samples) - 1, int(share * len(samples)))], 2)


def prompt(size: int, count: int = 100) -> dict[str, object]:
    """``prompt()`` with dense off and on at ``size`` items (synthetic stored vectors)."""
    asked = list(dict.fromkeys(questions(count * 3, random.Random(6))))[:count]
    config = Config(model=ModelConfig(context_window=8192), recall=RecallConfig(embeddings="off"))
    with tempfile.TemporaryDirectory() as folder:
        engine = MemoryEngine.open(Path(folder), config)
        workspace = workspace_of(engine)
        fill(workspace, size, random.Random(5))
        for info in workspace.sessions.list():
            workspace.sessions.set_compacted_upto(info.key, max(0, info.message_count - 8))
        workspace.dream_cursor.write(workspace.history.last_cursor())
        engine.index.refresh()
        off = _timed(lambda n: engine.prompt("cli:s7", asked[n]), len(asked))
        random_vectors = RandomEncoder()
        dense = attach(engine, random_vectors)
        started = time.perf_counter()
        dense.catch_up()
        filled = time.perf_counter() - started
        dense.encoder = _QueriesOnly(E5Encoder(), random_vectors)
        dense.encoder.queries(["warm up"])
        on = _timed(lambda n: engine.prompt("cli:s7", f"{asked[n]} ({n})"), len(asked))
        model = _timed(lambda n: dense.encoder.queries([f"{asked[n]} [{n}]"]), len(asked))
        vector = dense.encoder.queries(["what did we decide about the harbour?"])[0]
        one = _timed(lambda _n: dense.store.nearest(vector, limit=96, session_key="cli:s7"), 100)
        every = _timed(lambda _n: dense.store.nearest(vector, limit=96, session_key=None), 30)
        stored = len(dense.store)
        engine.close()
    return {
        "items": size,
        "vectors_synthetic": stored,
        "vector_fill_seconds": round(filled, 1),
        "prompt_dense_off": off,
        "prompt_dense_on": on,
        "query_model_pass": model,
        "nearest_one_session": one,
        "nearest_every_session": every,
        "load_average": round(os.getloadavg()[0], 2),
    }


class _QueriesOnly:
    """The real model for queries; stored items keep their synthetic vectors."""

    def __init__(self, model: E5Encoder, stored: RandomEncoder) -> None:
        self.model, self.stored = model, stored
        self.name, self.dim = stored.name, stored.dim

    def queries(self, texts: Any) -> Any:
        return self.model.queries(texts)

    def passages(self, texts: Any) -> Any:
        return self.stored.passages(texts)


_STORE_CHILD = """
import json, sys, time, tempfile
from pathlib import Path
import numpy as np
from reverie.memory.recall.dense.vectors import Mark, VectorStore
from reverie.storage.folder.vectors import SqliteVectorRows
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
def arrays(store):  # before 2026-12-02 the store held one float32 matrix
    return store.nbytes() if hasattr(store, "nbytes") else store._matrix.nbytes
size = int(sys.argv[1]); rng = np.random.default_rng(11)
with tempfile.TemporaryDirectory(dir=sys.argv[2]) as folder:
    path = Path(folder) / "v.sqlite"
    store = VectorStore(SqliteVectorRows(path), model="scan", dim=384)
    started = time.perf_counter()
    for start in range(0, size, 8192):
        count = min(8192, size - start)
        rows = rng.standard_normal((count, 384)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        items = [(f"#m{start + n}@s{(start + n) % 50}", f"s{(start + n) % 50}", str(start + n))
                 for n in range(count)]
        store.add(items, rows, Mark(after=start + count, seen=items[-1][0]))
    written = time.perf_counter() - started
    store.close()
    before = rss()
    started = time.perf_counter()
    loaded = VectorStore(SqliteVectorRows(path), model="scan", dim=384)
    assert len(loaded) == size
    opened = time.perf_counter() - started
    q = rows[0]
    def timed(scope, n):
        xs = []
        for _ in range(n):
            t = time.perf_counter(); loaded.nearest(q, limit=96, session_key=scope)
            xs.append((time.perf_counter() - t) * 1000)
        xs.sort()
        return {"p50_ms": round(xs[len(xs) // 2], 2), "p95_ms": round(xs[int(len(xs) * 0.95)], 2)}
    out = {"vectors": size, "write_seconds": round(written, 1), "load_seconds": round(opened, 1),
           "file_mb": round(path.stat().st_size / 2**20), "array_mb": round(arrays(loaded) / 2**20),
           "rss_mb_before_load": before, "rss_mb_loaded": rss(),
           "nearest_one_session": timed("s7", 50), "nearest_every_session": timed(None, 10)}
    print(json.dumps(out))
"""


def store(size: int) -> dict[str, object]:
    """The vector store alone at ``size`` synthetic vectors, in a child process (its RSS)."""
    done = subprocess.run(
        [sys.executable, "-c", _STORE_CHILD, str(size), tempfile.gettempdir()],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def agreement(cache: Path) -> dict[str, object]:
    """Share of the float32 top 10 / top 80 the stored ranking keeps, on real dev-set vectors."""
    from reverie.memory.recall.dense.vectors import Mark, VectorStore
    from reverie.storage.folder.vectors import SqliteVectorRows

    with np.load(cache, allow_pickle=False) as data:
        kinds, rows = data["kinds"].astype(bool), data["rows"].astype(np.float32)
    stored, asked = rows[~kinds], rows[kinds]
    with tempfile.TemporaryDirectory() as folder:
        vectors = VectorStore(
            SqliteVectorRows(Path(folder) / "v.sqlite"), model="agree", dim=stored.shape[1]
        )
        items = [(f"#h{n + 1}", None, str(n)) for n in range(len(stored))]
        vectors.add(items, stored, Mark())
        top10, top80 = [], []
        for query in asked:
            truth = [f"#h{n + 1}" for n in np.argsort(-(stored @ query))[:80]]
            found = [ref for ref, _ in vectors.nearest(query, limit=80, session_key=None)]
            top10.append(len(set(truth[:10]) & set(found[:10])) / 10)
            top80.append(len(set(truth) & set(found)) / 80)
        vectors.close()
    return {
        "stored": len(stored),
        "queries": len(asked),
        "top10_kept": round(float(np.mean(top10)), 4),
        "top80_kept": round(float(np.mean(top80)), 4),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encode", type=int, default=0, metavar="N")
    parser.add_argument("--prompt", type=int, nargs="*", default=[], metavar="SIZE")
    parser.add_argument("--store", type=int, nargs="*", default=[], metavar="SIZE")
    parser.add_argument("--agreement", type=Path, default=None, metavar="CACHE")
    args = parser.parse_args(argv)
    report: dict[str, object] = {}
    if args.encode:
        report["encode"] = encode(args.encode)
    for size in args.prompt:
        report[f"prompt_{size}"] = prompt(size)
    for size in args.store:
        report[f"store_{size}"] = store(size)
    if args.agreement is not None:
        report["agreement"] = agreement(args.agreement)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
