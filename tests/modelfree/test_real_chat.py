"""Curation that survives real chat: labels, vocatives, encouragement, requests, run-ons, merges.

Each rule is checked on sentences shaped like what people send, through the summariser (the
messages path), the curator (plain lines as an import brings them) or both.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from reverie.core.durable import MEMORY_FILE_NAMES
from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message
from reverie.memory.modelfree import ModelFreeCurator, extract_facts

WHEN = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
TODAY = date(2026, 12, 1)


def said(*texts: str, name: str | None = None) -> list[str]:
    """The fact texts the summariser finds in user messages."""
    messages = [Message(role="user", content=t, timestamp=WHEN, name=name) for t in texts]
    return [f.text for f in extract_facts(messages)]


def pair(*lines: tuple[str, str]) -> list[str]:
    """The fact texts of a chat between two named people (the second is the assistant)."""
    names = sorted({who for who, _ in lines})
    messages = [
        Message(
            role="user" if who == names[0] else "assistant",
            content=text,
            timestamp=WHEN,
            name=who,
        )
        for who, text in lines
    ]
    return [f.text for f in extract_facts(messages)]


def durable(*contents: str) -> list[str]:
    """The bullets the curator writes from plain history lines."""
    entries = [
        HistoryEntry(cursor=n, timestamp="2026-11-30 10:00", content=text)
        for n, text in enumerate(contents, start=1)
    ]
    result = ModelFreeCurator().curate({}, entries, today=TODAY)
    return [
        line[2:]
        for name in MEMORY_FILE_NAMES
        for line in result.new_texts[name].splitlines()
        if line.startswith("- ")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Cool, thanks Maria",
        "Congrats, Tom!",
        "Hey Sam, long time no chat!",
        "Wow Ana, that's stunning",
        "Haha Rafael you're the best",
        "Oh Leila, that sounds amazing",
        "Catch you later Rafael!",
        "heyyy Keiko 👋",
        "小林，好久不见！",
        "谢谢王芳\uff5e",
        "恭喜恭喜陈晨！",
    ],
)
def test_words_addressed_to_someone_by_name_are_chatter(text: str) -> None:
    assert pair(("Maria", text), ("Tom", "Thanks!")) == []
    assert said(text) == []
    assert durable(f"- [durable] {text}") == []


@pytest.mark.parametrize(
    "text",
    [
        "Keep it up!",
        "You got this 💪",
        "I'm up for the challenge!",
        "Proud of you!",
        "Hang in there, it gets easier",
        "加油！你可以的💪",
    ],
)
def test_encouragement_is_chatter_and_never_becomes_a_rule(text: str) -> None:
    assert said(text) == []
    assert pair(("Ana", text), ("Sam", "ok")) == []


@pytest.mark.parametrize(
    "line", ["Is up for the challenge", "Keep it up", "Jonas is up for the challenge"]
)
def test_subject_less_encouragement_in_older_history_is_not_promoted(line: str) -> None:
    assert durable(f"- [durable] {line}") == []
    assert durable(f"- [permanent] User rule: {line}") == []


def test_a_pasted_transcript_becomes_facts_about_each_speaker_without_labels() -> None:
    transcript = "\n".join(
        [
            "Rafael: Hey Sam, long time no chat! ❤️",
            "Sam: Keep it up!",
            "Sam: I speak Portuguese with my grandparents.",
            "Rafael: [image] look at this view! I moved to Lyon two years ago for work.",
            "Sam: Haha Rafael you're the best My favourite dish is ramen.",
            "Rafael: Catch you later Sam!",
        ]
    )
    facts = said(transcript)
    assert facts == [
        "User: Sam speaks Portuguese with their grandparents",
        "User: Rafael moved to Lyon two years ago for work",
        "User: Sam's favourite dish is ramen",
    ]


def test_one_labelled_line_or_a_labelled_note_is_not_taken_for_a_transcript() -> None:
    assert said("Note: the backend is Python\nTodo: ship on Friday") != []
    assert said("Sam: I moved to Lyon in 2024.") == ["User: Sam moved to Lyon in 2024"]


def test_a_line_copied_with_its_speaker_label_is_read_as_that_persons_words() -> None:
    assert durable("- Maria: I moved to Lyon two years ago") == [
        "Maria moved to Lyon two years ago"
    ]
    assert durable("- Sam: aw thanks Rafael 🥰") == []
    assert durable("- Backend: Python with FastAPI") == ["Backend: Python with FastAPI"]


@pytest.mark.parametrize(
    "text",
    [
        "Deploy on Thursday please",
        "Send me the meeting notes tomorrow pls",
        "Book the usual table for Friday please",
        "Remind me to call the dentist",
        "周四部署一下，谢谢",
        "记得提醒我明天交报告",
    ],
)
def test_a_request_is_not_a_fact(text: str) -> None:
    assert said(text) == []
    assert durable(f"- [durable] {text}") == []


def test_a_request_does_not_sit_beside_the_fact_it_resembles() -> None:
    lines = durable("- Deploys go out on Thursdays\n- Deploy on Thursday please")
    assert lines == ["Deploys go out on Thursdays"]


def test_remember_that_becomes_the_fact_inside_or_nothing() -> None:
    assert said("Remember that I prefer Celsius.") == ["User: Prefers Celsius"]
    assert durable("- Remember that the user prefers Celsius") == ["Prefers Celsius"]
    assert durable("- Remember that they prefer Celsius") == []
    assert said("记住我喜欢摄氏度") == ["User: 喜欢摄氏度"]


def test_a_fact_or_rule_with_please_in_it_stays_one_without_the_please() -> None:
    assert said("I'm vegetarian, so keep meal plans meat-free please.") == [
        "User: Is vegetarian, so keep meal plans meat-free"
    ]
    assert said("Always answer in English please") == ["User rule: Always answer in English"]
    assert said("Please keep your answers short and use bullet points.") == [
        "User rule: Keep your answers short and use bullet points"
    ]


def test_facts_run_on_after_chatter_are_still_found() -> None:
    facts = pair(
        ("Keiko", "Haha Jonas you're the best I'm allergic to shellfish. ❤️"),
        ("Jonas", "You got this 💪 I volunteer at the food bank on Saturdays"),
        ("Keiko", "Oh Jonas, that sounds amazing My sister Lena just started at Aalto."),
    )
    assert [f.split(": ", 1)[1] for f in facts] == [
        "Keiko is allergic to shellfish",
        "Jonas volunteers at the food bank on Saturdays",
        "Keiko's sister Lena just started at Aalto",
    ]
    assert said("坚持下去就好 我养了一只猫，叫豆豆。") == ["User: 养了一只猫，叫豆豆"]


def test_alike_lines_about_two_people_are_two_facts_and_a_repeat_is_merged() -> None:
    lines = durable("- Maria grew up in Cusco\n- Tom grew up in Cusco", "- Maria grew up in Cusco")
    assert sorted(lines) == ["Maria grew up in Cusco", "Tom grew up in Cusco"]
    merged = durable("- Deploys go out on Thursdays", "- Deploys go out on Thursdays at noon")
    assert merged == ["Deploys go out on Thursdays at noon"]


def test_a_chinese_label_that_is_not_a_person_and_english_after_chinese_are_kept_whole() -> None:
    assert said("更正一下：我女儿不是六岁，而是七岁。") == ["User: 女儿七岁 (before: 六岁)"]
    assert said("我在深圳做前端开发，主要用 React 和 TypeScript。")[-1].endswith("TypeScript")


def test_typed_without_apostrophes_small_talk_is_still_chatter() -> None:
    assert said("I cant believe its already Friday") == []
    assert said("I can't believe it's already Friday") == []
