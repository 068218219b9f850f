"""The reconciliation rule, the streamed-reply assembly, leases and the bind rules, as units."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest

from reverie.core.messages import Message, ToolCall
from reverie.core.tombstones import tombstone
from reverie.serve.auth import ServeRefusedError, is_loopback, token_for
from reverie.serve.chat_request import ChatCall
from reverie.serve.leases import SessionLeases
from reverie.serve.reconcile import RETRY_WINDOW, canonical_arguments, reconcile
from reverie.serve.replay import completion, events
from reverie.serve.stream import StreamedReply


def _user(text: str) -> Message:
    return Message(role="user", content=text)


def _assistant(text: str, at: datetime | None = None) -> Message:
    return Message(role="assistant", content=text, timestamp=at)


def _calls(*calls: tuple[str, str]) -> Message:
    return Message(
        role="assistant", tool_calls=tuple(ToolCall(id=i, name="f", arguments=a) for i, a in calls)
    )


HELD = [_user("hi"), _assistant("hello"), _user("tea?"), _assistant("green")]
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def test_a_whole_history_resend_keeps_only_what_follows_the_session_end() -> None:
    found = reconcile(HELD, [*HELD, _user("and coffee?")])
    assert found.known == 4
    assert found.new == (_user("and coffee?"),)


def test_a_lone_new_message_is_new_even_when_it_was_said_before() -> None:
    assert reconcile(HELD, [_user("and coffee?")]).new == (_user("and coffee?"),)
    assert reconcile(HELD, [_user("hi")]).new == (_user("hi"),)
    assert reconcile(HELD, [_user("hi"), _user("tea?")]).known == 0


def test_a_first_request_brings_its_history_in() -> None:
    assert reconcile([], HELD).new == tuple(HELD)


def test_whitespace_timestamps_and_extra_fields_do_not_break_the_match() -> None:
    resent = [
        _user("hi "),
        Message(role="assistant", content=({"type": "text", "text": "hello"},), extra={"x": 1}),
        _user("tea?"),
        _assistant("green\n", at=NOW),
        _user("more"),
    ]
    assert reconcile(HELD, resent).known == 4


def test_a_lone_surrogate_matches_its_cleaned_form() -> None:
    held = [_user("caf\ufffd"), _assistant("ok")]
    assert reconcile(held, [_user("caf\ud83d"), _assistant("ok"), _user("more")]).known == 2


def test_tool_calls_match_by_id_name_and_canonical_arguments() -> None:
    held = [_user("go"), _calls(("c1", '{"city": "Paris", "days": 2}'))]
    resent = _calls(("c1", '{"days":2,"city":"Paris"}'))
    result = Message(role="tool", tool_call_id="c1", content="sunny")
    assert reconcile(held, [_user("go"), resent, result]).new == (result,)
    other = _calls(("c2", '{"city": "Paris", "days": 2}'))
    assert reconcile(held, [_user("go"), other]).known == 0
    assert (
        reconcile([_user("go"), _calls(("c1", " not json"))], [_calls(("c1", "not json"))]).known
        == 1
    )


def test_another_chat_on_the_same_session_is_skipped() -> None:
    held = [_user("A1"), _assistant("a1"), _user("B1"), _assistant("b1")]
    found = reconcile(held, [_user("A1"), _assistant("a1"), _user("A2")])
    assert found.new == (_user("A2"),)
    found = reconcile(held, [_user("B1"), _assistant("b1"), _user("B2")])
    assert found.new == (_user("B2"),)


def test_regenerate_records_the_question_again_and_then_follows_the_new_answer() -> None:
    assert reconcile(HELD, HELD[:3]).new == (_user("tea?"),)
    held = [*HELD, _user("tea?"), _assistant("black")]
    later = [*HELD[:3], _assistant("black"), _user("milk?")]
    assert reconcile(held, later).new == (_user("milk?"),)


def test_an_edited_message_makes_the_rest_new() -> None:
    edited = [_user("hi"), _assistant("hello"), _user("coffee?")]
    assert reconcile(HELD, edited).new == (_user("coffee?"),)
    rewritten = [_user("hi"), _assistant("hi there"), _user("tea?")]
    assert reconcile(HELD, rewritten).new == tuple(rewritten)


def test_user_messages_the_session_ends_with_are_known() -> None:
    held = [*HELD, _user("one"), _user("two")]
    assert reconcile(held, [*HELD, _user("one"), _user("two")]).new == ()
    assert reconcile(held, [_user("two")]).new == ()
    assert reconcile(held, [*HELD, _user("one"), _user("two"), _user("three")]).known == 6


def test_a_tombstone_stands_for_the_forgotten_message_and_keeps_nothing_of_it() -> None:
    said = [_user("I live at 12 Rose Street"), _assistant("Noted: Rose Street.")]
    call = _calls(("c1", '{"street": "Rose Street"}'))
    held = [tombstone(m) for m in [*said, call]]
    assert all("Rose" not in json.dumps(m.to_json(), default=str) for m in held)
    found = reconcile(held, [*said, call, Message(role="tool", tool_call_id="c1")])
    assert found.known == 3
    assert reconcile(held[:1], [_assistant("I live at 12 Rose Street")]).known == 0


def test_a_retry_of_an_answered_exchange_gets_its_answer() -> None:
    held = [*HELD[:3], _assistant("green", at=NOW - timedelta(seconds=40))]
    found = reconcile(held, held[:3], retried_at=NOW)
    assert (found.new, found.answered) == ((), held[3])
    assert reconcile(held, [_user("hi")], retried_at=NOW).new == (_user("hi"),)
    assert reconcile(held, held[:3], retried_at=NOW + RETRY_WINDOW).new == (held[2],)
    assert reconcile(held, held[:3]).new == (held[2],)  # not a retry: regenerate
    alone = [_user("ok"), _assistant("fine", at=NOW)]
    assert reconcile(alone, [_user("ok")], retried_at=NOW).answered == alone[1]
    assert (
        reconcile([*alone, _user("x"), _assistant("y")], [_user("ok")], retried_at=NOW).answered
        is None
    )


def test_a_retry_finds_its_answer_past_another_chat() -> None:
    held = [
        _user("A1"),
        _assistant("a1"),
        _user("A2"),
        _assistant("a2", at=NOW),
        _user("B1"),
        _assistant("b1", at=NOW),
    ]
    found = reconcile(held, held[:3], retried_at=NOW)
    assert found.answered == held[3]
    tool = [_user("go"), _calls(("c1", "{}")), Message(role="tool", tool_call_id="c1")]
    answered = [*tool, _assistant("done", at=NOW)]
    assert reconcile(answered, tool, retried_at=NOW).answered == answered[3]
    assert reconcile(answered, tool).new == ()  # not a retry: answered again from the session


def test_a_retry_whose_first_try_was_lost_is_new() -> None:
    held = [*HELD[:2], _assistant("green", at=NOW)]
    assert reconcile(held, HELD[:3], retried_at=NOW).new == (HELD[2],)
    assert reconcile(held, [], retried_at=NOW).answered is None  # instructions only


def test_odd_tool_arguments_compare_as_text() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert canonical_arguments(deep) == deep
    assert canonical_arguments(' {"b": 1, "a": [1, 2]} ') == '{"a":[1,2],"b":1}'
    assert canonical_arguments("{oops") == "{oops"
    assert canonical_arguments('{"n": 2.0, "x": 1e2, "f": 0.5}') == '{"f":0.5,"n":2,"x":100}'
    assert canonical_arguments('{"t": "caf\\u00e9"}') == canonical_arguments('{"t": "café"}')


def _sse(delta: object, finish: str | None = None) -> bytes:
    event = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def test_a_streamed_reply_is_rebuilt_from_bytes_split_anywhere() -> None:
    stream = (
        _sse({"role": "assistant", "content": "Hel"})
        + _sse({"content": "lo"})
        + _sse(
            {
                "tool_calls": [
                    {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a"'}}
                ]
            }
        )
        + _sse({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]})
        + b": keep-alive comment\n\n"
        + _sse({}, finish="tool_calls")
        + b"data: [DONE]\n\n"
    )
    reply = StreamedReply()
    for start in range(0, len(stream), 7):
        assert not reply.done
        reply.feed(stream[start : start + 7])
    assert reply.complete
    message = reply.message()
    assert message.text == "Hello"
    assert message.tool_calls == (ToolCall(id="c1", name="f", arguments='{"a": 1}'),)


def test_a_cut_stream_is_not_complete() -> None:
    reply = StreamedReply()
    reply.feed(_sse({"content": "par"}))
    assert not reply.complete


def test_leases_serialise_one_session_and_are_dropped_when_free() -> None:
    order: list[str] = []

    async def run() -> None:
        leases = SessionLeases()
        first = await leases.acquire("alice", "s")
        assert leases.busy("alice") == ["s"]
        assert leases.busy("bob") == []

        async def second() -> None:
            lease = await leases.acquire("alice", "s")
            order.append("second")
            lease.release()

        async with anyio.create_task_group() as group:
            group.start_soon(second)
            other = await leases.acquire("alice", "t")  # another session never waits
            order.append("other")
            other.release()
            bobs = await leases.acquire("bob", "s")  # nor another principal's session "s"
            bobs.release()
            await anyio.sleep(0.01)
            order.append("first done")
            first.release()
            first.release()  # idempotent
        assert leases.active() == 0

    anyio.run(run)
    assert order == ["other", "first done", "second"]


def test_binding_rules() -> None:
    assert is_loopback("127.0.0.1")
    assert is_loopback("localhost")
    assert is_loopback("::1")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("example.org")
    token, generated = token_for("127.0.0.1", {})
    assert generated
    assert len(token) >= 24
    long_token = "s3cret-" + "x" * 25
    assert token_for("0.0.0.0", {"REVERIE_SERVE_TOKEN": long_token}) == (long_token, False)
    assert token_for("127.0.0.1", {"REVERIE_SERVE_TOKEN": "s3cret"}) == ("s3cret", False)
    with pytest.raises(ServeRefusedError, match="at least 32"):
        token_for("0.0.0.0", {"REVERIE_SERVE_TOKEN": "s3cret"})
    with pytest.raises(ServeRefusedError, match="REVERIE_SERVE_TOKEN"):
        token_for("192.0.2.1", {})


def test_the_documented_limit_a_failed_retry_after_the_same_question_gets_its_answer() -> None:
    # Nothing in the request tells a retry whose first try failed from one whose first try
    # was answered, when the same question was just answered: the answer is given again.
    held = [_user("ok"), _assistant("fine", at=NOW)]
    assert reconcile(held, [_user("ok")], retried_at=NOW).answered == held[1]
    assert reconcile(held, [_user("ok")]).new == (_user("ok"),)  # without the mark: new


def test_a_replayed_answer_reads_back_as_the_recorded_one() -> None:
    answer = Message(
        role="assistant",
        content="Paris it is.",
        tool_calls=(ToolCall(id="c1", name="f", arguments='{"city": "Paris"}'),),
        timestamp=NOW,
    )
    reply = StreamedReply()
    reply.feed(events(answer, "chat-model"))
    assert reply.done
    rebuilt = reply.message()
    assert (rebuilt.text, rebuilt.tool_calls) == (answer.text, answer.tool_calls)
    whole: Any = completion(answer, "chat-model")
    assert whole["created"] == int(NOW.timestamp())
    assert whole["choices"][0]["finish_reason"] == "tool_calls"
    parsed = Message.from_json(whole["choices"][0]["message"])
    assert (parsed.text, parsed.tool_calls) == (answer.text, answer.tool_calls)


@pytest.mark.parametrize(
    ("header", "retried"), [(None, False), ("0", False), ("1", True), ("12", True), ("²", False)]
)
def test_a_request_is_a_retry_when_the_sdk_says_it_was_sent_before(
    header: str | None, retried: bool
) -> None:
    headers = {} if header is None else {"x-stainless-retry-count": header}
    body: Any = {"messages": [{"role": "user", "content": "hi"}]}
    assert ChatCall.parse(body, headers).retried is retried
