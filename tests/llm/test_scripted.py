"""ScriptedProvider: replays its script in order, records requests, fails loudly when empty."""

from __future__ import annotations

import threading

import pytest

from reverie.core.messages import Message, ToolCall
from reverie.core.token_estimate import EstimatingCounter
from reverie.errors import ModelTimeoutError, ScriptExhaustedError
from reverie.llm.provider import ChatReply, ChatRequest, Provider, Usage
from reverie.llm.scripted import ScriptedProvider
from reverie.llm.tokens import count_request


def ask(text: str, **kwargs: object) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=text),), **kwargs)  # type: ignore[arg-type]


def test_replies_are_returned_in_order_and_requests_recorded() -> None:
    call = ToolCall(id="c1", name="search", arguments='{"q": "x"}')
    provider = (
        ScriptedProvider()
        .reply("first")
        .reply(tool_calls=[call])
        .reply("third", finish_reason="length")
    )
    requests = [ask("a"), ask("b"), ask("c")]
    replies = [provider.complete(request) for request in requests]
    assert [r.text for r in replies] == ["first", "", "third"]
    assert [r.finish_reason for r in replies] == ["stop", "tool_calls", "length"]
    assert replies[1].tool_calls == (call,)
    assert provider.requests == tuple(requests)
    assert provider.remaining == 0


def test_scripted_provider_satisfies_the_provider_protocol() -> None:
    provider: Provider = ScriptedProvider(ChatReply(text="ok"))
    assert provider.complete(ask("hi")).text == "ok"


def test_queued_exception_is_raised_and_the_request_still_recorded() -> None:
    provider = ScriptedProvider().fail(ModelTimeoutError("scripted timeout")).reply("recovered")
    with pytest.raises(ModelTimeoutError, match="scripted timeout"):
        provider.complete(ask("one"))
    assert provider.complete(ask("two")).text == "recovered"
    assert [r.messages[0].text for r in provider.requests] == ["one", "two"]


def test_exhausted_script_fails_loudly_with_count_and_first_message() -> None:
    provider = ScriptedProvider().reply("only one")
    provider.complete(ask("first question"))
    with pytest.raises(ScriptExhaustedError) as caught:
        provider.complete(ask("an unexpected second question"))
    message = str(caught.value)
    assert "1 step(s) scripted" in message
    assert "request #2" in message
    assert "an unexpected second question" in message
    assert len(provider.requests) == 2


def test_reply_function_sees_the_request() -> None:
    provider = ScriptedProvider().respond(
        lambda request: ChatReply(text=f"echo: {request.messages[-1].text}")
    )
    assert provider.complete(ask("ping")).text == "echo: ping"


def test_missing_usage_is_filled_from_the_counter_and_given_usage_is_kept() -> None:
    counter = EstimatingCounter()
    given = Usage(prompt_tokens=999, completion_tokens=1)
    provider = ScriptedProvider(counter=counter).reply("a short answer").reply("x", usage=given)
    request = ask("how long is this prompt?")
    filled = provider.complete(request)
    assert filled.usage == Usage(
        prompt_tokens=count_request(request, counter),
        completion_tokens=counter.text("a short answer"),
    )
    assert provider.complete(request).usage == given


def test_auto_usage_can_be_switched_off_and_model_is_filled_in() -> None:
    provider = ScriptedProvider(model="fake-1", auto_usage=False).reply("a").reply("b")
    first = provider.complete(ask("q"))
    assert first.usage is None
    assert first.model == "fake-1"
    assert provider.complete(ask("q", model="override")).model == "override"


def test_threads_consume_each_step_exactly_once() -> None:
    provider = ScriptedProvider(*[ChatReply(text=str(i)) for i in range(200)])
    seen: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(50):
            text = provider.complete(ask("go")).text
            with lock:
                seen.append(text)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen, key=int) == [str(i) for i in range(200)]
    assert provider.remaining == 0
