"""Dense recall in bench/recall.py (``--dense``): what fusing embeddings buys, and what it costs.

Quality: each conversation is played as in the main table (``play``), once per window, and
each question is asked with recall's defaults (``all``), then with dense recall fused in
(``all+dense``, and ``bm25+dense``: dense on top of plain BM25). Same figures as the main
table: context recall at 4k and 8k, mean prompt tokens, R@5 and R@10 of recall's ranking.
The vectors come from the real model of the embeddings extra; they are memoised by text in
a cache file outside the repository (``--dense-cache``), so a second run does not encode
the dev set again. The index-time cost is the CPU time per item encoded (when not cached).

Latency (with ``--latency N``): the workspace of the main latency run, every item given a
vector (random unit vectors: encoding 100k items with the real model would take hours on
this machine; the query cost does not depend on what the stored vectors hold), then
``prompt()`` and ``recall()`` with dense recall on, the query encoded by the real model.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from recalllib.devset import Conversation
from reverie import MemoryEngine
from reverie.memory.recall import RecallOptions
from reverie.memory.recall.dense.encoder import E5Encoder
from reverie.memory.recall.dense.retriever import (
    PER_QUERY,
    PER_QUERY_CHARS,
    DenseRetriever,
    Followed,
    query_text,
)
from reverie.memory.recall.dense.vectors import Mark, VectorStore
from reverie.storage.folder.vectors import VECTORS_PATH, SqliteVectorRows
from reverie.testing.parts import recaller_of

Vectors = npt.NDArray[np.float32]
KEY = "bench:talk"
"""The session bench/recall.py plays each conversation into."""


class CachedEncoder:
    """The extra's encoder, memoised by text in an ``.npz`` file; counts CPU time per item."""

    def __init__(self, path: Path) -> None:
        self.inner = E5Encoder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.path = path
        self.memo: dict[tuple[bool, str], Vectors] = {}
        self.encoded = 0
        self.cpu = 0.0
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                for kind, text, row in zip(data["kinds"], data["texts"], data["rows"], strict=True):
                    self.memo[(bool(kind), str(text))] = row

    def queries(self, texts: Sequence[str]) -> Vectors:
        return self._get(texts, query=True)

    def passages(self, texts: Sequence[str]) -> Vectors:
        return self._get(texts, query=False)

    def _get(self, texts: Sequence[str], *, query: bool) -> Vectors:
        missing = [t for t in dict.fromkeys(texts) if (query, t) not in self.memo]
        if missing:
            started = time.process_time()
            rows = self.inner.queries(missing) if query else self.inner.passages(missing)
            self.cpu += time.process_time() - started
            self.encoded += len(missing)
            for text, row in zip(missing, rows, strict=True):
                self.memo[(query, text)] = row
        return np.stack([self.memo[(query, t)] for t in texts]).astype(np.float32)

    def save(self) -> None:
        keys = list(self.memo)
        np.savez(
            self.path,
            kinds=np.array([k for k, _ in keys]),
            texts=np.array([t for _, t in keys]),
            rows=np.stack([self.memo[k] for k in keys]),
        )


def attach(engine: MemoryEngine, encoder: Any, per_call: int = PER_QUERY) -> DenseRetriever:
    """Give ``engine``'s recall a dense retriever with ``encoder`` (as the extra would)."""
    store = VectorStore(
        SqliteVectorRows(Path(engine.location) / VECTORS_PATH), model=encoder.name, dim=encoder.dim
    )
    # A folder workspace's index is a SearchIndex, which the retriever follows.
    dense = DenseRetriever(
        lambda: cast("Followed", engine.index), store, encoder, per_call=per_call
    )
    recaller_of(engine).sources = (dense,)
    engine.dense = dense
    return dense


VARIANTS: dict[str, tuple[RecallOptions, int, float]] = {
    "all": (RecallOptions(), 0, 1.0),
    "all(pool 320)": (RecallOptions(pool=320), 0, 1.0),
    "all+dense": (RecallOptions(), 80, 1.0),
    "all+dense*0.7": (RecallOptions(), 80, 0.7),
    "all+dense@40": (RecallOptions(), 40, 1.0),
    "all+dense@40*1.5": (RecallOptions(), 40, 1.5),
    "all+dense@10": (RecallOptions(), 10, 1.0),
    "all-entities+dense": (RecallOptions(entity_rare=0), 80, 1.0),
    "all-link-names+dense": (RecallOptions(link_names=False), 80, 1.0),
    "all-anchors+dense": (RecallOptions(anchors=False), 80, 1.0),
    "all+links-rare10+dense": (RecallOptions(link_rare=10), 80, 1.0),
    "all-new+dense": (
        RecallOptions(entity_rare=0, link_names=False, anchors=False),
        80,
        1.0,
    ),
}
"""Ranking options, how many nearest items are fused (0: dense off), and their weight."""


