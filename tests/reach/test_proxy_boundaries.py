"""The proxy's boundaries: what it refuses before the model call, and an endpoint that dies.

The way the probe of #33 did it: ``reverie serve``'s app on a loopback port, the official
``openai`` client (or raw HTTP for bodies the SDK cannot send), a loopback endpoint that
answers, or one that hangs up in the middle of its answer (``tests.reach.dying``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx2
import openai
import pytest

from reverie.serve import Upstream, create_app
from tests.llm.loopback import LoopbackServer, ScriptedResponse, chat_text, http_error
from tests.reach.conftest import SESSION, TOKEN, Proxy, chunk, new_home
from tests.reach.dying import DyingServer
from tests.reach.running import ServedApp

AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


def _post(proxy: Proxy, raw: bytes, session: str = "b") -> httpx2.Response:
    headers = {**AUTH, SESSION: session}
    return httpx2.post(proxy.url + "/v1/chat/completions", content=raw, headers=headers)


def _refused(response: httpx2.Response) -> dict[str, object]:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert isinstance(error, dict)
    return error


def _body(*messages: object) -> bytes:
    return json.dumps({"model": "chat-model", "messages": list(messages)}).encode()


def test_nan_and_infinity_are_refused_and_never_forwarded(proxy: Proxy) -> None:
    for constant in ("NaN", "Infinity", "-Infinity"):
        raw = b'{"model": "m", "temperature": %s, "messages": [{"role": "user", "content": "x"}]}'
        error = _refused(_post(proxy, raw % constant.encode()))
        assert constant in str(error["message"])
    assert proxy.upstream.requests == []
    assert proxy.texts("b") == []


def test_a_body_100000_deep_is_a_400_not_a_traceback(proxy: Proxy) -> None:
    deep = b'{"messages": [{"role": "user", "content": ' + b"[" * 100_000 + b"]" * 100_000
    error = _refused(_post(proxy, deep + b"}]}"))
    assert "nested too deeply" in str(error["message"])
    assert proxy.upstream.requests == []


def test_what_memory_could_not_record_is_refused_before_the_model_call(proxy: Proxy) -> None:
    nested: object = "x"
    for _level in range(70):
        nested = {"deeper": nested}
    cases = [
        ({"role": "user", "content": "x" * 1_000_001}, "1,000,001 characters"),
        ({"role": "user", "content": "hi", "timestamp": "2026-01-01T10:00:00"}, "no timezone"),
        ({"role": "user", "content": [{"type": "text", "text": "a", "x": nested}]}, "deeper"),
    ]
    for message, said in cases:
        error = _refused(_post(proxy, _body({"role": "user", "content": "ok"}, message)))
        assert error["param"] == "messages[1]"
        assert said in str(error["message"])
    long_key = "k" * 1025
    error = _refused(_post(proxy, _body({"role": "user", "content": "x"}), session=long_key))
    assert error["param"] == "x-reverie-session"
    assert "at most 1024 characters" in str(error["message"])
    assert proxy.upstream.requests == []


def test_an_answer_over_the_limit_is_not_recorded_and_the_response_says_so(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("y" * 1_000_001))
    raw = proxy.client().chat.completions.with_raw_response.create(
        model="chat-model",
        messages=[{"role": "user", "content": "write a lot"}],
        extra_headers={SESSION: "big"},
    )
    assert raw.headers["x-reverie-recorded"] == "no"
    assert len(raw.parse().choices[0].message.content or "") == 1_000_001
    assert proxy.texts("big") == []


@pytest.fixture
def dying_sse() -> Iterator[DyingServer]:
    first = b"data: " + json.dumps(chunk({"role": "assistant", "content": "Once"})).encode()
    server = DyingServer(first + b"\n\n", "text/event-stream")
    yield server
    server.close()


def _served(tmp_path: Path, base_url: str) -> tuple[ServedApp, Proxy]:
    parts = new_home(tmp_path)
    upstream = Upstream(base_url=base_url, api_key=None, model="chat-model", timeout=5)
    served = ServedApp(create_app(parts.pool, gate=parts.gate, upstream=upstream))
    return served, Proxy(url=served.url, parts=parts, upstream=LoopbackServer())


def test_a_stream_cut_mid_answer_ends_with_an_error_event_and_no_traceback(
    tmp_path: Path, dying_sse: DyingServer, caplog: pytest.LogCaptureFixture
) -> None:
    served, proxy = _served(tmp_path, dying_sse.base_url)
    parts = [{"type": "text", "text": "tell me a story"}]
    with served, caplog.at_level(logging.WARNING):
        stream = proxy.client().chat.completions.create(
            model="chat-model",
            messages=[{"role": "user", "content": parts}],  # type: ignore[misc,list-item]
            stream=True,
            extra_headers={SESSION: "cut"},
        )
        with pytest.raises(openai.APIError) as caught:
            for _event in stream:
                pass
    assert "broke off its answer" in str(caught.value)
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    assert proxy.texts("cut") == []  # the content-parts question too
    proxy.parts.pool.close()
    proxy.upstream.close()


def test_a_whole_answer_cut_midway_is_an_openai_shaped_502(tmp_path: Path) -> None:
    dying = DyingServer(b'{"id": "x", "choices": [{"index": 0, "mess', "application/json")
    served, proxy = _served(tmp_path, dying.base_url)
    try:
        with served, pytest.raises(openai.APIStatusError) as caught:
            proxy.client().chat.completions.create(
                model="chat-model",
                messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                extra_headers={SESSION: "cut"},
            )
    finally:
        dying.close()
    assert caught.value.status_code == 502
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["type"] == "upstream_error"
    assert proxy.texts("cut") == []
    proxy.parts.pool.close()
    proxy.upstream.close()


def test_a_plain_json_answer_to_a_stream_request_is_streamed(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("not streamed"))
    stream = proxy.client().chat.completions.create(
        model="chat-model",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        extra_headers={SESSION: "plain"},
    )
    text = "".join(event.choices[0].delta.content or "" for event in stream if event.choices)
    assert text == "not streamed"
    assert proxy.texts("plain") == [("user", "hi"), ("assistant", "not streamed")]


def test_a_stream_request_answered_with_nonsense_is_an_error(proxy: Proxy) -> None:
    proxy.upstream.script(ScriptedResponse(body=b"<html>hi</html>", headers={}))
    with pytest.raises(openai.APIStatusError) as caught:
        proxy.client().chat.completions.create(
            model="chat-model",
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            extra_headers={SESSION: "odd"},
        )
    assert caught.value.status_code == 502
    assert proxy.texts("odd") == []


def test_endpoint_error_bodies_reach_the_client_redacted(proxy: Proxy) -> None:
    key = "sk-proj-" + "Zq8vR2mT6yW1xK4nB7cD9fG3hJ5lP0sA"
    proxy.upstream.script(http_error(401, f"Incorrect API key provided: Bearer {key}"))
    with pytest.raises(openai.AuthenticationError) as caught:
        proxy.client().chat.completions.create(
            model="chat-model", messages=[{"role": "user", "content": "hi"}]
        )
    assert key not in str(caught.value.body)
    assert "Incorrect API key provided" in str(caught.value.body)


def test_a_502_never_shows_the_endpoints_credentials(tmp_path: Path) -> None:
    secret_url = "http://ada:S3cretPass@127.0.0.1:9/v1?api_key=qwerty123"
    served, proxy = _served(tmp_path, secret_url)
    with served, pytest.raises(openai.APIStatusError) as caught:
        proxy.client().chat.completions.create(
            model="chat-model", messages=[{"role": "user", "content": "x"}]
        )
    assert caught.value.status_code == 502
    shown = json.dumps(caught.value.body)
    for secret in ("S3cretPass", "qwerty123", "ada:"):
        assert secret not in shown
    assert "127.0.0.1:9" in shown
    proxy.parts.pool.close()
    proxy.upstream.close()


def test_the_proxys_prompt_names_no_tool_it_does_not_offer(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("one"), chat_text("two"))
    client = proxy.client()
    client.chat.completions.create(model="chat-model", messages=[{"role": "user", "content": "hi"}])
    search_tool: dict[str, object] = {
        "type": "function",
        "function": {"name": "search_memory", "parameters": {"type": "object"}},
    }
    client.chat.completions.create(
        model="chat-model",
        messages=[{"role": "user", "content": "again"}],
        tools=[search_tool],  # type: ignore[list-item]
        extra_headers={SESSION: "tools"},
    )
    plain, offered = proxy.upstream.bodies()
    assert plain.get("tools") is None
    assert "search_memory" not in _system(plain)
    assert "you do not remember" in _system(plain)
    assert "search_memory" in _system(offered)


def _system(body: Mapping[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    first = messages[0]
    assert isinstance(first, dict)
    assert first["role"] == "system"
    return str(first["content"])
