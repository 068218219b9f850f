"""The timed calls of ``bench/scale.py``, run in a fresh process on a filled workspace.

A fresh process, so its resident memory is the engine's and not the filler's. In order:

- ``open_ms``: ``MemoryEngine.open``; ``first_prompt_ms``: the first ``prompt`` (opens the
  search index and catches it up);
- ``exchange``: ``samples`` exchanges (default 200) over the probe sessions, each a ``prompt`` of a
  question about the past (``prompt_ms``) then a ``record`` of that question and an answer
  (``record_ms``), so every prompt also catches the index up on the exchange before it;
- ``recall_ms``, ``search_ms``: ``recall(question, session=...)`` and ``search(question)``
  (10 hits), ``samples`` each;
- ``fts_floor_ms`` (folder): the first ``FLOOR_QUERIES`` questions as bare FTS5 queries on
  the same index file (``fts_floor``), the reference a lexical prompt is compared with;
- ``dream_ms``: ``DREAMS`` model-free dreams, each after a batch of new history entries was
  appended (through the store, as compaction appends them), with the entries each consumed;
- ``rss_mb``: VmRSS of this process at the end, ``engine_rss_mb`` that minus VmRSS after
  the imports and before opening the engine, ``peak_rss_mb``: VmHWM.

Each timing is reported as wall p50 / p95 and this process's CPU p50 (steadier on a busy
machine). Dense recall is off: this measures the lexical path (``scalelib.vectors`` measures
the same calls with it on).
"""

from __future__ import annotations

import gc
import math
import re
import sqlite3
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from reverie import MemoryEngine
from reverie.config.sections import DreamConfig, ModelConfig, RecallConfig
from reverie.config.settings import Config
from reverie.engine.dense_choice import Dense
from reverie.storage.folder.layout import SEARCH_INDEX
from reverie.storage.ports import Backend
from scalelib.chat import ChatText
from scalelib.fill import WORKSPACE, open_backend, probe_key

DREAMS = 5
FLOOR_QUERIES = 30
"""Bare FTS5 BM25 ranks every match: seconds a query at 1M items, so fewer of them."""


def config() -> Config:
    """Lexical recall, model-free dream, an 8k-token window (as in ``bench/recall.py``)."""
    return Config(
        model=ModelConfig(context_window=8192, max_output_tokens=1024),
        dream=DreamConfig(mode="model-free"),
        recall=RecallConfig(embeddings="off"),
    )


def resident_mb(field: str = "VmRSS") -> float:
    """A field of ``/proc/self/status`` in MiB."""
    status = Path("/proc/self/status").read_text(encoding="ascii")
    kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith(field))
    return round(kib / 1024, 1)


