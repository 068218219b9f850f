"""Recall's pure parts: query terms, named days, ranking, excerpts, source references."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from reverie.core.hits import Candidate
from reverie.core.refs import SourceRef, history_ref, message_ref, parse_ref
from reverie.memory.recall.dates import DaySpan, resolve
from reverie.memory.recall.items import ELLIPSIS, excerpt
from reverie.memory.recall.ranking import RecallOptions, Signals, rank
from reverie.memory.recall.terms import QueryTerms

TUESDAY = datetime(2026, 5, 12, 10, 0, tzinfo=UTC)


def _candidate(text: str, score: float = 1.0, index: int = 0, day: int = 1) -> Candidate:
    return Candidate(
        kind="message",
        score=score,
        text=text,
        timestamp=datetime(2026, 5, day, 12, 0, tzinfo=UTC),
        session_key="cli:a",
        cursor=None,
        message_index=index,
        role="user",
    )


def test_query_terms_drop_function_words_and_mark_names_numbers_and_quotes() -> None:
    terms = QueryTerms.of('What did Mia say about "the blue door" and room 4817?')

    assert terms.terms == ("the blue door", "mia", "4817", "blue", "door", "room")
    assert terms.keys == {"the blue door", "mia", "4817"}
    assert terms.names == {"mia"}


def test_a_capitalised_word_opening_a_sentence_is_not_a_name() -> None:
    assert QueryTerms.of("Coffee or tea? Tea, please.").names == frozenset()


def test_chinese_queries_become_two_character_words_without_function_characters() -> None:
    terms = QueryTerms.of("我对什么食物过敏？")

    assert "食物" in terms.terms
    assert "过敏" in terms.terms
    assert "什么" not in terms.terms


def test_a_query_of_function_words_only_has_no_terms() -> None:
    assert QueryTerms.of("what did you say to me?").terms == ()


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("what did I do last Friday", date(2026, 5, 8), date(2026, 5, 8)),
        ("yesterday", date(2026, 5, 11), date(2026, 5, 11)),
        ("three days ago", date(2026, 5, 8), date(2026, 5, 10)),
        ("last week", date(2026, 5, 4), date(2026, 5, 10)),
        ("on 3 May", date(2026, 5, 3), date(2026, 5, 3)),
        ("May 20th", date(2025, 5, 20), date(2025, 5, 20)),
        ("2026-04-01", date(2026, 4, 1), date(2026, 4, 1)),
        ("in March", date(2026, 3, 1), date(2026, 3, 31)),
        ("我上周五去了哪里", date(2026, 5, 8), date(2026, 5, 8)),
        ("昨天", date(2026, 5, 11), date(2026, 5, 11)),
        ("李明4月22日跟我说了什么", date(2026, 4, 22), date(2026, 4, 22)),
        ("上个月", date(2026, 4, 1), date(2026, 4, 30)),
    ],
)
def test_named_days_resolve_against_the_time_of_asking(text: str, first: date, last: date) -> None:
    assert DaySpan(first=first, last=last) in resolve(text, TUESDAY)


def test_text_without_a_date_names_no_day() -> None:
    assert resolve("what is my locker code", TUESDAY) == ()
    assert resolve("2026-02-30 is not a day", TUESDAY) == ()


def test_ranking_prefers_items_on_the_named_day_and_with_the_key_terms() -> None:
    signals = Signals(
        terms=("run", "4817"), keys=frozenset({"4817"}), spans=resolve("last Friday", TUESDAY)
    )
    plain = _candidate("a morning run", score=2.0, index=0, day=1)
    dated = _candidate("a long run on the beach", score=1.0, index=1, day=8)
    keyed = _candidate("run 4817", score=1.0, index=2, day=2)

    ranked = list(rank([plain, dated, keyed], signals, RecallOptions()))

    assert [r.candidate.message_index for r in ranked] == [2, 1, 0]
    assert "date" in ranked[1].why


def test_near_duplicates_are_dropped_unless_asked_not_to() -> None:
    signals = Signals(terms=("weather",), keys=frozenset())
    items = [
        _candidate("the weather was grey and cold all week long", index=0),
        _candidate("The weather was grey and cold all week long!", index=1),
        _candidate("the weather turned sunny on saturday morning", index=2),
    ]

    kept = list(rank(items, signals, RecallOptions()))
    every = list(rank(items, signals, RecallOptions(dedup=False)))

    assert len(kept) == 2
    assert len(every) == 3


def test_excerpts_are_verbatim_windows_around_the_first_match() -> None:
    text = "x" * 1000 + " locker code 4817 " + "y" * 1000

    short = excerpt(text, ("locker",), 200)

    assert short.startswith(ELLIPSIS)
    assert short.endswith(ELLIPSIS)
    assert "locker code 4817" in short
    assert short.strip(ELLIPSIS) in text
    assert excerpt("short", ("locker",), 200) == "short"


def test_source_references_round_trip() -> None:
    for ref in (history_ref(12), message_ref("tg:alice:7", 45)):
        assert parse_ref(str(ref)) == ref
    assert str(message_ref("cli:default", 3)) == "#m3@cli:default"
    assert parse_ref(" #h12 ") == SourceRef(kind="history", cursor=12)
    assert parse_ref("h12") is None
    assert parse_ref("#m12") is None
