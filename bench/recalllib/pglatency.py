"""``bench/recall.py --latency N --backend postgres``: the latency run on a PostgreSQL workspace.

The workspace lives in a throwaway cluster (``reverie.testing.local_cluster``, fsync off: a
bench of reads), filled as the folder run fills its own (``filler.fill`` through the
backend's stores, each session compacted up to its last 8 messages, dream level with
history), then timed through ``MemoryEngine`` as the folder run is: ``search()``,
``prompt()`` in one session and rotating over the 50, and ``recall()`` alone; with dense
(``--dense latency``), the same again with random passage vectors (``dense.RandomEncoder``:
the real model for queries) after every item got its vector.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sized
from typing import TYPE_CHECKING, cast

from recalllib.filler import fill
from reverie import Config, MemoryEngine
from reverie.storage.postgres.backend import PgBackend
from reverie.testing.local_cluster import LocalCluster

if TYPE_CHECKING:
    from reverie.storage.folder.workspace import Workspace

Timed = Callable[[Callable[[int], Sized], int], dict[str, float]]
NAME = "bench-latency"


def latency(
    size: int, asked: list[str], config: Config, timed: Timed, *, dense: bool
) -> dict[str, object]:
    """Fill a PostgreSQL workspace of ``size`` items and time the calls on it."""
    with LocalCluster(durable=False) as cluster:
        url = cluster.info.url
        backend = PgBackend.open(url, NAME, create=True)
        try:
            started = time.perf_counter()
            fill(cast("Workspace", backend), size, random.Random(5))
            for info in backend.sessions.list():
                backend.sessions.set_compacted_upto(info.key, max(0, info.message_count - 8))
            backend.dream_cursor.write(backend.history.last_cursor())
            filled = time.perf_counter() - started
        finally:
            backend.close()
        with MemoryEngine.open(NAME, config, store=url, environ={}, dense="off") as engine:
            figures: dict[str, object] = {
                "items": size,
                "fill_seconds": round(filled, 1),
                **_calls(engine, asked, timed),
            }
        if dense:
            figures["dense"] = _dense(url, config, asked, timed)
    return figures


def _calls(
    engine: MemoryEngine, asked: list[str], timed: Timed, suffix: str = ""
) -> dict[str, object]:
    return {
        f"search{suffix}": timed(lambda n: engine.search(asked[n]), len(asked)),
        f"prompt_one_session{suffix}": timed(
            lambda n: engine.prompt("cli:s7", asked[n]).recalled, len(asked)
        ),
        f"prompt_rotating_sessions{suffix}": timed(
            lambda n: engine.prompt(f"cli:s{n % 50}", asked[n]).recalled, len(asked)
        ),
        f"recall_alone{suffix}": timed(
            lambda n: engine.recall(asked[n], session="cli:s7").items, len(asked)
        ),
    }


def _dense(url: str, config: Config, asked: list[str], timed: Timed) -> dict[str, object]:
    from recalllib.dense import RandomEncoder

    with MemoryEngine.open(NAME, config, store=url, environ={}, dense=RandomEncoder()) as engine:
        assert engine.dense is not None, engine.dense_status
        started = time.perf_counter()
        vectors = engine.dense.catch_up_all()
        stored = time.perf_counter() - started
        shuffled = list(asked)
        random.Random(3).shuffle(shuffled)
        return {
            "vectors": vectors,
            "store_fill_seconds_random_vectors": round(stored, 1),
            **_calls(engine, shuffled, timed, "_dense"),
        }
