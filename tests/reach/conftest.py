"""Fixtures for the proxy: a folder home, ``reverie serve``'s app in front of the loopback endpoint.

``new_home`` makes what ``reverie serve`` serves: a folder home (one workspace per
principal), its token book, the server's gate (its own token is ``TOKEN``) and one pool.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import openai
import pytest

from reverie import MemoryEngine
from reverie.config.sections import UnknownPrincipals
from reverie.core.messages import JSONObject, JSONValue
from reverie.engine.owners import (
    DEFAULT_PRINCIPAL,
    EnginePool,
    FolderHome,
    Openers,
    SqliteTokenBook,
)
from reverie.serve import Gate, Upstream, create_app
from tests.llm.loopback import LoopbackServer, ScriptedResponse
from tests.reach.running import ServedApp

TOKEN = "test-token-0123456789"
SESSION = "X-Reverie-Session"
PRINCIPAL = "X-Reverie-Principal"


@dataclass
class HomeParts:
    """What ``reverie serve`` serves: a home, its token book, its gate, its engine pool."""

    home: FolderHome
    book: SqliteTokenBook
    gate: Gate
    pool: EnginePool

    def lease(
        self, principal: str = DEFAULT_PRINCIPAL, *, create: bool = True
    ) -> AbstractContextManager[MemoryEngine]:
        """A principal's engine from the server's own pool."""
        return self.pool.lease(principal, create=create)


def new_home(
    tmp_path: Path, *, unknown: UnknownPrincipals = "create", capacity: int = 64
) -> HomeParts:
    """A fresh folder home under ``tmp_path`` (model-free, no REVERIE_ variable read)."""
    home = FolderHome(tmp_path / "home", openers=Openers(environ={}, dense="off"))
    book = SqliteTokenBook(home.state_folder() / "tokens.sqlite3")
    gate = Gate(home, TOKEN, book=book, unknown_principals=unknown)
    pool = EnginePool(home, capacity=capacity)
    return HomeParts(home=home, book=book, gate=gate, pool=pool)


@dataclass
class Proxy:
    """A served proxy app, its home and the loopback endpoint behind it."""

    url: str
    parts: HomeParts
    upstream: LoopbackServer
    clients: list[openai.OpenAI] = field(default_factory=list)

    def lease(self, principal: str = DEFAULT_PRINCIPAL) -> AbstractContextManager[MemoryEngine]:
        """A principal's engine (the default principal's: the server's own token's)."""
        return self.parts.lease(principal)

    def client(self, token: str = TOKEN, timeout: float = 10.0) -> openai.OpenAI:
        """An OpenAI SDK client of the proxy (closed with the fixture)."""
        made = openai.OpenAI(
            base_url=self.url + "/v1", api_key=token, max_retries=0, timeout=timeout
        )
        self.clients.append(made)
        return made

    def texts(
        self, session: str = "api:default", principal: str = DEFAULT_PRINCIPAL
    ) -> list[tuple[str, str]]:
        with self.lease(principal) as engine:
            return [(m.role, m.text) for m in engine.session(session).messages]


def start_proxy(
    tmp_path: Path,
    loopback: LoopbackServer,
    *,
    timeout: float = 10.0,
    unknown: UnknownPrincipals = "create",
) -> Iterator[Proxy]:
    parts = new_home(tmp_path, unknown=unknown)
    upstream = Upstream(
        base_url=loopback.base_url, api_key="upstream-key", model="chat-model", timeout=timeout
    )
    app = create_app(parts.pool, gate=parts.gate, upstream=upstream, watch_seconds=0.2)
    with ServedApp(app) as served:
        proxy = Proxy(url=served.url, parts=parts, upstream=loopback)
        yield proxy
        for client in proxy.clients:
            client.close()
    parts.pool.close()


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
