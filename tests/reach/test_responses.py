"""The Responses API through ``reverie serve``, driven by the official ``openai`` client.

``client.responses.create`` with and without streaming, chained with
``previous_response_id`` and ``conversation``, with a function tool called, run by the
client and answered; every message recorded once; the endpoint asked in the chat shape;
another principal cannot continue a chain; every bad body and unknown route answered with
the OpenAI error shape.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest

from reverie.core.messages import JSONObject
from reverie.engine.owners import DEFAULT_PRINCIPAL
from tests.llm.loopback import ScriptedResponse, chat_text, chat_tool_calls
from tests.reach.conftest import TOKEN, Proxy, chunk, sse

WEATHER: Any = {
    "type": "function",
    "name": "weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def _sent(proxy: Proxy, number: int) -> Any:
    """The chat body the endpoint got for request ``number``."""
    return proxy.upstream.bodies()[number]


def test_a_response_is_answered_and_recorded_once(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Hello Ada."))
    response = proxy.client().responses.create(
        model="chat-model", instructions="Be brief.", input="I am Ada."
    )
    assert response.output_text == "Hello Ada."
    assert response.status == "completed"
    assert response.usage is not None
    assert response.usage.input_tokens == 12
    sent = _sent(proxy, 0)
    assert sent["stream"] is False
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert "Be brief." in sent["messages"][0]["content"]
    assert proxy.texts() == [("user", "I am Ada."), ("assistant", "Hello Ada.")]


def test_previous_response_id_continues_the_session(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Hello Ada."), chat_text("You are Ada."))
    client = proxy.client()
    first = client.responses.create(
        model="chat-model", input="I am Ada.", extra_headers={"X-Reverie-Session": "chain"}
    )
    second = client.responses.create(
        model="chat-model", input="Who am I?", previous_response_id=first.id
    )
    assert second.output_text == "You are Ada."
    assert second.previous_response_id == first.id
    sent = [m["content"] for m in _sent(proxy, 1)["messages"]]
    assert "I am Ada." in sent  # the memory gave the earlier turn
    assert "Hello Ada." in sent
    assert proxy.texts("chain") == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "Who am I?"),
        ("assistant", "You are Ada."),
    ]


def test_a_conversation_id_names_the_session(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Noted."))
    proxy.client().responses.create(
        model="chat-model", input="Tea, please.", extra_body={"conversation": "conv_tea"}
    )
    assert proxy.texts("conv_tea") == [("user", "Tea, please."), ("assistant", "Noted.")]


def test_a_streamed_response_relays_the_text_as_it_comes(proxy: Proxy) -> None:
    proxy.upstream.script(
        sse(
            chunk({"role": "assistant", "content": "Streamed "}),
            chunk({"content": "hello."}),
            chunk({}, finish="stop"),
        ),
        sse(chunk({"role": "assistant", "content": "Again."}), chunk({}, finish="stop")),
    )
    with proxy.client().responses.stream(model="chat-model", input="Hi.") as stream:
        events = list(stream)
        final = stream.get_final_response()
    assert _sent(proxy, 0)["stream"] is True
    kinds = [event.type for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert "".join(deltas) == "Streamed hello."
    assert final.output_text == "Streamed hello."
    again = list(proxy.client().responses.create(model="chat-model", input="Again?", stream=True))
    assert [e.sequence_number for e in again] == list(range(len(again)))
    assert again[-1].type == "response.completed"
    assert proxy.texts() == [
        ("user", "Hi."),
        ("assistant", "Streamed hello."),
        ("user", "Again?"),
        ("assistant", "Again."),
    ]


def test_a_streamed_tool_call_comes_whole_and_is_recorded(proxy: Proxy) -> None:
    call: JSONObject = {
        "index": 0,
        "id": "call_s",
        "function": {"name": "weather", "arguments": '{"city":'},
    }
    rest: JSONObject = {"index": 0, "function": {"arguments": ' "Porto"}'}}
    proxy.upstream.script(
        sse(
            chunk({"role": "assistant", "tool_calls": [call]}),
            chunk({"tool_calls": [rest]}),
            chunk({}, finish="tool_calls"),
        )
    )
    with proxy.client().responses.stream(
        model="chat-model", input="Weather?", tools=[WEATHER]
    ) as stream:
        final = stream.get_final_response()
    calls = [item for item in final.output if item.type == "function_call"]
    assert [(c.call_id, c.arguments) for c in calls] == [("call_s", '{"city": "Porto"}')]
    with proxy.lease() as engine:
        held = engine.session("api:default").messages
    assert held[-1].tool_calls[0].arguments == '{"city": "Porto"}'


def test_a_stream_cut_before_its_end_records_nothing_of_the_answer(proxy: Proxy) -> None:
    proxy.upstream.script(
        ScriptedResponse(
            body=b'data: {"choices": [{"index": 0, "delta": {"content": "Half"}}]}\n\n',
            headers={"Content-Type": "text/event-stream"},
        )
    )
    events = list(proxy.client().responses.create(model="chat-model", input="Hi?", stream=True))
    assert events[-1].type == "response.failed"
    assert proxy.texts() == []


def test_a_tool_call_passes_through_and_its_output_is_recorded_once(proxy: Proxy) -> None:
    proxy.upstream.script(
        chat_tool_calls([("call_1", "weather", '{"city": "Porto"}')]), chat_text("Sunny in Porto.")
    )
    client = proxy.client()
    first = client.responses.create(model="chat-model", input="Weather in Porto?", tools=[WEATHER])
    calls = [item for item in first.output if item.type == "function_call"]
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("call_1", "weather", '{"city": "Porto"}')
    ]
    assert _sent(proxy, 0)["tools"] == [
        {"type": "function", "function": {**{k: v for k, v in WEATHER.items() if k != "type"}}}
    ]
    whole: Any = [
        {"role": "user", "content": "Weather in Porto?"},
        *[item.model_dump() for item in first.output],
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    ]
    second = client.responses.create(model="chat-model", input=whole, tools=[WEATHER])
    assert second.output_text == "Sunny in Porto."
    sent = _sent(proxy, 1)["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    with proxy.lease() as engine:
        held = engine.session("api:default").messages
    assert [(m.role, m.text, m.tool_call_id) for m in held] == [
        ("user", "Weather in Porto?", None),
        ("assistant", "", None),
        ("tool", "sunny", "call_1"),
        ("assistant", "Sunny in Porto.", None),
    ]
    assert held[1].tool_calls[0].id == "call_1"


def test_another_principal_cannot_continue_a_chain(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Hello Ada."))
    first = proxy.client().responses.create(model="chat-model", input="I am Ada.")
    bob = proxy.parts.book.issue("principal", principal="bob")
    with pytest.raises(openai.BadRequestError) as caught:
        proxy.client(bob).responses.create(
            model="chat-model", input="Who am I?", previous_response_id=first.id
        )
    assert "Ada" not in str(caught.value)
    assert caught.value.body["param"] == "previous_response_id"  # type: ignore[index]
    assert len(proxy.upstream.requests) == 1
    assert proxy.texts(principal=DEFAULT_PRINCIPAL)[0] == ("user", "I am Ada.")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"model": "m"}, "input"),
        ({"input": [{"type": "message", "role": "tool", "content": "x"}]}, "input[0].role"),
        ({"input": "x", "tools": [{"type": "web_search"}]}, "tools[0]"),
        ({"input": [{"type": "function_call", "name": "f"}]}, "input[0]"),
        ({"input": "x", "previous_response_id": "resp_unknown"}, "previous_response_id"),
        ({"input": "x", "conversation": {"id": "dream:x"}}, "conversation"),
    ],
)
def test_a_bad_body_is_an_openai_error_naming_the_field(
    proxy: Proxy, body: dict[str, Any], param: str
) -> None:
    answer = httpx2.post(
        proxy.url + "/v1/responses", json=body, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == param
    assert answer.json()["error"]["type"] == "invalid_request_error"


def test_a_body_that_is_not_json_is_an_openai_error(proxy: Proxy) -> None:
    for path in ("/v1/responses", "/v1/chat/completions"):
        answer = httpx2.post(
            proxy.url + path, content=b"{nope", headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert answer.status_code == 400
        assert answer.json()["error"]["type"] == "invalid_request_error"


def test_unknown_routes_are_openai_shaped(proxy: Proxy) -> None:
    client = proxy.client()
    with pytest.raises(openai.NotFoundError) as caught:
        client.embeddings.create(model="e", input="x")
    assert caught.value.body["code"] == "unknown_url"  # type: ignore[index]
    wrong = httpx2.get(
        proxy.url + "/v1/chat/completions", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert wrong.status_code == 405
    assert wrong.json()["error"]["code"] == "method_not_allowed"
    assert "POST" in wrong.headers["allow"]


def test_a_retry_of_an_answered_response_gets_the_recorded_answer(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Hello Ada."))
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Reverie-Session": "r"}
    body = {"model": "chat-model", "input": "I am Ada."}
    first = httpx2.post(proxy.url + "/v1/responses", json=body, headers=headers)
    retried = httpx2.post(
        proxy.url + "/v1/responses",
        json={**body, "stream": True},
        headers={**headers, "x-stainless-retry-count": "1"},
    )
    assert first.json()["output"][0]["content"][0]["text"] == "Hello Ada."
    assert b"Hello Ada." in retried.content
    assert b"response.completed" in retried.content
    assert len(proxy.upstream.requests) == 1
    assert proxy.texts("r") == [("user", "I am Ada."), ("assistant", "Hello Ada.")]