def quality(
    conversations: list[Conversation],
    *,
    windows: Sequence[int],
    play: Callable[..., MemoryEngine],
    prompt_text: Callable[[MemoryEngine, str], tuple[str, int, int]],
    ranked: Callable[[MemoryEngine, str, datetime], list[int]],
    tally: Callable[[], Any],
    cache: Path,
    base: RecallOptions,
) -> dict[str, object]:
    import tempfile

    encoder = CachedEncoder(cache)
    variants = {**VARIANTS, "bm25+dense": (base, 40, 1.0)}  # (measured at depth 40)
    tallies: dict[str, Any] = {}
    started = time.perf_counter()
    for window in windows:
        tag = f"{window // 1024}k"
        for convo in conversations:
            with tempfile.TemporaryDirectory() as folder:
                engine = play(convo, window, Path(folder), recall=True)
                dense = attach(engine, encoder, per_call=10**9)
                dense.catch_up()
                for question in convo.questions:
                    gold = [convo.texts[i] for i in question.evidence]
                    for name, (options, depth, weight) in variants.items():
                        recaller_of(engine).options = options
                        recaller_of(engine).sources = (dense,) if depth else ()
                        dense.depth, dense.weight = depth, weight
                        text, tokens, budget = prompt_text(engine, question.text)
                        t = tallies.setdefault(f"{tag}/{name}", tally())
                        t.add(text, gold, tokens, budget)
                        if window == windows[0]:
                            t.search(
                                ranked(engine, question.text, convo.times[-1]),
                                question.evidence,
                            )
                        if window == windows[0] and name == "all+dense":
                            hits = engine.search(question.text, limit=10, session_key=KEY)
                            found = [h.message_index for h in hits if h.message_index is not None]
                            tallies.setdefault("search/ranked+dense", tally()).search(
                                found, question.evidence
                            )
                engine.close()
        encoder.save()
    report: dict[str, object] = {name: t.report() for name, t in sorted(tallies.items())}
    report["encoded_items"] = encoder.encoded
    report["index_cpu_ms_per_item"] = _index_cost(encoder.inner, conversations)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def _index_cost(encoder: E5Encoder, conversations: list[Conversation]) -> dict[str, float]:
    """CPU ms to encode one dev-set message (batches of 32, as the retriever does), by language."""
    cost: dict[str, float] = {}
    for convo in conversations:
        if convo.language in cost:
            continue
        sample = convo.texts[:128]
        started = time.process_time()
        for start in range(0, len(sample), 32):
            encoder.passages(sample[start : start + 32])
        cost[convo.language] = round(1000 * (time.process_time() - started) / len(sample), 1)
    return cost


class RandomEncoder:
    """Random unit vectors for stored items; the real model for queries (latency run)."""

    def __init__(self) -> None:
        self.inner = E5Encoder()
        self.name, self.dim = "latency-random", self.inner.dim
        self.rng = np.random.default_rng(7)

    def queries(self, texts: Sequence[str]) -> Vectors:
        return self.inner.queries(texts)

    def passages(self, texts: Sequence[str]) -> Vectors:
        rows = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        unit: Vectors = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return unit


def latency(
    engine: MemoryEngine,
    asked: list[str],
    timed: Callable[[Callable[[int], Any], int], dict[str, float]],
) -> dict[str, object]:
    """Dense on for the latency workspace ``engine`` (filled and indexed); time the calls."""
    dense = attach(engine, RandomEncoder())
    started = time.perf_counter()
    dense.catch_up()
    filled = time.perf_counter() - started
    random.Random(3).shuffle(asked)
    one = timed(lambda n: engine.prompt("cli:s7", asked[n]).recalled, len(asked))
    alone = timed(lambda n: engine.recall(asked[n], session="cli:s7").items, len(asked))
    search = timed(lambda n: engine.search(asked[n]), len(asked))
    encode = timed(lambda n: dense.encoder.queries([asked[n]]), len(asked))
    vector = dense.encoder.queries(["what did we decide about the harbour?"])[0]
    scan = timed(lambda _n: dense.store.nearest(vector, limit=40, session_key=None), len(asked))
    real = _real_passages(engine, dense, asked, timed)
    return {
        **real,
        "store_100k": _store_scan(100_000, timed),
        "vectors": len(dense.store),
        "store_fill_seconds_random_vectors": round(filled, 1),
        "prompt_one_session_dense": one,
        "recall_alone_dense": alone,
        "search_dense": search,
        "query_encoding_alone": encode,
        "nearest_over_all_vectors": scan,
    }


