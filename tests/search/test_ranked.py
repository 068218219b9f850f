"""``MemoryEngine.search`` ranks as recall does, and plain BM25 still answers what it cannot."""

from __future__ import annotations

from datetime import timedelta

import pytest

from reverie import Message
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from tests.conftest import StepClock

WINDOW = Config(model=ModelConfig(context_window=4096, max_output_tokens=1024))
ANSWER = "Felix is allergic to sesame, so no tahini tonight."
CHATTER = ("Morning Felix!", "Felix says hi.", "Did Felix call you?", "Say hi to Felix from me.")


@pytest.fixture
def engine_config() -> Config:
    return WINDOW  # the shared ``engine`` fixture opens with these settings


def _say(engine: MemoryEngine, key: str, *texts: str) -> None:
    for text in texts:
        engine.record(key, [Message(role="user", content=text)])


def test_search_ranks_the_answer_above_greetings_that_plain_bm25_prefers(
    engine: MemoryEngine,
) -> None:
    _say(engine, "tg:ann", ANSWER, *CHATTER)

    ranked = engine.search("Felix allergies", session_key="tg:ann", limit=3)
    plain = engine.index.search("Felix allergies", session_key="tg:ann", limit=3)

    assert ANSWER in [hit.snippet.replace("**", "") for hit in ranked]
    assert ANSWER not in [hit.snippet.replace("**", "") for hit in plain]
    assert ranked[0].score >= ranked[-1].score
    (answer,) = [hit for hit in ranked if "sesame" in hit.snippet]
    assert answer.snippet.startswith("**Felix** is **allergic** to sesame")
    assert (answer.kind, answer.session_key, answer.message_index) == ("message", "tg:ann", 0)


def test_a_reference_returns_its_item_and_function_words_fall_back_to_bm25(
    engine: MemoryEngine,
) -> None:
    _say(engine, "tg:ann", ANSWER, *CHATTER)

    (by_ref,) = engine.search("#m2@tg:ann")
    by_words = engine.search("did you", session_key="tg:ann")

    assert by_ref.snippet == CHATTER[1]
    assert [hit.snippet for hit in by_words] == ["**Did** Felix call **you**?"]
    assert by_words[0].score == 0.0  # found by plain BM25, after anything ranked


def test_search_keeps_to_its_session_and_never_shows_internal_sessions(
    engine: MemoryEngine,
) -> None:
    _say(engine, "tg:ann", "My locker code is 4817.")
    _say(engine, "tg:bob", "Bob's locker code is 5521.")
    _say(engine, "dream:run", "locker code noted by the dream job")

    ann = engine.search("locker code", session_key="tg:ann")
    everyone = engine.search("locker code")

    assert [hit.session_key for hit in ann] == ["tg:ann"]
    assert {hit.session_key for hit in everyone} == {"tg:ann", "tg:bob"}


def test_a_time_window_filters_the_ranking_and_bm25_fills_the_list(
    engine: MemoryEngine, clock: StepClock
) -> None:
    _say(engine, "tg:ann", "The boiler broke again.")
    clock.advance(timedelta(days=3))
    start = clock.now
    _say(engine, "tg:ann", "The plumber fixed the boiler.", "Boiler pressure is fine now.")

    hits = engine.search("boiler", session_key="tg:ann", since=start)

    assert sorted(hit.message_index or 0 for hit in hits) == [1, 2]
    assert all(hit.timestamp is not None and hit.timestamp >= start for hit in hits)
    with pytest.raises(ValueError, match="naive"):
        engine.search("boiler", since=start.replace(tzinfo=None))
