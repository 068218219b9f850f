"""Dense recall end to end with the test encoder: it follows the index, closes vocabulary gaps,
keeps isolation, encodes each text once, and never fails a prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import Message
from reverie.config.sections import ModelConfig, RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.memory.recall.dense.encoder import HashingEncoder
from reverie.memory.recall.dense.retriever import (
    PER_QUERY,
    PER_QUERY_CHARS,
    QUERY_CHARS,
    DenseRetriever,
    query_text,
)
from reverie.storage.folder.vectors import SqliteVectorRows
from reverie.testing.parts import recaller_of

WINDOW = Config(
    model=ModelConfig(context_window=4096, max_output_tokens=1024),
    recall=RecallConfig(embeddings="off"),  # the fixture attaches the test encoder
)
FACT = "We finally adopted a beagle puppy from the shelter on Saturday."
QUESTION = "What kind of dog did we get?"
CHATTER = "Lovely weather again today, we walked along the river after lunch."


@pytest.fixture
def encoder() -> HashingEncoder:
    # The planted vocabulary gap: "dog" and "beagle" share their dimensions.
    return HashingEncoder(synonyms={"dog": "beagle"})


@pytest.fixture
def engine_config() -> Config:
    return WINDOW  # the shared ``engine`` fixture, with the test encoder (below)


@pytest.fixture
def engine_dense(encoder: HashingEncoder) -> HashingEncoder:
    return encoder


def _dense(engine: MemoryEngine) -> DenseRetriever:
    assert engine.dense is not None
    return engine.dense


def _chat(engine: MemoryEngine, key: str, turns: int) -> None:
    for number in range(turns):
        engine.record(key, [Message(role="user", content=f"{CHATTER} (day {number})")])


def test_a_fact_sharing_no_word_with_the_question_is_recalled_by_meaning(
    engine: MemoryEngine,
) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 60)

    with_dense = engine.recall(QUESTION, session="tg:ann")
    recaller_of(engine).sources = ()
    lexical = engine.recall(QUESTION, session="tg:ann")

    assert FACT in [item.text for item in with_dense.items]
    assert "dense" in next(i for i in with_dense.items if i.text == FACT).why
    assert FACT not in [item.text for item in lexical.items]
    assert with_dense.tokens <= with_dense.budget


def test_search_finds_by_meaning_too(engine: MemoryEngine) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    engine.record("tg:bob", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 20)
    engine.index_vectors()

    hits = engine.search(QUESTION, session_key="tg:ann", limit=3)
    plain = engine.index.search(QUESTION, session_key="tg:ann", limit=3)

    assert hits[0].snippet == FACT
    assert (hits[0].session_key, hits[0].message_index) == ("tg:ann", 0)
    assert FACT not in [hit.snippet for hit in plain]


def test_another_sessions_fact_is_never_recalled(engine: MemoryEngine) -> None:
    engine.record("tg:bob", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 10)

    found = _dense(engine).nearest(QUESTION, limit=40, session_key="tg:ann")
    recalled = engine.recall(QUESTION, session="tg:ann")

    assert FACT not in [c.text for c in found]
    assert FACT not in [item.text for item in recalled.items]
    assert {c.session_key for c in found} == {"tg:ann"}


def test_each_text_is_encoded_once_as_items_are_indexed(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    _chat(engine, "tg:ann", 20)
    assert engine.index_vectors() == 20
    engine.recall(QUESTION, session="tg:ann")
    first = encoder.encoded

    for number in range(3):
        engine.record("tg:ann", [Message(role="user", content=f"New this week ({number})")])
    engine.recall(QUESTION, session="tg:ann")
    engine.recall(QUESTION, session="tg:ann")

    assert first == 20 + 1  # the messages and the question
    assert encoder.encoded == first + 3  # the new messages; the question's vector is kept
    assert engine.index_vectors() == 0


def test_a_repeated_text_is_encoded_once_and_each_item_still_gets_its_vector(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    for key in ("tg:ann", "tg:bob"):
        for _ in range(3):
            engine.record(key, [Message(role="user", content="ok thanks!")])
    engine.record("tg:bob", [Message(role="user", content=CHATTER)])

    assert engine.index_vectors() == 7
    assert encoder.encoded == 2
    assert _dense(engine).repeated == 5
    assert len(_dense(engine).store) == 7
    found = _dense(engine).nearest("ok thanks!", limit=5, session_key="tg:bob")
    assert [c.text for c in found][:3] == ["ok thanks!"] * 3


def test_a_query_encodes_a_few_new_items_and_the_rest_waits_for_a_bulk_catch_up(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 30)
    engine.record("tg:ann", [Message(role="user", content="my locker number is 4817")])

    recalled = engine.recall("locker number?", session="tg:ann")
    waiting = _dense(engine).pending()
    status = engine.status().recall

    assert encoder.encoded == PER_QUERY + 1  # and the question
    assert "my locker number is 4817" in [item.text for item in recalled.items]  # lexically
    assert waiting == 32 - PER_QUERY
    assert status.endswith(f"; {waiting} items await encoding (reverie index)")
    assert engine.index_vectors() == waiting
    assert engine.status().recall == "BM25 + dense (hashing-test)"


def test_a_prompt_encodes_its_question_once(engine: MemoryEngine, encoder: HashingEncoder) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 60)
    engine.index_vectors()
    before = encoder.encoded

    prompt = engine.prompt("tg:ann", QUESTION)
    engine.prompt("tg:ann", QUESTION)

    assert FACT in [item.text for item in prompt.recalled]
    assert encoder.encoded == before + 1


def test_a_query_leaves_a_long_item_for_the_bulk_catch_up(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    dense = _dense(engine)
    log = "the build log says " + "error " * 400
    engine.record("tg:ann", [Message(role="user", content=log)])
    _chat(engine, "tg:ann", 6)

    first = dense.catch_up(per_call=PER_QUERY, chars=PER_QUERY_CHARS)
    second = dense.catch_up(per_call=PER_QUERY, chars=PER_QUERY_CHARS)
    waiting = dense.pending()
    bulk = engine.index_vectors()

    assert (first, second) == (PER_QUERY, 2)  # the short ones; the long one waits
    assert waiting == 1
    assert bulk == 1
    assert dense.pending() == 0
    assert encoder.encoded == 7
    assert dense.nearest(log, limit=1, session_key="tg:ann")[0].text == log


def test_compact_and_dream_encode_the_backlog(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    _chat(engine, "tg:ann", 12)
    engine.compact("tg:ann")
    after_compact = encoder.encoded
    _chat(engine, "tg:ann", 5)
    engine.dream(trigger="test")

    assert after_compact >= 12
    assert _dense(engine).pending() == 0


def test_ingest_ends_with_every_item_encoded(engine: MemoryEngine, encoder: HashingEncoder) -> None:
    examples = Path(__file__).parents[2] / "examples"

    report = engine.ingest([examples / "conversations.json"])

    assert report.messages_added > 10
    assert _dense(engine).pending() == 0
    assert encoder.encoded >= report.messages_added


def test_a_long_query_is_cut_to_its_start_and_end() -> None:
    long = "Here is my log. " + "error line " * 200 + "So what broke the build on Friday?"

    cut = query_text(long)

    assert len(cut) <= QUERY_CHARS + 4
    assert cut.startswith("Here is my log.")
    assert cut.endswith("So what broke the build on Friday?")
    assert query_text("  short   question ") == "short question"


def test_a_rebuilt_search_index_costs_a_scan_not_an_encoding(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    engine.record("tg:ann", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 20)
    engine.index_vectors()
    engine.recall(QUESTION, session="tg:ann")
    before = encoder.encoded

    engine.index.rebuild()
    found = _dense(engine).nearest(QUESTION, limit=3, session_key="tg:ann")

    assert encoder.encoded == before  # nothing: the question's vector is kept too
    assert found[0].text == FACT
    assert len(_dense(engine).store) == 21


def test_a_store_that_cannot_be_written_leaves_recall_lexical(engine: MemoryEngine) -> None:
    engine.record("tg:ann", [Message(role="user", content="my dog Biscuit")])
    rows = _dense(engine).store.rows
    assert isinstance(rows, SqliteVectorRows)
    rows.path.mkdir(parents=True)  # a folder where the file should be

    recalled = engine.recall("Biscuit", session="tg:ann")

    assert [item.text for item in recalled.items] == ["my dog Biscuit"]


def test_catch_up_stops_after_per_call_items_and_resumes(
    engine: MemoryEngine, encoder: HashingEncoder
) -> None:
    _chat(engine, "tg:ann", 600)
    dense = _dense(engine)

    first = dense.catch_up(per_call=100)
    rest = dense.catch_up()

    assert first == 100
    assert first + rest == 600 == encoder.encoded


def test_forget_purge_leaves_neither_the_vector_nor_the_hash_of_the_forgotten_text(
    engine: MemoryEngine,
) -> None:
    from reverie.memory.recall.dense.vectors import text_hash
    from reverie.storage.folder.vectors import VECTORS_PATH

    engine.record("tg:ann", [Message(role="user", content=FACT)])
    _chat(engine, "tg:ann", 3)
    assert FACT in [item.text for item in engine.recall(QUESTION, session="tg:ann").items]
    vectors = Path(engine.location) / VECTORS_PATH
    assert text_hash(FACT) in vectors.read_bytes()

    report = engine.forget("adopted a beagle puppy", purge=True)
    assert report.purge is not None
    assert report.purge.clean, report.purge.leftovers

    recalled = engine.recall(QUESTION, session="tg:ann")  # the store opens again, refilled
    assert FACT not in [item.text for item in recalled.items]
    for path in vectors.parent.glob(vectors.name + "*"):
        assert text_hash(FACT) not in path.read_bytes(), path
