"""The proxy when things go wrong: a slow endpoint, a client that leaves mid-stream."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import openai
import pytest

from reverie.serve import Upstream, create_app
from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.conftest import SESSION, TOKEN, Proxy, new_home, start_proxy
from tests.reach.running import ServedApp
from tests.reach.slow_stream import SlowStreamServer


@pytest.fixture
def impatient(tmp_path: Path, loopback: LoopbackServer) -> Iterator[Proxy]:
    yield from start_proxy(tmp_path, loopback, timeout=0.3)


def test_an_endpoint_that_does_not_answer_in_time_is_a_504(impatient: Proxy) -> None:
    slow = chat_text("too late")
    impatient.upstream.script(type(slow)(body=slow.body, headers=slow.headers, delay=3))
    with pytest.raises(openai.InternalServerError) as caught:
        impatient.client().chat.completions.create(
            model="chat-model",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={SESSION: "t"},
        )
    assert caught.value.status_code == 504
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["type"] == "upstream_timeout"
    assert "did not answer within 0.3 s" in body["message"]
    assert impatient.texts("t") == []


def test_an_unreachable_endpoint_is_a_502(tmp_path: Path) -> None:
    parts = new_home(tmp_path)
    upstream = Upstream(base_url="http://127.0.0.1:9/v1", api_key=None, model="m", timeout=2)
    app = create_app(parts.pool, gate=parts.gate, upstream=upstream)
    with (
        ServedApp(app) as served,
        openai.OpenAI(base_url=served.url + "/v1", api_key=TOKEN, max_retries=0) as client,
        pytest.raises(openai.APIStatusError) as caught,
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    parts.pool.close()
    assert caught.value.status_code == 502


def test_no_chat_model_is_a_503_that_says_how_to_configure_one(tmp_path: Path) -> None:
    parts = new_home(tmp_path)
    app = create_app(parts.pool, gate=parts.gate, upstream=None)
    with (
        ServedApp(app) as served,
        openai.OpenAI(base_url=served.url + "/v1", api_key=TOKEN, max_retries=0) as client,
    ):
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert client.models.list().data == []
    parts.pool.close()
    assert caught.value.status_code == 503
    assert "REVERIE_MODEL" in str(caught.value)


def test_a_client_gone_mid_stream_leaves_the_session_as_it_was(tmp_path: Path) -> None:
    slow = SlowStreamServer()
    parts = new_home(tmp_path)
    upstream = Upstream(base_url=slow.base_url, api_key=None, model="chat-model", timeout=10)
    app = create_app(parts.pool, gate=parts.gate, upstream=upstream)
    try:
        with ServedApp(app) as served:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            body = {
                "model": "chat-model",
                "stream": True,
                "metadata": {"session": "s"},
                "messages": [{"role": "user", "content": "tell me a long story"}],
            }
            with httpx2.stream(
                "POST", served.url + "/v1/chat/completions", json=body, headers=headers
            ) as response:
                first = next(response.iter_raw())
                assert b"partial" in first
            slow.release.set()  # the endpoint finishes its answer; nobody is there to get it
            assert slow.first_done.wait(10)
            deadline = time.monotonic() + 5
            while app.state.proxy.leases.active() and time.monotonic() < deadline:
                time.sleep(0.01)
            with parts.lease() as engine:
                assert engine.session("s").messages == ()
            # The lease is free: the next exchange of the same session runs at once.
            started = time.monotonic()
            with openai.OpenAI(base_url=served.url + "/v1", api_key=TOKEN, max_retries=0) as client:
                again = client.chat.completions.create(
                    model="chat-model",
                    messages=[{"role": "user", "content": "short one"}],
                    extra_headers={SESSION: "s"},
                )
            assert again.choices[0].message.content == "quick"
            assert time.monotonic() - started < 5
            assert app.state.proxy.leases.active() == 0
    finally:
        slow.close()
    with parts.lease() as engine:
        texts = [(m.role, m.text) for m in engine.session("s").messages]
    parts.pool.close()
    assert texts == [("user", "short one"), ("assistant", "quick")]