def _real_passages(
    engine: MemoryEngine,
    dense: DenseRetriever,
    asked: list[str],
    timed: Callable[[Callable[[int], Any], int], dict[str, float]],
) -> dict[str, object]:
    """``prompt()`` when new items wait for the real model: a backlog, and a turn's two messages.

    With a backlog (1,000 new messages, as after an ingest) each prompt encodes at most
    ``PER_QUERY`` of them (and ``PER_QUERY_CHARS``); in steady use a turn records a user
    message and a reply, and the next prompt encodes those two. Then ``index_vectors``
    encodes what is left, in bulk.
    """
    from reverie import Message

    dense.encoder = E5Encoder()
    key = "cli:s7"
    for n in range(1000):
        engine.record(key, [Message(role="user", content=f"{asked[n % len(asked)]} ({n})")])
    engine.prompt(key, "warm up")  # loads the model; any compaction due happens here, untimed
    backlog = timed(lambda n: engine.prompt(key, asked[n]).recalled, 20)
    started = time.perf_counter()
    rest = engine.index_vectors()
    bulk = time.perf_counter() - started

    def turn(n: int) -> Any:
        engine.record(key, [Message(role="user", content=f"{asked[n]} then?")])
        engine.record(key, [Message(role="assistant", content=f"About {asked[-n - 1]}: I see.")])
        return engine.prompt(key, asked[(n + 7) % len(asked)]).recalled

    long_texts = [f"{asked[n]} " + " ".join(asked[n + 1 : n + 30]) for n in range(10)]
    whole = timed(lambda n: dense.encoder.queries([long_texts[n]]), len(long_texts))
    cut = timed(lambda n: dense.encoder.queries([query_text(long_texts[n])]), len(long_texts))

    def again(n: int) -> Any:  # the same message asked twice in a row (an agent's tool loop)
        engine.prompt(key, asked[n])
        started = time.perf_counter()
        recalled = engine.prompt(key, asked[n]).recalled
        seconds.append(time.perf_counter() - started)
        return recalled

    seconds: list[float] = []
    timed(again, 20)
    return {
        "prompt_with_backlog_real_model": backlog,
        "per_prompt_bound": {"items": PER_QUERY, "chars": PER_QUERY_CHARS},
        "long_message_chars": round(sum(map(len, long_texts)) / len(long_texts)),
        "query_encoding_long_message_whole": whole,
        "query_encoding_long_message_cut": cut,
        "prompt_same_message_again_p50_ms": round(1000 * sorted(seconds)[len(seconds) // 2], 2),
        "bulk_items": rest,
        "bulk_ms_per_item": round(1000 * bulk / max(1, rest), 1),
        "prompt_after_a_turn_real_model": timed(turn, 30),
    }


def _store_scan(size: int, timed: Callable[[Callable[[int], Any], int], Any]) -> dict[str, object]:
    """The vector store alone at ``size`` random vectors over 50 sessions: nearest 80."""
    import tempfile

    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory() as folder:
        store = VectorStore(SqliteVectorRows(Path(folder) / "v.sqlite"), model="scan", dim=384)
        started = time.perf_counter()
        for start in range(0, size, 4096):
            count = min(4096, size - start)
            rows = rng.standard_normal((count, 384)).astype(np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            items = [
                (f"#m{start + n}@s{(start + n) % 50}", f"s{(start + n) % 50}", str(start + n))
                for n in range(count)
            ]
            store.add(items, rows, Mark(after=start + count, seen=items[-1][0]))
        filled = time.perf_counter() - started
        store.close()
        started = time.perf_counter()
        loaded = VectorStore(SqliteVectorRows(Path(folder) / "v.sqlite"), model="scan", dim=384)
        assert len(loaded) == size  # loads the file into memory
        opened = time.perf_counter() - started
        vector = rows[0]
        one = timed(lambda _n: loaded.nearest(vector, limit=80, session_key="s7"), 200)
        every = timed(lambda _n: loaded.nearest(vector, limit=80, session_key=None), 200)
        loaded.close()
    return {
        "vectors": size,
        "write_seconds": round(filled, 1),
        "load_seconds": round(opened, 1),
        "nearest_one_session": one,
        "nearest_all_sessions": every,
    }
