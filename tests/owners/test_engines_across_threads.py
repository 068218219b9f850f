"""An engine of the pool is opened, used and closed by whichever thread holds its lease.

``EnginePool`` lends one principal's engine to any server or maintenance thread, and closes
the least recently used idle engine from the thread that needs room. Every connection an
engine keeps must therefore work from any thread. The vector store of dense recall once
opened its SQLite file with the default ``check_same_thread=True``: found by
``bench/principals.py``, where a maintenance worker died of ``ProgrammingError`` closing an
engine another thread opened (the pool lost the slot, the bench waited forever).
``VectorStore._load`` (``memory/recall/dense/vectors.py``) now connects with
``check_same_thread=False``, and this test holds it there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from reverie.memory.recall.dense.encoder import HashingEncoder
from reverie.memory.recall.dense.vectors import Mark, VectorStore
from reverie.storage.folder.vectors import SqliteVectorRows


def _in_thread(action: Callable[[], object]) -> list[BaseException]:
    failed: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except Exception as exc:  # noqa: BLE001 (reported to the test thread)
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    return failed


def test_a_vector_store_opened_in_one_thread_is_used_and_closed_in_another(
    tmp_path: Path,
) -> None:
    store = VectorStore(SqliteVectorRows(tmp_path / "v.sqlite"), model="hashing-test", dim=256)
    vectors = HashingEncoder().passages(["the harbour boat trip"])
    opened, done = threading.Event(), threading.Event()

    def opener() -> None:  # stays alive, so no later thread reuses its id
        store.add([("#h1", None, "trip")], vectors, Mark(after=1))
        opened.set()
        done.wait(30)

    holder = threading.Thread(target=opener)
    holder.start()
    try:
        assert opened.wait(30)
        assert _in_thread(lambda: store.move_mark(Mark(after=1, seen="#h1"))) == []
        assert _in_thread(store.close) == []
    finally:
        done.set()
        holder.join(30)
