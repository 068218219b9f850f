"""Neighbouring turns: the reply next to a strong hit joins recall, within its session only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from reverie import Message
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.testing.parts import recaller_of

WINDOW = Config(model=ModelConfig(context_window=8192, max_output_tokens=1024))
LEAD = "Anything new at home these days?"
ANSWER = "We adopted a beagle called Biscuit last weekend!"


@pytest.fixture
def engine_config() -> Config:
    return WINDOW  # the shared ``engine`` fixture opens with these settings


def _talk(engine: MemoryEngine, key: str) -> None:
    engine.record(
        key, [Message(role="user", content=LEAD), Message(role="assistant", content=ANSWER)]
    )
    for number in range(60):
        engine.record(
            key,
            [
                Message(role="user", content=f"The river walk was lovely again (day {number})."),
                Message(role="assistant", content=f"I reorganised the bookshelves ({number})."),
            ],
        )


def _recalled(engine: MemoryEngine, key: str, question: str) -> dict[str, tuple[str, ...]]:
    found = recaller_of(engine).recall(question, max_tokens=2_000, scope=key)
    return {item.text: item.why for item in found.items}


def test_the_reply_after_a_hit_is_recalled_with_its_neighbours_on(engine: MemoryEngine) -> None:
    _talk(engine, "tg:ann")
    question = "What is new at home?"

    off = _recalled(engine, "tg:ann", question)
    recaller_of(engine).options = replace(recaller_of(engine).options, neighbour_top=3)
    on = _recalled(engine, "tg:ann", question)

    assert LEAD in off
    assert ANSWER not in off
    assert on[ANSWER] == ("next to #m0@tg:ann",)


def test_a_neighbour_never_crosses_into_another_session(engine: MemoryEngine) -> None:
    _talk(engine, "tg:ann")
    engine.record("tg:bob", [Message(role="user", content="What is new at home, Bob?")])
    recaller_of(engine).options = replace(recaller_of(engine).options, neighbour_top=5)

    bob = _recalled(engine, "tg:bob", "What is new at home?")

    assert ANSWER not in bob
    assert LEAD not in bob


def test_a_turn_sharing_a_rare_word_with_a_hit_is_linked_to_it(engine: MemoryEngine) -> None:
    injury = "I twisted my knee badly playing football, on crutches for a bit."
    healed = "Physio cleared me today, the knee is fully healed!"
    engine.record("tg:ann", [Message(role="user", content=injury)])
    _talk(engine, "tg:ann")
    engine.record("tg:ann", [Message(role="user", content=healed)])
    _talk(engine, "tg:ann")
    question = "Has she recovered from the football injury?"

    recaller_of(engine).options = replace(recaller_of(engine).options, link_top=0)
    off = _recalled(engine, "tg:ann", question)
    recaller_of(engine).options = replace(recaller_of(engine).options, link_top=3)  # the default
    on = _recalled(engine, "tg:ann", question)

    assert injury in off
    assert healed not in off
    assert "linked by knee" in on[healed]
