"""Fixtures for the proxy: an engine, ``reverie serve``'s app in front of the loopback endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import openai
import pytest

from reverie import MemoryEngine
from reverie.messages import JSONObject, JSONValue
from reverie.serve import Upstream, create_app
from tests.llm.loopback import LoopbackServer, ScriptedResponse
from tests.reach.running import ServedApp

TOKEN = "test-token-0123456789"


@dataclass
class Proxy:
    """A served proxy app, its engine and the loopback endpoint behind it."""

    url: str
    engine: MemoryEngine
    upstream: LoopbackServer
    clients: list[openai.OpenAI] = field(default_factory=list)

    def client(self, token: str = TOKEN, timeout: float = 10.0) -> openai.OpenAI:
        """An OpenAI SDK client of the proxy (closed with the fixture)."""
        made = openai.OpenAI(
            base_url=self.url + "/v1", api_key=token, max_retries=0, timeout=timeout
        )
        self.clients.append(made)
        return made

    def texts(self, session: str) -> list[tuple[str, str]]:
        return [(m.role, m.text) for m in self.engine.session(session).messages]


def start_proxy(
    tmp_path: Path, loopback: LoopbackServer, *, timeout: float = 10.0
) -> Iterator[Proxy]:
    engine = MemoryEngine.open(tmp_path / "ws", environ={})
    upstream = Upstream(
        base_url=loopback.base_url, api_key="upstream-key", model="chat-model", timeout=timeout
    )
    app = create_app(engine, token=TOKEN, upstream=upstream, watch_seconds=0.2)
    with ServedApp(app) as served:
        proxy = Proxy(url=served.url, engine=engine, upstream=loopback)
        yield proxy
        for client in proxy.clients:
            client.close()
    engine.close()


@pytest.fixture
def proxy(tmp_path: Path, loopback: LoopbackServer) -> Iterator[Proxy]:
    yield from start_proxy(tmp_path, loopback)


def chunk(delta: JSONObject, finish: str | None = None) -> JSONObject:
    """One chat.completion.chunk event of choice 0."""
    choice: JSONObject = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "chatcmpl-stream",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "chat-model",
        "choices": [choice],
    }


def sse(*events: JSONValue) -> ScriptedResponse:
    """A complete server-sent-events answer ending with ``[DONE]``."""
    body = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    return ScriptedResponse(
        body=body + b"data: [DONE]\n\n", headers={"Content-Type": "text/event-stream"}
    )
