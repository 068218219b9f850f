"""An endpoint's own error events in a stream reach the client redacted, as error bodies do.

A real loopback endpoint streams a few chunks and then an OpenAI-shaped error event (or an
``event: error`` event) echoing the key it was given; the official ``openai`` client reads the
stream through ``reverie serve``'s proxy and raises ``APIError`` with the key redacted.
Ordinary chunks pass byte for byte (``ErrorScreen`` is also checked on its own, split anywhere).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import openai
import pytest

from reverie.serve.stream import ErrorScreen
from tests.llm.loopback import LoopbackServer, ScriptedResponse
from tests.reach.conftest import TOKEN, Proxy, chunk, start_proxy

KEY = "sk-proj-" + "Q7x2Lm9Vb4Nc8Rt1Zk5Wp3Hs6Jd0Fg2A"
SECRET_URL = "https://ada:hunter2secret@models.example.com/v1?api_key=abc123def456ghi"


@pytest.fixture
def proxy(tmp_path: Path, loopback: LoopbackServer) -> Iterator[Proxy]:
    yield from start_proxy(tmp_path, loopback)


def _stream(*events: bytes) -> ScriptedResponse:
    return ScriptedResponse(body=b"".join(events), headers={"Content-Type": "text/event-stream"})


def _data(event: object) -> bytes:
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def _error(message: str) -> dict[str, object]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": "bad_key"}}


def _read(proxy: Proxy) -> str:
    stream = proxy.client().chat.completions.create(
        model="chat-model",
        messages=[{"role": "user", "content": "hello"}],
        stream=True,
        extra_headers={"X-Reverie-Session": "s"},
    )
    return "".join(part.choices[0].delta.content or "" for part in stream if part.choices)


def test_an_error_chunk_in_a_stream_reaches_the_openai_client_redacted(proxy: Proxy) -> None:
    said = f"Incorrect API key provided: Bearer {KEY}. See {SECRET_URL}"
    proxy.upstream.script(
        _stream(_data(chunk({"role": "assistant", "content": "Hi"})), _data(_error(said)))
    )
    with pytest.raises(openai.APIError) as raised:
        _read(proxy)
    shown = json.dumps(raised.value.body) + str(raised.value)
    assert "Incorrect API key provided" in shown
    assert KEY not in shown
    assert "hunter2secret" not in shown
    assert "abc123def456ghi" not in shown
    assert "[redacted" in shown
    assert proxy.texts("s") == []  # an unfinished exchange is not recorded


def test_an_sse_error_event_is_redacted_whatever_its_data(proxy: Proxy) -> None:
    body = b"event: error\ndata: upstream refused token " + KEY.encode() + b"\n\n"
    proxy.upstream.script(_stream(_data(chunk({"role": "assistant", "content": "Hi"})), body))
    with httpx2.stream(  # the raw bytes a client receives
        "POST",
        proxy.url + "/v1/chat/completions",
        json={
            "model": "chat-model",
            "stream": True,
            "messages": [{"role": "user", "content": "x"}],
        },
        headers={"Authorization": f"Bearer {TOKEN}", "X-Reverie-Session": "raw"},
    ) as answer:
        received = b"".join(answer.iter_bytes())
    assert b"upstream refused token" in received
    assert KEY.encode() not in received


def test_ordinary_chunks_pass_byte_for_byte_however_the_stream_is_split() -> None:
    said = _data(chunk({"role": "assistant", "content": "an error-free answer"}))
    stream = said + _data(_error(f"bad key {KEY}")) + b"data: [DONE]\n\n"
    for size in (1, 3, 7, len(stream)):
        screen = ErrorScreen()
        out = b"".join(screen.feed(stream[at : at + size]) for at in range(0, len(stream), size))
        out += screen.flush()
        assert out.startswith(said)
        assert out.endswith(b"data: [DONE]\n\n")
        assert KEY.encode() not in out
        assert b"bad key [redacted" in out
