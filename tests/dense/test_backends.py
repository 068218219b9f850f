"""Dense recall on both backends: a folder and a PostgreSQL workspace find an item by meaning,
a purge leaves no vector of the purged text, and one server uses what another encoded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reverie import Message
from reverie.config.sections import ModelConfig, RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.memory.recall.dense.encoder import HashingEncoder
from reverie.memory.recall.dense.retriever import DenseRetriever

CONFIG = Config(
    model=ModelConfig(context_window=4096, max_output_tokens=1024),
    recall=RecallConfig(embeddings="off"),  # the test encoder is given at open, whatever this says
)
FACT = "We finally adopted a beagle puppy from the shelter on Saturday."
SECRET = "The alarm code for the back door is Zanzibar."
QUESTION = "What kind of dog did we get?"


@pytest.fixture(params=["folder", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A new workspace: a folder path, or a database workspace's name (``store`` below)."""
    if request.param == "folder":
        return str(tmp_path_factory.mktemp("ws"))
    from tests.postgres.conftest import new_workspace

    return new_workspace(request.getfixturevalue("pg_url"), "dense")


def _open(where: str, request: pytest.FixtureRequest) -> MemoryEngine:
    store = None if "/" in where else request.getfixturevalue("pg_url")
    # Dense recall with the test encoder, in the engine's own backend (as the extra would).
    encoder = HashingEncoder(synonyms={"dog": "beagle"})
    engine = MemoryEngine.open(where, CONFIG, store=store, environ={}, dense=encoder)
    assert engine.dense_status.on
    return engine


@pytest.fixture
def engine(where: str, request: pytest.FixtureRequest) -> Iterator[MemoryEngine]:
    opened = _open(where, request)
    yield opened
    opened.close()


def _dense(engine: MemoryEngine) -> DenseRetriever:
    assert engine.dense is not None
    return engine.dense


def test_an_item_sharing_no_word_with_the_question_is_found_by_meaning(
    engine: MemoryEngine,
) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    for day in range(5):
        engine.record("tg:ann", [Message(role="user", content=f"Rain again today ({day}).")])

    assert engine.index_vectors() == 6
    found = _dense(engine).nearest(QUESTION, limit=3, session_key="tg:ann")

    assert found[0].text == FACT
    assert FACT in [item.text for item in engine.recall(QUESTION, session="tg:ann").items]
    assert _dense(engine).pending() == 0
    assert _dense(engine).nearest(QUESTION, limit=3, session_key="tg:bob") == []


def test_a_purge_leaves_no_vector_made_from_the_purged_text(
    engine: MemoryEngine, where: str, request: pytest.FixtureRequest
) -> None:
    engine.record("tg:ann", [Message(role="user", content=SECRET)])
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    assert engine.index_vectors() == 2

    engine.forget("Zanzibar", purge=True)

    again = _open(where, request)  # a fresh process: what is stored, not what was in memory
    try:
        store = _dense(again).store
        stored = [ref for _, (ref, *_rest) in store.rows.rows_since(0)]
        assert "#m0@tg:ann" not in stored
        assert all(
            "Zanzibar" not in c.text
            for c in _dense(again).nearest("alarm code", limit=5, session_key=None)
        )
    finally:
        again.close()


def test_a_second_engine_uses_the_vectors_the_first_one_encoded(
    engine: MemoryEngine, where: str, request: pytest.FixtureRequest
) -> None:
    other = _open(where, request)
    try:
        assert _dense(other).nearest(QUESTION, limit=3, session_key="tg:ann") == []
        engine.record("tg:ann", [Message(role="user", content=FACT)])
        assert engine.index_vectors() == 1

        found = _dense(other).nearest(QUESTION, limit=3, session_key="tg:ann")

        assert [c.text for c in found] == [FACT]
        assert _dense(other).pending() == 0
    finally:
        other.close()


def test_a_new_engine_loads_every_stored_vector_whatever_the_fetch_size(
    engine: MemoryEngine,
    where: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reverie.storage.postgres import vectors as pg_vectors

    monkeypatch.setattr(pg_vectors, "ROWS_PER_FETCH", 3)  # a database's rows: four fetches
    facts = [f"note {n}: the {word} is in the shed" for n, word in enumerate("abcdefghij")]
    engine.record("tg:ann", [Message(role="user", content=fact) for fact in facts])
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    assert engine.index_vectors() == len(facts) + 1

    other = _open(where, request)
    try:
        found = _dense(other).nearest(QUESTION, limit=3, session_key="tg:ann")
        assert len(_dense(other).store) == len(facts) + 1
        assert found[0].text == FACT
        assert _dense(other).pending() == 0
    finally:
        other.close()


def test_an_unreadable_stored_vector_is_skipped_and_the_others_still_answer(
    engine: MemoryEngine,
    where: str,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    engine.record("tg:ann", [Message(role="user", content="Rain again today.")])
    assert engine.index_vectors() == 2
    _dense(engine).store.rows.write([("#m1@tg:ann", "tg:ann", b"h" * 12, b"bad")], {})

    again = _open(where, request)
    try:
        found = _dense(again).nearest(QUESTION, limit=3, session_key="tg:ann")
        assert found[0].text == FACT
        assert "unreadable" in caplog.text
        assert len(_dense(again).store) == 2  # the damaged one was encoded again
    finally:
        again.close()
