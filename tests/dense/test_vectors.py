"""``VectorStore``: vectors by source reference in ``.reverie/vectors.sqlite``."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from reverie.memory.recall.dense.encoder import HashingEncoder
from reverie.memory.recall.dense.vectors import Mark, VectorStore
from reverie.storage.folder.vectors import SqliteVectorRows


def _store(path: Path, model: str = "hashing-test") -> VectorStore:
    return VectorStore(SqliteVectorRows(path), model=model, dim=256)


def _add(store: VectorStore, items: list[tuple[str, str | None, str]], after: int) -> None:
    vectors = HashingEncoder().passages([text for _, _, text in items])
    store.add(items, vectors, Mark(after=after, seen=items[-1][0]))


def test_nearest_finds_the_closest_items_of_the_scope_only(tmp_path: Path) -> None:
    store = _store(tmp_path / "v.sqlite")
    _add(
        store,
        [
            ("#m0@a", "a", "the harbour boat trip"),
            ("#m1@a", "a", "pasta for dinner"),
            ("#m0@b", "b", "the harbour boat trip again"),
        ],
        after=3,
    )
    query = HashingEncoder().queries(["harbour boat"])[0]

    assert [ref for ref, _ in store.nearest(query, limit=2, session_key="a")] == [
        "#m0@a",
        "#m1@a",
    ]
    assert store.nearest(query, limit=5, session_key="nobody") == []
    assert {ref for ref, _ in store.nearest(query, limit=1, session_key=None)} <= {
        "#m0@a",
        "#m0@b",
    }


def test_vectors_and_the_mark_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    store = _store(path)
    _add(store, [(f"#m{n}@a", "a", f"message {n}") for n in range(1500)], after=1500)
    store.close()

    again = _store(path)

    assert len(again) == 1500
    assert again.mark() == Mark(after=1500, seen="#m1499@a")
    assert again.unchanged("#m7@a", "message 7")
    assert not again.unchanged("#m7@a", "message 7, edited")


def test_another_model_empties_the_store(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    store = _store(path)
    _add(store, [("#h1", None, "an entry")], after=1)
    store.close()

    other = _store(path, model="another-model")

    assert len(other) == 0
    assert other.mark() == Mark()


def test_a_damaged_file_is_started_again(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    path.write_bytes(b"this is not a database" * 100)

    store = _store(path)
    _add(store, [("#h1", None, "an entry")], after=1)

    assert len(store) == 1


def test_a_changed_text_replaces_the_vector_in_place(tmp_path: Path) -> None:
    store = _store(tmp_path / "v.sqlite")
    _add(store, [("#m0@a", "a", "cats")], after=1)
    _add(store, [("#m0@a", "a", "dogs")], after=2)
    query = HashingEncoder().queries(["dogs"])[0]

    ((ref, score),) = store.nearest(query, limit=5, session_key="a")

    assert (ref, len(store)) == ("#m0@a", 1)
    assert np.isclose(score, 1.0, atol=1e-2)


def test_a_store_opened_in_a_worker_thread_closes_from_another(tmp_path: Path) -> None:
    # `reverie mcp` runs engine calls in worker threads and closes the engine from its main
    # thread: that used to end every dense-recall server with a sqlite3 ProgrammingError.
    store = _store(tmp_path / "v.sqlite")
    worker = threading.Thread(
        target=_add, args=(store, [("#m0@a", "a", "the harbour boat trip")], 1)
    )
    worker.start()
    worker.join(30)
    assert len(store) == 1
    store.close()
    assert len(_store(tmp_path / "v.sqlite")) == 1
