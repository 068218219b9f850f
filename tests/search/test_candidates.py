"""Candidates for recall: context matches, common terms, scoped catch-up, source references."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from reverie import Message
from reverie.core.refs import history_ref, message_ref
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.index.candidates import COMMON
from reverie.storage.folder.index.items import NAMED_CHUNK
from reverie.storage.folder.workspace import Workspace


def _say(workspace: Workspace, key: str, text: str, role: str = "user") -> int:
    return workspace.sessions.append(
        key, Message(role="user" if role == "user" else "assistant", content=text)
    )


def test_an_answer_is_found_by_the_question_before_it(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "Which marathon are you training for?", role="assistant")
    answer = _say(workspace, "cli:a", "The Lisbon one, in October!")
    _say(workspace, "cli:a", "Nice weather today.", role="assistant")

    with_context = index.candidates(["marathon"], limit=5)
    without = index.candidates(["marathon"], limit=5, context_weight=0)

    assert [c.message_index for c in with_context] == [0, answer]
    assert with_context[1].text == "The Lisbon one, in October!"
    assert [c.message_index for c in without] == [0]
    assert [h.message_index for h in index.search("marathon")] == [0]  # people's search: own text


def test_candidates_respect_the_session_and_carry_their_whole_text(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "my locker code is 4817 " + "and more words " * 50)
    _say(workspace, "cli:b", "my locker code is 9999")
    entry = workspace.history.append("User keeps a locker at the gym.", session_key="cli:a")

    found = index.candidates(["locker", "code"], limit=10, session_key="cli:a")

    assert {(c.kind, c.cursor, c.message_index) for c in found} == {
        ("message", None, 0),
        ("history", entry.cursor, None),
    }
    assert any(c.text.endswith("and more words ") for c in found)
    assert index.candidates([], limit=5) == []
    assert index.candidates(['"', "*", "AND"], limit=5)[0:0] == []


def test_common_terms_give_way_to_rare_ones(workspace: Workspace, index: SearchIndex) -> None:
    reports = [
        Message(role="user", content=f"weather report number {number}")
        for number in range(COMMON + 10)
    ]
    workspace.sessions.append_many("cli:a", reports)
    rare = _say(workspace, "cli:a", "the weather in Porto")

    found = index.candidates(["weather", "porto"], limit=10)
    only_common = index.candidates(["weather"], limit=10)

    assert [c.message_index for c in found] == [rare]  # "weather" is common: dropped
    assert len(only_common) == 10  # the newest matches, ranked
    assert all(c.message_index is not None and c.message_index > 1000 for c in only_common)


def test_a_scoped_query_catches_up_only_its_session(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "apples")
    _say(workspace, "cli:b", "apples too")

    assert len(index.candidates(["apples"], limit=5, session_key="cli:a")) == 1
    assert len(index.candidates(["apples"], limit=5)) == 2
    assert index.refresh().messages_added == 0


def test_search_resolves_a_source_reference(workspace: Workspace, index: SearchIndex) -> None:
    _say(workspace, "tg:ann:1", "first")
    _say(workspace, "tg:ann:1", "my bike is a green Brompton")
    entry = workspace.history.append("User rides a Brompton.", session_key="tg:ann:1")

    (message,) = index.search("#m1@tg:ann:1")
    (history,) = index.search(f"#h{entry.cursor}")

    assert (message.session_key, message.message_index, message.role) == ("tg:ann:1", 1, "user")
    assert "Brompton" in message.snippet
    assert history.cursor == entry.cursor
    assert index.search("#m1@tg:ann:1", session_key="tg:other") == []
    assert index.search("#m7@tg:ann:1") == []


def test_chinese_two_character_words_are_looked_up_as_indexed_pairs(
    workspace: Workspace, index: SearchIndex
) -> None:
    together = _say(workspace, "cli:a", "我每天早上喝咖啡。")
    _say(workspace, "cli:a", "咖喱很好吃，啡色的桌子。")  # both characters, never side by side
    mixed = _say(workspace, "cli:a", "Coffee 咖啡 and cake")

    found = index.candidates(["咖啡"], limit=10, session_key="cli:a")
    both = index.candidates(["咖啡", "cake"], limit=10, session_key="cli:a")

    assert {c.message_index for c in found} == {together, mixed}
    assert both[0].message_index == mixed
    assert both[0].text == "Coffee 咖啡 and cake"


def test_pairs_of_a_rewritten_session_leave_the_index(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "我们周末领养了一只柯基。")
    assert index.candidates(["柯基"], limit=5)

    workspace.sessions.delete("cli:a")
    _say(workspace, "cli:a", "今天下雨了。")

    assert index.candidates(["柯基"], limit=5) == []
    assert [c.text for c in index.candidates(["下雨"], limit=5)] == ["今天下雨了。"]


def test_a_message_at_the_calendars_edge_reads_back_clamped(
    workspace: Workspace, index: SearchIndex
) -> None:
    # 9999-12-31T23:00-05:00 is later than the last UTC time a datetime holds.
    edge = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5)))
    workspace.sessions.append(
        "cli:a", Message(role="user", content="the vault code", timestamp=edge)
    )

    [found] = index.candidates(["vault"], limit=5)

    assert found.timestamp == datetime.max.replace(tzinfo=UTC)


def test_rare_terms_are_the_ones_few_items_hold(workspace: Workspace, index: SearchIndex) -> None:
    for number in range(8):
        _say(workspace, "cli:a", f"weather report {number}")
    _say(workspace, "cli:a", "my knee hurts after the weather turned")
    _say(workspace, "cli:b", "the knee is healed, 咖啡 too")

    found = index.rare_terms(["weather", "knee", "porto", "咖啡", '"*'], at_most=2)

    assert found == ["knee", "porto", "咖啡"]  # "porto": held by none, so by at most 2
    assert index.rare_terms(["knee"], at_most=1) == []


def test_items_are_named_in_the_order_given_in_a_few_queries(
    workspace: Workspace, index: SearchIndex
) -> None:
    count = NAMED_CHUNK + 50  # more than one chunk of each kind
    workspace.sessions.append_many(
        "cli:a", [Message(role="user", content=f"note {n} about tea") for n in range(count)]
    )
    _say(workspace, "cli:b", "a note in another session")
    entries = [workspace.history.append(f"entry {n}", session_key="cli:a") for n in range(count)]
    refs = [
        message_ref("cli:a", 7),
        history_ref(entries[3].cursor),
        message_ref("cli:b", 0),
        message_ref("cli:a", 10_000),  # no such message
        history_ref(10_000),  # no such entry
        message_ref("cli:a", 7),  # named twice: given twice, as asked
        *[message_ref("cli:a", n) for n in range(count - 1, -1, -1)],
        *[history_ref(e.cursor) for e in entries],
    ]

    every = index.items_named(refs)
    scoped = index.items_named(refs, session_key="cli:b")

    assert [(c.kind, c.message_index, c.cursor) for c in every[:5]] == [
        ("message", 7, None),
        ("history", None, entries[3].cursor),
        ("message", 0, None),
        ("message", 7, None),
        ("message", count - 1, None),
    ]
    assert every[2].session_key == "cli:b"
    assert every[2].text == "a note in another session"
    assert [c.message_index for c in every[4 : 4 + count]] == list(range(count - 1, -1, -1))
    assert [c.cursor for c in every[4 + count :]] == [e.cursor for e in entries]
    assert every[4].text == f"note {count - 1} about tea"
    assert len(every) == 5 + 2 * count - 1
    assert [(c.session_key, c.message_index) for c in scoped] == [("cli:b", 0)]
    assert index.items_named([]) == []
