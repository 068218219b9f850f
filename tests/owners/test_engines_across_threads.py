"""An engine of the pool is opened, used and closed by whichever thread holds its lease.

``EnginePool`` lends one principal's engine to any server or maintenance thread, and closes
the least recently used idle engine from the thread that needs room. Every connection an
engine keeps must therefore work from any thread. The vector store of dense recall opens
its SQLite file with the default ``check_same_thread=True`` (``dense/vectors.py``): found by
``bench/principals.py``, where a maintenance worker died of ``ProgrammingError`` closing an
engine another thread opened (the pool lost the slot, the bench waited forever). Marked
``xfail(strict=True)`` until ``VectorStore._load`` connects with ``check_same_thread=False``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from reverie.dense.encoder import HashingEncoder
from reverie.dense.vectors import Mark, VectorStore


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


@pytest.mark.xfail(
    strict=True, reason="VectorStore connects with check_same_thread=True (dense/vectors.py)"
)
def test_a_vector_store_opened_in_one_thread_is_used_and_closed_in_another(
    tmp_path: Path,
) -> None:
    store = VectorStore(tmp_path / "v.sqlite", model="hashing-test", dim=256)
    vectors = HashingEncoder().passages(["the harbour boat trip"])
    assert _in_thread(lambda: store.add([("#h1", None, "trip")], vectors, Mark(after=1))) == []
    query = HashingEncoder().queries(["harbour boat"])[0]
    assert store.nearest(query, limit=1, session_key=None) != []  # the test's own thread
    assert _in_thread(store.close) == []
