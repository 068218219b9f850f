"""Ranking steps past BM25: names out of the index query, questions about the present, RRF."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from reverie import Message
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.hits import Candidate
from reverie.engine.facade import MemoryEngine
from reverie.memory.recall import RankedSource, RecallOptions, fuse
from reverie.memory.recall.dates import without_dates
from reverie.memory.recall.ranking import Ranked, Signals, rank
from reverie.memory.recall.terms import QueryTerms
from reverie.testing.parts import recaller_of

WINDOW = Config(model=ModelConfig(context_window=4096, max_output_tokens=1024))


def _candidate(text: str, *, index: int, day: int, key: str = "cli:a") -> Candidate:
    return Candidate(
        kind="message",
        score=1.0,
        text=text,
        timestamp=datetime(2026, 5, day, 12, 0, tzinfo=UTC),
        session_key=key,
        cursor=None,
        message_index=index,
        role="user",
    )


class ListSource:
    """A fake ranker: returns the candidates it was given, and records what it was asked."""

    name = "fake"
    weight = 1.0

    def __init__(self, found: list[Candidate]) -> None:
        self.found = found
        self.asked: list[tuple[str, str | None]] = []

    def ranked(self, query: str, *, limit: int, scope: str | None) -> list[Candidate]:
        self.asked.append((query, scope))
        return self.found[:limit]


def test_names_are_searched_only_when_the_query_has_nothing_else() -> None:
    assert QueryTerms.of("What is Felix allergic to?").searched == ("allergic",)
    assert QueryTerms.of("Tell me about Felix").searched == ("felix",)


@pytest.mark.parametrize(
    ("text", "present"),
    [
        ("Where does Nora live now?", True),
        ("Is she still at Halden Labs?", True),
        ("王芳现在住在哪里？", True),
        ("Where did Nora live in May?", False),
        ("王芳以前住在哪里？", False),
    ],
)
def test_questions_about_the_present_are_marked(text: str, present: bool) -> None:
    assert QueryTerms.of(text).present is present


def test_a_question_about_the_present_prefers_the_newer_of_two_matches() -> None:
    old = _candidate("our flat in Porto is tiny", index=0, day=1)
    new = _candidate("we now live in Leeds, the flat is bigger", index=9, day=20)
    terms = ("flat",)

    now = list(rank([old, new], Signals(terms=terms, keys=frozenset(), present=True), _bm25()))
    then = list(rank([old, new], Signals(terms=terms, keys=frozenset()), _bm25(present=0.0)))

    assert now[0].candidate.message_index == 9
    assert {r.score for r in then} == {1.0}


def test_reciprocal_rank_lifts_items_both_lists_hold_and_admits_new_ones() -> None:
    a, b, c = (_candidate(t, index=i, day=1) for i, t in enumerate(("a", "b", "c")))
    lexical = [Ranked(candidate=x, score=1.0, why=("x",)) for x in (a, b)]

    fused = fuse(lexical, [[c, b]])

    assert [r.candidate.message_index for r in fused] == [1, 0, 2]
    assert fused[0].why == ("x",)
    assert fused[2].why == ("fused",)
    named = fuse(lexical, [[c, b]], weights=(1.0, 2.0), names=["dense"])
    assert [r.candidate.message_index for r in named] == [1, 2, 0]
    assert [r.why for r in named] == [("x", "dense"), ("dense",), ("x",)]
    assert fuse(lexical, []) == [
        Ranked(candidate=a, score=1 / 61, why=("x",)),
        Ranked(candidate=b, score=1 / 62, why=("x",)),
    ]


@pytest.fixture
def engine_config() -> Config:
    return WINDOW  # the shared ``engine`` fixture opens with these settings


def _say(engine: MemoryEngine, key: str, *texts: str) -> None:
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    for number, text in enumerate(texts):
        when = start + timedelta(days=number)
        engine.record(key, [Message(role="user", content=text, timestamp=when)])


def test_greetings_naming_the_person_do_not_crowd_the_recall(engine: MemoryEngine) -> None:
    greetings = [f"Morning Felix! ({n})" for n in range(30)]
    _say(engine, "cli:a", "The doctor says I am allergic to kiwi.", *greetings)

    texts = [
        item.text for item in engine.recall("What is Felix allergic to?", session="cli:a").items
    ]

    assert texts == ["The doctor says I am allergic to kiwi."]


def test_a_fused_source_adds_what_words_miss_but_never_another_sessions_item(
    engine: MemoryEngine,
) -> None:
    _say(engine, "cli:a", "We brought home a beagle puppy, we call him Ziggy.")
    _say(engine, "cli:b", "My dog Rex is a secret.")
    puppy = _candidate("We brought home a beagle puppy, we call him Ziggy.", index=0, day=1)
    secret = _candidate("My dog Rex is a secret.", index=0, day=1, key="cli:b")
    source = ListSource([secret, puppy])
    recaller_of(engine).sources = (source,)

    texts = [item.text for item in engine.recall("What breed is my dog?", session="cli:a").items]

    assert texts == ["We brought home a beagle puppy, we call him Ziggy."]
    assert source.asked == [("What breed is my dog?", "cli:a")]


def test_recall_works_with_no_source_fused(engine: MemoryEngine) -> None:
    _say(engine, "cli:a", "We brought home a beagle puppy, we call him Ziggy.")

    assert recaller_of(engine).sources == ()
    assert engine.recall("What breed is my dog?", session="cli:a").items == ()
    assert len(engine.recall("the beagle puppy", session="cli:a").items) == 1


def _bm25(present: float = 0.3) -> RecallOptions:
    return RecallOptions(cover_boost=0, key_boost=0, expand_boost=0, present_boost=present)


def _typed(source: ListSource) -> RankedSource:
    return source  # mypy checks that the fake is a RankedSource


def test_the_wording_of_a_resolved_date_is_not_searched_as_words() -> None:
    asked = datetime(2026, 6, 20, tzinfo=UTC)

    assert without_dates("What did Felix tell me on June 17?", asked).split() == [
        "What",
        "did",
        "Felix",
        "tell",
        "me",
        "on",
        "?",
    ]
    assert "March" in without_dates("Where is the March meeting?", asked)
    assert "跟我" in without_dates("李明4月22日跟我说了什么？", asked)
    assert "4月" not in without_dates("李明4月22日跟我说了什么？", asked)


def test_a_dated_question_recalls_that_day_not_items_sharing_its_numbers(
    engine: MemoryEngine,
) -> None:
    _say(engine, "cli:a", "Gate 17 is closed for repairs.", "We adopted a kitten today!")
    asked = datetime(2026, 3, 10, tzinfo=UTC)

    found = recaller_of(engine).recall(
        "What happened on March 2?", max_tokens=500, scope="cli:a", now=asked
    )

    assert [item.text for item in found.items] == ["We adopted a kitten today!"]


def test_an_item_that_is_itself_a_question_ranks_below_a_statement() -> None:
    told = _candidate("At home we now have two goldfish and a cat.", index=0, day=1)
    asked = _candidate("Anything new at home?", index=1, day=2)
    signals = Signals(terms=("home",), keys=frozenset())

    ranked = list(rank([told, asked], signals, _bm25()))
    plain = list(rank([told, asked], signals, replace(_bm25(), question_penalty=0)))

    assert [r.candidate.message_index for r in ranked] == [0, 1]
    assert [r.candidate.message_index for r in plain] == [1, 0]  # equal scores: newest first
