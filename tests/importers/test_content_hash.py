"""Content hashes and re-import dedupe."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from reverie.core.messages import Message, ToolCall
from reverie.memory.ingest.importers import message_hash, new_messages

WHEN = datetime(2026, 11, 30, 9, tzinfo=UTC)


def user(text: str, when: datetime | None = WHEN) -> Message:
    return Message(role="user", content=text, timestamp=when)


def test_the_same_content_hashes_alike_whatever_the_form() -> None:
    parts = Message(role="user", content=({"type": "text", "text": "hi"},), timestamp=WHEN)
    assert message_hash(parts) == message_hash(user("hi"))
    elsewhere = WHEN.astimezone(timezone(timedelta(hours=8)))
    assert message_hash(user("hi", elsewhere)) == message_hash(user("hi"))
    assert message_hash(
        Message(role="user", content="hi", timestamp=WHEN, extra={"x": 1})
    ) == message_hash(user("hi"))


def test_different_content_hashes_differently() -> None:
    base = message_hash(user("hi"))
    assert message_hash(user("hi!")) != base
    assert message_hash(user("hi", WHEN + timedelta(seconds=1))) != base
    assert message_hash(user("hi", None)) != base
    assert message_hash(Message(role="assistant", content="hi", timestamp=WHEN)) != base
    call = Message(role="assistant", tool_calls=(ToolCall(id="c", name="f", arguments="{}"),))
    other = Message(role="assistant", tool_calls=(ToolCall(id="c", name="f", arguments='{"a":1}'),))
    assert message_hash(call) != message_hash(other)


def test_reimporting_adds_nothing_and_a_grown_conversation_adds_only_the_new_part() -> None:
    conversation = [user("a"), user("ok", None), user("ok", None), user("b")]
    assert new_messages(conversation, conversation) == ()
    grown = [*conversation, user("ok", None), user("c")]
    assert new_messages(conversation, grown) == (user("ok", None), user("c"))
    assert new_messages([], conversation) == tuple(conversation)
