"""Finding history entries and session messages: words, Chinese, sources, filters, snippets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reverie import Message
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _say(workspace: Workspace, key: str, text: str, *, at: datetime | None = None) -> int:
    return workspace.sessions.append(key, Message(role="user", content=text, timestamp=at))


def test_finds_a_history_entry_by_a_word(workspace: Workspace, index: SearchIndex) -> None:
    workspace.history.append("The user moved to Lisbon last spring.", session_key="cli:a")
    entry = workspace.history.append("The user prefers espresso over filter coffee.")
    workspace.history.append("Deployment uses a blue-green strategy.")

    hits = index.search("espresso")

    assert [(hit.kind, hit.cursor) for hit in hits] == [("history", entry.cursor)]
    assert hits[0].timestamp == entry.time
    assert "**espresso**" in hits[0].snippet
    assert hits[0].score > 0


def test_finds_chinese_text_inside_a_longer_run(workspace: Workspace, index: SearchIndex) -> None:
    entry = workspace.history.append("用户每天早上都喝咖啡，不喝茶。")
    workspace.history.append("用户住在上海。")
    position = _say(workspace, "telegram:7", "我明天想去买一杯咖啡")

    hits = index.search("咖啡")

    assert {(hit.kind, hit.cursor, hit.message_index) for hit in hits} == {
        ("history", entry.cursor, None),
        ("message", None, position),
    }
    assert all("**咖啡**" in hit.snippet for hit in hits)
    assert "\u200b" not in hits[0].snippet
    assert index.search("上海")[0].snippet == "用户住在**上海**。"


def test_finds_a_compacted_message_by_its_source(workspace: Workspace, index: SearchIndex) -> None:
    key = "cli:work"
    _say(workspace, key, "hello there")
    fact = _say(workspace, key, "my locker code is 4817, remember it")
    workspace.sessions.append(key, Message(role="assistant", content="Noted."))
    _say(workspace, key, "what's the weather")
    workspace.sessions.set_compacted_upto(key, 3)

    (hit,) = index.search("locker code")

    assert (hit.kind, hit.session_key, hit.message_index, hit.role) == (
        "message",
        key,
        fact,
        "user",
    )
    assert workspace.sessions.load(key).messages[fact].text == "my locker code is 4817, remember it"


def test_ranks_items_holding_more_and_rarer_terms_higher(
    workspace: Workspace, index: SearchIndex
) -> None:
    for text in ("the cat sat", "the dog sat", "the cat chased the dog", "a bird"):
        workspace.history.append(text)

    hits = index.search("cat dog")

    assert hits[0].snippet == "the **cat** chased the **dog**"
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert len(hits) == 3


def test_session_filter_keeps_that_sessions_messages_and_entries(
    workspace: Workspace, index: SearchIndex
) -> None:
    workspace.history.append("ramen night planned", session_key="cli:a")
    workspace.history.append("ramen is overrated", session_key="cli:b")
    _say(workspace, "cli:a", "let's get ramen")
    _say(workspace, "cli:b", "no ramen for me")

    hits = index.search("ramen", session_key="cli:a")

    assert {(hit.kind, hit.session_key) for hit in hits} == {
        ("history", "cli:a"),
        ("message", "cli:a"),
    }


def test_time_filters_bound_messages_and_skip_items_without_time(
    workspace: Workspace, index: SearchIndex
) -> None:
    for day in range(5):
        _say(workspace, "cli:a", f"standup notes day {day}", at=T0 + timedelta(days=day))
    _say(workspace, "cli:a", "standup notes undated")

    hits = index.search("standup", since=T0 + timedelta(days=1), until=T0 + timedelta(days=3))

    assert sorted(hit.message_index for hit in hits if hit.message_index is not None) == [1, 2]
    assert {hit.timestamp for hit in hits} == {T0 + timedelta(days=1), T0 + timedelta(days=2)}
    assert len(index.search("standup")) == 6


def test_time_filter_applies_to_history_entries(workspace: Workspace, index: SearchIndex) -> None:
    first = workspace.history.append("budget review")
    second = workspace.history.append("budget approved")  # the step clock moved on
    assert first.time is not None
    assert second.time is not None

    early = index.search("budget", until=first.time + timedelta(milliseconds=1))
    late = index.search("budget", since=second.time)

    assert [hit.cursor for hit in early] == [first.cursor]
    assert [hit.cursor for hit in late] == [second.cursor]


def test_sources_choose_history_or_messages(workspace: Workspace, index: SearchIndex) -> None:
    workspace.history.append("violin lessons on Tuesday")
    _say(workspace, "cli:a", "my violin is out of tune")

    assert {hit.kind for hit in index.search("violin", sources=("history",))} == {"history"}
    assert {hit.kind for hit in index.search("violin", sources=("messages",))} == {"message"}
    assert index.search("violin", sources=()) == []


def test_internal_sessions_are_left_out_unless_asked(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "dream:2026-11-30", "edit USER.md: likes hiking")
    _say(workspace, "cron:daily", "reminder: hiking gear")
    _say(workspace, "cli:a", "I went hiking")

    assert {hit.session_key for hit in index.search("hiking")} == {"cli:a"}
    assert {hit.session_key for hit in index.search("hiking", include_internal=True)} == {
        "cli:a",
        "dream:2026-11-30",
        "cron:daily",
    }
    assert {hit.session_key for hit in index.search("hiking", session_key="cron:daily")} == {
        "cron:daily"
    }


def test_tool_calls_and_content_parts_are_searchable(
    workspace: Workspace, index: SearchIndex
) -> None:
    from reverie import ToolCall

    workspace.sessions.append(
        "cli:a",
        Message(
            role="assistant",
            tool_calls=(ToolCall(id="c1", name="weather", arguments='{"city": "Reykjavik"}'),),
        ),
    )
    workspace.sessions.append(
        "cli:a", Message(role="user", content=({"type": "text", "text": "see the fjord photo"},))
    )

    assert [hit.message_index for hit in index.search("reykjavik")] == [0]
    assert [hit.message_index for hit in index.search("fjord")] == [1]


def test_limit_caps_the_hits(workspace: Workspace, index: SearchIndex) -> None:
    for number in range(20):
        workspace.history.append(f"note {number} about gardening")

    assert len(index.search("gardening", limit=5)) == 5
    with pytest.raises(ValueError, match="limit"):
        index.search("gardening", limit=0)


def test_bad_arguments_are_refused(index: SearchIndex) -> None:
    with pytest.raises(ValueError, match="naive"):
        index.search("x", since=datetime(2026, 1, 1))  # noqa: DTZ001 -- the point of the test
    with pytest.raises(ValueError, match="unknown sources"):
        index.search("x", sources=("files",))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        'AND OR NOT "',
        "*",
        "col:value",
        "(((",
        "NEAR(a b, 2)",
        "a AND",
        "^start",
        "-minus +plus",
        "🎉🔥",
        "咖啡 OR *",
        "'; DROP TABLE docs; --",
        "\x00\u200b",
        "x" * 5000,
        " ".join(f"w{n}" for n in range(500)),
    ],
)
def test_hostile_queries_never_raise(workspace: Workspace, index: SearchIndex, query: str) -> None:
    workspace.history.append("AND OR NOT NEAR col value start minus plus 咖啡 w1 drop table")

    hits = index.search(query)

    assert isinstance(hits, list)
    assert len(index.search("drop")) == 1


def test_operators_in_a_query_are_plain_words(workspace: Workspace, index: SearchIndex) -> None:
    workspace.history.append("salt AND pepper")
    workspace.history.append("pepper only")

    hits = index.search("salt AND")

    assert [hit.snippet for hit in hits] == ["**salt** **AND** pepper"]


def test_quoted_words_are_a_phrase(workspace: Workspace, index: SearchIndex) -> None:
    workspace.history.append("New York in winter")
    workspace.history.append("a new bakery in York")

    assert len(index.search("new york")) == 2
    assert [hit.snippet for hit in index.search('"new york"')] == ["**New York** in winter"]


def test_empty_and_wordless_queries_return_nothing(
    workspace: Workspace, index: SearchIndex
) -> None:
    workspace.history.append("something")

    assert index.search("") == []
    assert index.search("   ") == []
    assert index.search("?!…") == []


def test_english_words_match_their_inflections(workspace: Workspace, index: SearchIndex) -> None:
    workspace.history.append("She was running marathons")

    assert len(index.search("run marathon")) == 1
