"""Fact lines: parsing, rendering, date tags; token similarity."""

from __future__ import annotations

from datetime import date

import pytest

from reverie.memory.modelfree import NOTHING, Fact, parse_facts, render_facts
from reverie.memory.modelfree.facts import (
    SinceTag,
    as_of_date,
    parse_fact_line,
    since_tag,
    with_as_of,
    with_since,
    without_tags,
)
from reverie.memory.modelfree.sentences import sentences
from reverie.memory.modelfree.similarity import fact_tokens, jaccard, normalise, similarity
from reverie.memory.modelfree.transcript import parse_transcript


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        ("- [durable] User: I live in Porto.", Fact(mark="durable", text="User: I live in Porto.")),
        ("* [PERMANENT] Never use emojis", Fact(mark="permanent", text="Never use emojis")),
        ("[ephemeral] at home today", Fact(mark="ephemeral", text="at home today")),
        ("- plain bullet", Fact(mark="durable", text="plain bullet")),
        ("plain line", Fact(mark="durable", text="plain line")),
        ("- [fact] odd mark", Fact(mark="durable", text="[fact] odd mark")),
    ],
)
def test_fact_lines_parse_tolerantly(line: str, fact: Fact) -> None:
    assert parse_fact_line(line) == fact


@pytest.mark.parametrize("line", ["", "   ", "(nothing)", "- (nothing)", "# Heading"])
def test_blank_lines_nothing_and_headings_are_not_facts(line: str) -> None:
    assert parse_fact_line(line) is None


def test_render_and_parse_round_trip() -> None:
    facts = [Fact(mark="durable", text="a b c"), Fact(mark="correction", text="x y z")]
    assert list(parse_facts(render_facts(facts))) == facts
    assert render_facts([]) == NOTHING


def test_as_of_tags() -> None:
    tagged = with_as_of("User: away today.", date(2026, 11, 30))
    assert tagged == "User: away today (as of 2026-11-30)"
    assert as_of_date(tagged) == date(2026, 11, 30)
    assert Fact(mark="ephemeral", text=tagged).as_of == date(2026, 11, 30)
    assert as_of_date("no tag") is None
    assert as_of_date("bad (as of 2026-13-45)") is None


def test_similarity_ignores_prefixes_stop_words_and_plurals() -> None:
    assert normalise("User:  I Prefer Tea. ") == "i prefer tea"
    assert fact_tokens("User: I prefer trains to flights") == fact_tokens(
        "I prefer train to flight"
    )
    assert similarity("I live in Lisbon", "Actually, I live in Porto, not Lisbon") > 0.5
    assert similarity("我住在上海", "其实我住在杭州，不是上海") >= 0.25
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_transcript_parsing_keeps_multiline_text_and_ignores_a_preamble() -> None:
    said = parse_transcript(
        "preamble\n[2026-11-30 10:00] USER: one\n\ntwo\nTOOL RESULT (x): r\n  USER: z\n"
        '[2026-11-30 10:00] ASSISTANT called f({"a": 1})\n[2026-99-30 10:00] ASSISTANT: late'
    )
    assert [(u.role, u.text) for u in said] == [
        ("user", "one\n\ntwo"),
        ("tool", "r\nUSER: z"),
        ("assistant", "late"),
    ]
    assert said[0].day == date(2026, 11, 30)
    assert said[2].day is None


def test_since_tags() -> None:
    text = with_since("Lives in Porto (before: Lisbon)", date(2026, 4, 20), "Lisbon")
    assert text == "Lives in Porto (since 2026-04-20; before: Lisbon)"
    assert since_tag(text) == SinceTag(day=date(2026, 4, 20), before="Lisbon")
    assert since_tag("Lives in Porto (with a view)") is None
    assert without_tags(text) == "Lives in Porto"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm an architect, so I drew the layout.", ["I'm an architect", "I drew the layout."]),
        ("I moved in May and commute by train.", ["I moved in May", "I commute by train."]),
        ("My physio is Dr. Okafor in Mitte.", ["My physio is Dr. Okafor in Mitte."]),
        ("Next month I'm starting a course.", ["I'm starting a course next month."]),
        ("Big news: I got the job at Acme!", ["I got the job at Acme!"]),
        ("另外我上个月搬到了滨江区。", ["我上个月搬到了滨江区。"]),
    ],
)
def test_sentences_split_clauses_keep_abbreviations_and_move_time_phrases(
    text: str, expected: list[str]
) -> None:
    assert list(sentences(text)) == expected