class Timings:
    """Wall and CPU milliseconds of repeated calls."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def time(self, call: Callable[[], object]) -> object:
        """Run ``call`` and keep how long it took."""
        start, used = time.perf_counter(), time.process_time()
        result = call()
        self.wall.append((time.perf_counter() - start) * 1000)
        self.cpu.append((time.process_time() - used) * 1000)
        return result

    def summary(self) -> dict[str, float]:
        """p50 and p95 of the wall times, p50 of the CPU times."""
        wall = sorted(self.wall)
        # Nearest rank: ceil(0.95 n) - 1 (the same sample as before at 200; int() picked one
        # under the median for a handful of samples).
        p95 = wall[max(0, math.ceil(len(wall) * 0.95) - 1)] if wall else 0.0
        return {
            "p50": round(statistics.median(wall), 3) if wall else 0.0,
            "p95": round(p95, 3),
            "cpu_p50": round(statistics.median(self.cpu), 3) if self.cpu else 0.0,
        }


def open_engine(kind: str, target: str, *, dense: Dense = "settings") -> MemoryEngine:
    """The engine on the bench's workspace: a folder, or ``WORKSPACE`` of the database.

    ``dense``: as ``MemoryEngine.open`` takes it; the settings say off (``config``), an
    encoder turns dense recall on (``scalelib.vectors``).
    """
    if kind == "folder":
        return MemoryEngine.open(Path(target), config(), environ={}, dense=dense)
    return MemoryEngine.open(WORKSPACE, config(), store=target, environ={}, dense=dense)


def exchanges(engine: MemoryEngine, text: ChatText, samples: int) -> dict[str, object]:
    """``samples`` exchanges over the probe sessions: ``prompt`` a question, ``record`` it."""
    prompts, records = Timings(), Timings()
    for number in range(samples):
        key, question = probe_key(number), text.question()
        prompts.time(lambda: engine.prompt(key, question))  # noqa: B023 (called at once)
        exchange = [
            {"role": "user", "content": question},
            {"role": "assistant", "content": text.assistant()},
        ]
        records.time(lambda: engine.record(key, exchange))  # noqa: B023
    return {"prompt_ms": prompts.summary(), "record_ms": records.summary()}


def _dreams(engine: MemoryEngine, backend: Backend, text: ChatText) -> dict[str, object]:
    """Each dream after a batch's worth of new entries (what compaction would have written)."""
    timings, consumed = Timings(), []
    batch = engine.config.dream.batch_entries
    for number in range(DREAMS):
        for _ in range(batch):
            backend.history.append(text.entry(), session_key=probe_key(number), kind="summary")
        result = timings.time(lambda: engine.dream(trigger="bench"))
        consumed.append(getattr(result, "entries", 0))
    return {"dream_ms": timings.summary(), "dream_entries": consumed}


def fts_floor(index: Path, questions: Sequence[str]) -> dict[str, float]:
    """Bare SQLite FTS5: top 10 by BM25 of each question's words, OR'ed, on the same index.

    What a lexical search costs with nothing of reverie around it (no ranking, no context,
    no catch-up): the reference beside ``prompt_ms`` in docs/benchmarks.md.
    """
    conn = sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True)
    timings = Timings()
    sql = "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10"
    for question in questions:
        words = re.findall(r"[A-Za-z0-9]+", question)
        if words:
            expression = " OR ".join(f'"{word}"' for word in words)
            timings.time(lambda: conn.execute(sql, (expression,)).fetchall())  # noqa: B023
    conn.close()
    return timings.summary()


def probe(kind: str, target: str, seed: int, samples: int = 200) -> dict[str, object]:
    """Every figure of the module docstring for the workspace at ``target``."""
    gc.collect()
    before = resident_mb()
    text = ChatText(seed)
    started = time.perf_counter()
    engine = open_engine(kind, target)
    figures: dict[str, object] = {"open_ms": round((time.perf_counter() - started) * 1000, 1)}
    try:
        started = time.perf_counter()
        engine.prompt(probe_key(0), text.question())
        figures["first_prompt_ms"] = round((time.perf_counter() - started) * 1000, 1)
        figures |= exchanges(engine, text, samples)
        questions = [(text.question(), probe_key(n)) for n in range(samples)]
        recall, search = Timings(), Timings()
        for question, key in questions:
            recall.time(lambda: engine.recall(question, session=key))  # noqa: B023
        for question, _ in questions:
            search.time(lambda: engine.search(question, limit=10))  # noqa: B023
        figures |= {"recall_ms": recall.summary(), "search_ms": search.summary()}
        if kind == "folder":
            index = Path(target) / SEARCH_INDEX
            asked = [question for question, _ in questions[:FLOOR_QUERIES]]
            figures["fts_floor_ms"] = fts_floor(index, asked)
        backend = open_backend(kind, target)
        try:
            figures |= _dreams(engine, backend, text)
        finally:
            backend.close()
        gc.collect()
        figures["rss_mb"] = resident_mb()
        figures["engine_rss_mb"] = round(figures["rss_mb"] - before, 1)  # type: ignore[operator]
        figures["peak_rss_mb"] = resident_mb("VmHWM")
    finally:
        engine.close()
    return figures
