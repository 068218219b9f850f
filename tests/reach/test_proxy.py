"""The memory proxy with the official OpenAI SDK, in front of the loopback endpoint."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, cast

import httpx2
import openai
import pytest

from reverie.core.messages import JSONObject
from reverie.testing.folders import workspace_of
from tests.llm.loopback import ScriptedResponse, chat_text, chat_tool_calls, http_error
from tests.reach.conftest import SESSION, TOKEN, Proxy, chunk, sse


def _sent(proxy: Proxy, index: int) -> list[dict[str, Any]]:
    """The messages the endpoint received in request ``index``."""
    return cast("list[dict[str, Any]]", proxy.upstream.bodies()[index]["messages"])


def _ask(proxy: Proxy, messages: list[Any], **options: Any) -> str:
    reply = proxy.client().chat.completions.create(model="chat-model", messages=messages, **options)
    return reply.choices[0].message.content or ""


def test_memory_reaches_the_endpoint_and_the_exchange_is_recorded_in_the_users_memory(
    proxy: Proxy,
) -> None:
    with proxy.lease("tg:ada") as ada:
        workspace_of(ada).files.write("USER", "# User\n\n- Ada lives in Lisbon\n")
    answer = json.loads(chat_text("In Lisbon.").body)
    answer["choices"][0]["message"].update(refusal=None, reasoning_content="thinking...")
    proxy.upstream.script(ScriptedResponse.json(answer))
    messages = [
        {"role": "system", "content": "Answer in three words."},
        {"role": "user", "content": "Where do I live?"},
    ]
    assert _ask(proxy, messages, user="tg:ada", temperature=0.1) == "In Lisbon."
    (sent,) = proxy.upstream.bodies()
    assert sent["model"] == "chat-model"
    assert sent["temperature"] == 0.1
    assert sent["user"] == "tg:ada"
    wire = _sent(proxy, 0)
    assert wire[0]["role"] == "system"
    system = str(wire[0]["content"])
    assert "Ada lives in Lisbon" in system
    assert system.endswith("Answer in three words.")
    assert wire[-1] == {"role": "user", "content": "Where do I live?"}
    assert proxy.upstream.requests[0].headers["authorization"] == "Bearer upstream-key"
    assert proxy.texts(principal="tg:ada") == [
        ("user", "Where do I live?"),
        ("assistant", "In Lisbon."),
    ]
    with proxy.lease("tg:ada") as ada:
        assert ada.session("api:default").messages[1].extra == {}  # output-only fields dropped
    assert proxy.texts() == []  # nothing of it in the default principal's memory


def test_a_client_resending_the_whole_history_is_reconciled(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Hello Ada."), chat_text("Tea, green."))
    first = [{"role": "user", "content": "I am Ada."}]
    _ask(proxy, first, extra_headers={SESSION: "s1"})
    whole = [
        *first,
        {"role": "assistant", "content": "Hello Ada."},
        {"role": "user", "content": "What do I drink?"},
    ]
    _ask(proxy, whole, extra_headers={SESSION: "s1"})
    assert proxy.texts("s1") == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What do I drink?"),
        ("assistant", "Tea, green."),
    ]
    second = _sent(proxy, 1)
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]


def test_a_client_sending_only_new_messages_gets_the_session_replayed(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("one"), chat_text("two"))
    _ask(proxy, [{"role": "user", "content": "first"}], extra_headers={SESSION: "s2"})
    _ask(proxy, [{"role": "user", "content": "second"}], extra_headers={SESSION: "s2"})
    assert [text for _role, text in proxy.texts("s2")] == ["first", "one", "second", "two"]
    replayed = _sent(proxy, 1)
    assert [m["content"] for m in replayed[1:]] == ["first", "one", "second"]


def test_the_session_comes_from_the_header_else_metadata_else_the_default(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("a"), chat_text("b"), chat_text("c"), chat_text("d"))
    client = proxy.client()
    hi: Any = [{"role": "user", "content": "hi"}]
    client.chat.completions.create(
        model="chat-model", messages=hi, extra_headers={SESSION: "web:bob"}
    )
    client.chat.completions.create(model="chat-model", messages=[{"role": "user", "content": "yo"}])
    client.chat.completions.create(
        model="chat-model", messages=hi, metadata={"conversation_id": "chat-7"}
    )
    client.chat.completions.create(
        model="chat-model",
        messages=[{"role": "user", "content": "both"}],
        metadata={"session": "meta", "conversation_id": "chat-7"},
        extra_headers={SESSION: "web:bob"},
    )
    assert proxy.texts("web:bob") == [
        ("user", "hi"),
        ("assistant", "a"),
        ("user", "both"),
        ("assistant", "d"),
    ]
    assert proxy.texts("api:default") == [("user", "yo"), ("assistant", "b")]
    assert proxy.texts("chat-7") == [("user", "hi"), ("assistant", "c")]


def test_streaming_passes_the_chunks_through_and_records_the_answer(proxy: Proxy) -> None:
    proxy.upstream.script(
        sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Lis"}),
            chunk({"content": "bon."}),
            chunk({}, finish="stop"),
        )
    )
    stream = proxy.client().chat.completions.create(
        model="chat-model",
        messages=[{"role": "user", "content": "Where?"}],
        extra_headers={SESSION: "s3"},
        stream=True,
    )
    parts = [event.choices[0].delta.content or "" for event in stream if event.choices]
    assert "".join(parts) == "Lisbon."
    assert len(parts) == 4
    assert proxy.upstream.bodies()[0]["stream"] is True
    assert proxy.texts("s3") == [("user", "Where?"), ("assistant", "Lisbon.")]


def test_tool_calls_pass_through_and_their_results_are_recorded_once(proxy: Proxy) -> None:
    proxy.upstream.script(
        chat_tool_calls([("call_1", "weather", '{"city": "Lisbon"}')]), chat_text("Sunny.")
    )
    tools: Any = [{"type": "function", "function": {"name": "weather", "parameters": {}}}]
    first: Any = [{"role": "user", "content": "Weather?"}]
    reply = proxy.client().chat.completions.create(
        model="chat-model", messages=first, tools=tools, extra_headers={SESSION: "s4"}
    )
    call = reply.choices[0].message.tool_calls
    assert call is not None
    assert call[0].id == "call_1"
    follow_up = [
        *first,
        reply.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 24 C"},
    ]
    _ask(proxy, follow_up, tools=tools, extra_headers={SESSION: "s4"})
    assert [role for role, _text in proxy.texts("s4")] == ["user", "assistant", "tool", "assistant"]
    assert proxy.upstream.bodies()[1]["tools"] == tools
    assert _sent(proxy, 1)[-1]["role"] == "tool"


def test_a_wrong_or_missing_token_gets_401(proxy: Proxy) -> None:
    with pytest.raises(openai.AuthenticationError) as caught:
        proxy.client(token="wrong").chat.completions.create(
            model="chat-model", messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 401
    assert proxy.upstream.requests == []
    for path in ("/v1/models", "/mcp"):
        assert httpx2.get(proxy.url + path).status_code == 401
    listed = proxy.client().models.list()
    assert [model.id for model in listed.data] == ["chat-model"]


def test_an_endpoint_error_keeps_its_status_and_body_and_records_nothing(proxy: Proxy) -> None:
    proxy.upstream.script(http_error(500, "the model fell over", error_type="server_error"))
    with pytest.raises(openai.InternalServerError) as caught:
        _ask(proxy, [{"role": "user", "content": "hi"}], extra_headers={SESSION: "s5"})
    assert caught.value.status_code == 500
    assert "the model fell over" in str(caught.value)
    assert proxy.texts("s5") == []


def test_a_rate_limit_keeps_its_retry_after(proxy: Proxy) -> None:
    proxy.upstream.script(
        http_error(429, "slow down", error_type="rate_limit_error", headers={"Retry-After": "7"})
    )
    with pytest.raises(openai.RateLimitError) as caught:
        _ask(proxy, [{"role": "user", "content": "hi"}])
    assert caught.value.response.headers["retry-after"] == "7"


def test_a_malformed_request_is_a_400_naming_the_message(proxy: Proxy) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        _ask(proxy, [{"role": "user", "content": "ok"}, {"role": "wizard", "content": "x"}])
    assert "messages[1]" in str(caught.value)


def test_a_slow_endpoint_blocks_neither_the_server_nor_other_sessions(proxy: Proxy) -> None:
    slow = chat_text("slow answer")
    proxy.upstream.script(type(slow)(body=slow.body, headers=slow.headers, delay=3))
    proxy.upstream.script(chat_text("fast answer"))
    finished: dict[str, float] = {}

    def ask_slow() -> None:
        _ask(proxy, [{"role": "user", "content": "slow?"}], extra_headers={SESSION: "slow"})
        finished["slow"] = time.monotonic()

    worker = threading.Thread(target=ask_slow)
    worker.start()
    while not proxy.upstream.requests:
        time.sleep(0.01)
    fast = _ask(proxy, [{"role": "user", "content": "fast?"}], extra_headers={SESSION: "fast"})
    assert fast == "fast answer"
    finished["fast"] = time.monotonic()
    worker.join()
    assert finished["fast"] < finished["slow"]
    assert proxy.texts("slow")[-1] == ("assistant", "slow answer")


def test_an_endpoint_error_that_is_not_json_is_wrapped_in_the_openai_shape(proxy: Proxy) -> None:
    proxy.upstream.script(ScriptedResponse(status=502, body=b"Bad Gateway from nginx"))
    with pytest.raises(openai.APIStatusError) as caught:
        _ask(proxy, [{"role": "user", "content": "hi"}], extra_headers={SESSION: "s6"}, stream=True)
    assert caught.value.status_code == 502
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["type"] == "server_error"
    assert "Bad Gateway from nginx" in body["message"]


def test_a_body_that_is_not_json_is_a_400(proxy: Proxy) -> None:
    response = httpx2.post(
        proxy.url + "/v1/chat/completions",
        content=b"{not json",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    bad_tools = httpx2.post(
        proxy.url + "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}]},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert bad_tools.json()["error"]["param"] == "tools[0]"
    with pytest.raises(openai.BadRequestError, match="reserved"):
        _ask(proxy, [{"role": "user", "content": "x"}], extra_headers={SESSION: "dream:forged"})
    with pytest.raises(openai.BadRequestError, match="reserved"):
        _ask(proxy, [{"role": "user", "content": "x"}], metadata={"session": "cron:forged"})
    bad_metadata = httpx2.post(
        proxy.url + "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "x"}], "metadata": "chat-1"},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert bad_metadata.status_code == 400
    assert bad_metadata.json()["error"]["param"] == "metadata"
    assert proxy.upstream.requests == []


def test_a_streamed_tool_call_is_recorded_whole(proxy: Proxy) -> None:
    call: JSONObject = {"index": 0, "id": "call_9", "type": "function"}
    proxy.upstream.script(
        sse(
            chunk({"role": "assistant", "tool_calls": [{**call, "function": {"name": "f"}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"x":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]}),
            chunk({}, finish="tool_calls"),
        )
    )
    stream = proxy.client().chat.completions.create(
        model="chat-model",
        messages=[{"role": "user", "content": "go"}],
        extra_headers={SESSION: "s7"},
        stream=True,
    )
    assert sum(1 for _event in stream) == 4
    with proxy.lease() as engine:
        (recorded,) = engine.session("s7").messages[1:]
    assert [(c.id, c.name, c.arguments) for c in recorded.tool_calls] == [
        ("call_9", "f", '{"x": 1}')
    ]
