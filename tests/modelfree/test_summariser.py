"""The model-free summariser: each extraction rule, secrets, dedupe, caps and (nothing)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie.messages import Message, ToolCall
from reverie.modelfree import NOTHING, Fact, ModelFreeSummariser, SummaryAttempt, extract_facts

WHEN = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)


def user(text: str) -> Message:
    return Message(role="user", content=text, timestamp=WHEN)


def lines(*texts: str) -> list[str]:
    return [fact.line for fact in extract_facts([user(text) for text in texts])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a backend engineer.", "- [durable] User: I'm a backend engineer."),
        (
            "I live in Lisbon with my partner.",
            "- [durable] User: I live in Lisbon with my partner.",
        ),
        ("I prefer trains to flights.", "- [durable] User: I prefer trains to flights."),
        ("I usually run before work.", "- [durable] User: I usually run before work."),
        ("My dog's name is Biscuit.", "- [durable] User: My dog's name is Biscuit."),
        (
            "I'm planning to learn Rust next year.",
            "- [durable] User: I'm planning to learn Rust next year.",
        ),
        ("我是一名设计师。", "- [durable] User: 我是一名设计师。"),
        ("我喜欢喝绿茶。", "- [durable] User: 我喜欢喝绿茶。"),
        ("我住在杭州西湖边。", "- [durable] User: 我住在杭州西湖边。"),
    ],
)
def test_statements_about_the_user_become_durable_facts(text: str, expected: str) -> None:
    assert lines(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Actually, the standup moved to Tuesdays.",
        "No, I meant the blue folder on the shared drive.",
        "The deadline is not Friday but Monday.",
        "不是周五而是周一交报告。",
        "其实我们的服务器在新加坡机房。",
    ],
)
def test_corrections_are_marked_correction(text: str) -> None:
    assert lines(text) == [f"- [correction] User correction: {text}"]


@pytest.mark.parametrize(
    "text",
    [
        "Always answer with a code example first.",
        "Never use emojis in replies.",
        "Don't summarise my messages back to me.",
        "Please reply in Portuguese from now on.",
        "Call me Sam.",
        "以后请用中文回答我。",
        "请用简体中文回答。",
        "不要用表情符号。",
    ],
)
def test_instructions_to_the_assistant_are_permanent(text: str) -> None:
    assert lines(text) == [f"- [permanent] User instruction: {text}"]


@pytest.mark.parametrize(
    "text",
    [
        "Let's go with SQLite for the prototype.",
        "We decided to ship the beta on the first of the month.",
        "就用这个方案吧。",
        "我们决定下个季度再上线新功能。",
    ],
)
def test_decisions_are_kept(text: str) -> None:
    (line,) = lines(text)
    assert line.startswith(("- [durable] Decided: ", "- [ephemeral] Decided: "))
    assert text.rstrip("。.") in line


def test_an_assistant_agreement_counts_but_other_assistant_text_does_not() -> None:
    messages = [
        Message(
            role="assistant", content="Agreed, we'll go with SQLite. Here is a long explanation."
        ),
        Message(role="assistant", content="I live in the cloud and I prefer tabs."),
    ]
    assert [f.line for f in extract_facts(messages)] == [
        "- [durable] Assistant agreed: Agreed, we'll go with SQLite."
    ]


@pytest.mark.parametrize(
    "text",
    [
        "The release of v2.4.1 is planned for 2026-12-14.",
        "Our office is at 42 Harbour Street, about 3 km from the station.",
        "The workshop with Dana Okafor starts at 10:30 on March 3.",
        "会议定在12月3日下午三点。",
    ],
)
def test_salient_specifics_are_kept(text: str) -> None:
    (line,) = lines(text)
    assert line.endswith(text) or text in line


@pytest.mark.parametrize(
    ("text", "day_word"),
    [
        ("I'm flying to Berlin tomorrow.", "tomorrow"),
        ("This week I work from the Porto office.", "This week"),
        ("我明天要去北京出差。", "明天"),
    ],
)
def test_time_bound_statements_are_ephemeral_with_their_date(text: str, day_word: str) -> None:
    (line,) = lines(text)
    assert line.startswith("- [ephemeral] User: ")
    assert day_word in line
    assert line.endswith("(as of 2026-11-30)")


@pytest.mark.parametrize(
    "text",
    [
        "Can you find me a hotel near Alfama?",
        "What time is it in Tokyo",
        "Find me three flights to Berlin in March.",
        "帮我查一下明天的天气。",
        "你觉得这个方案怎么样？",
        "ok thanks",
        "https://example.org/some/page",
    ],
)
def test_questions_requests_and_chatter_are_not_facts(text: str) -> None:
    assert lines(text) == []


@pytest.mark.parametrize(
    "secret_sentence",
    [
        "My password is hunter2-Blue.",
        "The API key is sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2.",
        "I use the token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4 for CI.",
        "I live behind AKIAIOSFODNN7EXAMPLE credentials.",
        "I keep -----BEGIN OPENSSH PRIVATE KEY----- in my notes.",
        "I connect with postgres://admin:s3cret@db.internal/app daily.",
        "I prefer the header Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456.",
        "我的密码是 qwerty123。",
        "My session is eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uh.",
    ],
)
def test_secrets_are_never_extracted(secret_sentence: str) -> None:
    facts = extract_facts([user(f"{secret_sentence} I prefer green tea.")])
    assert [f.line for f in facts] == ["- [durable] User: I prefer green tea."]


def test_facts_are_deduplicated_on_normalised_text() -> None:
    assert lines("I prefer green tea.", "i prefer   GREEN tea!", "I prefer green tea") == [
        "- [durable] User: I prefer green tea."
    ]


def test_the_number_of_facts_is_capped_keeping_the_most_important_and_latest() -> None:
    texts = [f"I own {n} old bicycles in the garage number {n}." for n in range(10)]
    texts.insert(0, "Actually, the garage is in Utrecht.")
    facts = extract_facts([user(t) for t in texts], max_facts=4)
    assert [f.mark for f in facts] == ["correction", "durable", "durable", "durable"]
    assert facts[-1].text.endswith("number 9.")
    assert facts[1].text.endswith("number 7.")


def test_a_long_sentence_is_clipped_at_a_word() -> None:
    text = "I prefer " + " ".join(f"word{n}" for n in range(200)) + "."
    (fact,) = extract_facts([user(text)], max_fact_chars=80)
    assert len(fact.text) <= 80
    assert fact.text.endswith("…")


def test_nothing_worth_keeping_gives_nothing() -> None:
    summariser = ModelFreeSummariser()
    attempt = summariser.summarise(
        "[2026-11-30 09:00] USER: hello there\n\n[2026-11-30 09:00] ASSISTANT: Hi! How can I help?"
    )
    assert attempt == SummaryAttempt(ok=True, text=NOTHING)
    assert attempt.nothing


def test_summarise_reads_a_rendered_transcript() -> None:
    transcript = "\n".join(
        [
            "[2026-11-02 08:41] USER: I prefer window seats.",
            "",
            "Also, I'm flying to Lisbon tomorrow.",
            "",
            '[2026-11-02 08:41] ASSISTANT called web_search({"q": "flights"})',
            "",
            "[2026-11-02 08:41] TOOL RESULT (web_search): I live in a search index.",
            "",
            "[2026-11-02 08:42] ASSISTANT: Agreed, let's go with the 10:05 flight.",
            "",
            "[2026-11-02 08:43] SYSTEM: Never mind this.",
        ]
    )
    attempt = ModelFreeSummariser().summarise(transcript, session_key="cli:x")
    assert attempt.ok
    assert not attempt.nothing
    assert attempt.text.splitlines() == [
        "- [durable] User: I prefer window seats.",
        "- [ephemeral] User: I'm flying to Lisbon tomorrow (as of 2026-11-02)",
        "- [durable] Assistant agreed: Agreed, let's go with the 10:05 flight.",
    ]


def test_the_summariser_speaks_the_protocol() -> None:
    summariser = ModelFreeSummariser()
    assert summariser.label == "model-free"
    assert summariser.input_budget >= 1_000_000
    assert SummaryAttempt(ok=False, reason="x").nothing is False
    with pytest.raises(ValueError, match="max_facts"):
        ModelFreeSummariser(max_facts=0)


def test_tool_messages_and_code_are_ignored() -> None:
    call = ToolCall(id="c1", name="run", arguments="{}")
    messages = [
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1", content="I prefer errors: 42 failed."),
        user("```\nI live in a code block\n```\n> I prefer quoted text\nI prefer real sentences."),
    ]
    assert [f.line for f in extract_facts(messages)] == [
        "- [durable] User: I prefer real sentences."
    ]


def test_extraction_is_deterministic() -> None:
    messages = [user("I live in Porto. Never use emojis. Let's go with plan B.")]
    assert extract_facts(messages) == extract_facts(list(messages))
    assert extract_facts(messages)[1] == Fact(
        mark="permanent", text="User instruction: Never use emojis."
    )
