"""Recall's steps for hard questions, on both backends: rare names, names as links, anchors.

A dated chat (``tests.recall.dated``) is played into one session of a folder workspace and
of a PostgreSQL workspace (the test cluster); each step is switched off to show it is what
brings the turn in, and its failure paths (a common name, an event no item tells of) change
nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from reverie.config.sections import RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.memory.recall.anchors import OPEN_DAYS, anchor_windows, anchored, with_anchors
from reverie.memory.recall.entities import rare_names, with_entities
from reverie.testing.parts import recaller_of
from tests.recall import dated

LEXICAL = Config(recall=RecallConfig(embeddings="off"))
"""Recall's own steps, no dense ranker fused in (it would reorder what the steps bring)."""


@pytest.fixture(params=["folder", "postgres"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    if request.param == "folder":
        opened = MemoryEngine.open(tmp_path / "ws", LEXICAL, environ={})
    else:
        pytest.importorskip("psycopg", reason="the postgres extra is not installed")
        from tests.postgres.conftest import new_workspace

        url = request.getfixturevalue("pg_url")
        opened = MemoryEngine.open(new_workspace(url, "hard"), LEXICAL, store=url, environ={})
    with opened:
        dated.play(opened)
        yield opened


def _ranked(memory: MemoryEngine, question: str) -> dict[str, tuple[str, ...]]:
    ranking = recaller_of(memory).ranking(question, scope=dated.KEY)
    return {r.candidate.text: r.why for r in ranking.items[:10]}


def _off(memory: MemoryEngine, **changes: object) -> None:
    recaller_of(memory).options = replace(recaller_of(memory).options, **changes)  # type: ignore[arg-type]


def test_a_rare_name_is_searched_on_its_own(memory: MemoryEngine) -> None:
    question = "What did Odile give Maya?"

    on = _ranked(memory, question)
    _off(memory, entity_rare=0)
    off = _ranked(memory, question)

    assert "odile" in on[dated.NEIGHBOUR]
    assert next(iter(on)) == dated.NEIGHBOUR
    assert dated.NEIGHBOUR not in off


def test_a_name_many_items_hold_is_not_an_entity(memory: MemoryEngine) -> None:
    index = recaller_of(memory)._index()

    assert rare_names(["odile", "maya"], index, at_most=6) == ("odile",)
    assert rare_names(["maya"], index, at_most=6) == ()
    assert rare_names(["maya"], index, at_most=12) == ("maya",)
    assert rare_names([], index, at_most=6) == ()
    assert rare_names(["odile"], index, at_most=0) == ()


def test_a_hits_name_links_the_turn_that_introduced_it(memory: MemoryEngine) -> None:
    question = "Who got hired at the bike shop?"

    on = _ranked(memory, question)
    _off(memory, link_names=False)
    off = _ranked(memory, question)

    assert next(iter(on)) == dated.HIRED
    assert "linked by ezra" in on[dated.STAYING]
    assert dated.STAYING not in off


def test_the_weeks_after_an_event_are_anchored_at_the_turn_telling_of_it(
    memory: MemoryEngine,
) -> None:
    question = "What did Maya get done in the two weeks after the jazz festival in Ghent?"

    on = _ranked(memory, question)
    _off(memory, anchors=False)
    off = _ranked(memory, question)

    assert "date" in on[dated.AFTER]
    assert dated.AFTER not in off
    assert dated.LATER not in on  # forty days on: past the span


def test_before_an_event_reaches_back_the_open_span(memory: MemoryEngine) -> None:
    index = recaller_of(memory)._index()

    (window,) = anchor_windows("What did Maya sell before moving to Heron Close?", index, dated.KEY)
    on = _ranked(memory, "What did Maya sell before moving to Heron Close?")

    start, end = window
    assert (end - start).days == OPEN_DAYS
    assert end.date() == dated.day(3).date()
    assert "date" in on[dated.BEFORE]


def test_names_no_item_holds_leave_the_pool_as_it_was(memory: MemoryEngine) -> None:
    index = recaller_of(memory)._index()
    pool = index.candidates(["grey"], limit=5, session_key=dated.KEY, context_weight=0)

    assert with_entities(pool, ["zebedee"], index, dated.KEY) == pool
    assert with_entities(pool, [], index, dated.KEY) == pool
    joined = with_entities(pool, ["odile"], index, dated.KEY)
    assert [c.text for c in joined] == [*(c.text for c in pool), dated.NEIGHBOUR]
    assert joined[-1].score == max(c.score for c in pool)


def test_no_phrase_or_no_event_anchors_nothing(memory: MemoryEngine) -> None:
    index = recaller_of(memory)._index()

    assert anchor_windows("What did Maya get done in Ghent?", index, dated.KEY) == ()
    assert anchor_windows("What happened after the concert in Oslo?", index, dated.KEY) == ()
    assert anchor_windows("What happened after the wedding of Priya in Ghent?", index, None) == ()
    assert anchor_windows("Anything after ?", index, dated.KEY) == ()
    assert anchor_windows("After the jazz festival?", index, "tg:other") == ()
    assert len(anchor_windows("After the jazz festival?", index, dated.KEY)) == 1
    assert anchor_windows("Who looked after the jazz festival?", index, dated.KEY) == ()
    assert len(anchor_windows("What did I do after the jazz festival?", index, dated.KEY)) == 1


def test_an_anchored_question_keeps_its_own_words_and_its_event(memory: MemoryEngine) -> None:
    index = recaller_of(memory)._index()
    question = "What did Maya get done in the two weeks after the jazz festival in Ghent?"

    events = anchored(question, index, dated.KEY)
    nothing = anchored("What did Maya get done in Ghent?", index, dated.KEY)

    assert [a.text for a in events.anchors] == [dated.TRIP]
    assert "festival" not in events.rest
    assert "get done" in events.rest
    assert (nothing.windows, nothing.anchors, nothing.rest) == ((), (), nothing.rest)
    assert nothing.rest == "What did Maya get done in Ghent?"


def test_the_events_item_leads_the_pool_once(memory: MemoryEngine) -> None:
    index = recaller_of(memory)._index()
    pool = index.candidates(["ghent", "grey"], limit=8, session_key=dated.KEY, context_weight=0)
    (trip,) = anchored("after the jazz festival", index, dated.KEY).anchors

    joined = with_anchors(pool, [trip])

    assert joined[0].text == dated.TRIP
    assert [c.text for c in joined].count(dated.TRIP) == 1
    assert joined[0].score == max(c.score for c in pool)
    assert with_anchors(pool, []) == pool
