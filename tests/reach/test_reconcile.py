"""The reconciliation rule, the streamed-reply assembly, leases and the bind rules, as units."""

from __future__ import annotations

import json

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.messages import Message, ToolCall
from reverie.serve.auth import ServeRefusedError, is_loopback, token_for
from reverie.serve.leases import SessionLeases
from reverie.serve.reconcile import reconcile
from reverie.serve.stream import StreamedReply


def _user(text: str) -> Message:
    return Message(role="user", content=text)


def _assistant(text: str) -> Message:
    return Message(role="assistant", content=text)


HELD = [_user("hi"), _assistant("hello"), _user("tea?"), _assistant("green")]


def test_a_whole_history_resend_keeps_only_what_follows_the_session_end() -> None:
    found = reconcile(HELD, [*HELD, _user("and coffee?")])
    assert found.known == 4
    assert found.new == (_user("and coffee?"),)


def test_a_lone_new_message_is_new() -> None:
    assert reconcile(HELD, [_user("and coffee?")]).new == (_user("and coffee?"),)


def test_a_first_request_brings_its_history_in() -> None:
    assert reconcile([], HELD).new == tuple(HELD)


def test_whitespace_timestamps_and_extra_fields_do_not_break_the_match() -> None:
    resent = [
        _user("hi "),
        Message(role="assistant", content=[{"type": "text", "text": "hello"}], extra={"x": 1}),  # type: ignore[arg-type]
        _user("tea?"),
        _assistant("green\n"),
        _user("more"),
    ]
    assert reconcile(HELD, resent).known == 4


def test_tool_calls_must_match_by_id_name_and_arguments() -> None:
    call = Message(role="assistant", tool_calls=(ToolCall(id="c1", name="f", arguments="{}"),))
    held = [_user("go"), call]
    assert reconcile(held, [_user("go"), call, Message(role="tool", tool_call_id="c1")]).known == 2
    other = Message(role="assistant", tool_calls=(ToolCall(id="c2", name="f", arguments="{}"),))
    assert reconcile(held, [_user("go"), other]).known == 0


def test_an_edited_history_is_recorded_as_new_rather_than_lost() -> None:
    edited = [_user("hi"), _assistant("hello"), _user("coffee?")]
    assert reconcile(HELD, edited).new == tuple(edited)


texts = st.lists(st.sampled_from(["a", "b", "c"]), max_size=8)


@settings(max_examples=60, deadline=None)
@given(held=texts, extra=texts)
def test_resending_the_session_plus_more_yields_exactly_the_more(
    held: list[str], extra: list[str]
) -> None:
    messages = [_user(t) if i % 2 == 0 else _assistant(t) for i, t in enumerate(held)]
    added = [_user(t) for t in extra]
    found = reconcile(messages, [*messages, *added])
    # The known prefix can only be longer when the added messages repeat the session's end.
    assert [m.text for m in found.new] == [m.text for m in [*messages, *added]][found.known :]
    assert found.known >= len(messages)


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
    assert token_for("0.0.0.0", {"REVERIE_SERVE_TOKEN": "s3cret"}) == ("s3cret", False)
    with pytest.raises(ServeRefusedError, match="REVERIE_SERVE_TOKEN"):
        token_for("192.0.2.1", {})
