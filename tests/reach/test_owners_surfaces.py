"""MCP over HTTP and the viewer on one ``reverie serve`` of two principals, over real HTTP.

MCP: Alice's facts, remembered with her token through the official MCP client, are never
found with Bob's; an ``mcp-session-id`` made for Alice is unknown with Bob's token. The
viewer: Bob's token shows Bob's memory and nothing of Alice's (pages, search, the principal
list refused); the server's own token (admin) lists both and opens one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from starlette.routing import Mount

from reverie.serve import create_app
from reverie.testing.folders import workspace_of
from reverie.viewer import HomeMemories, create_viewer
from tests.reach.conftest import TOKEN, HomeParts, new_home
from tests.reach.running import ServedApp

ALICE_FACT = "Alice keeps her spare key under the blue flowerpot"


@dataclass
class Served:
    url: str
    parts: HomeParts
    alice: str
    bob: str
    touched: list[str]


def _serve(tmp_path: Path, *, capacity: int = 64) -> Iterator[Served]:
    parts = new_home(tmp_path, capacity=capacity)
    viewer = create_viewer(HomeMemories(parts.pool, parts.gate.grant))
    touched: list[str] = []
    app = create_app(
        parts.pool,
        gate=parts.gate,
        upstream=None,
        watch_seconds=0.2,
        mounts=[Mount("/", app=viewer)],
        exchanged=touched.append,
    )
    alice = parts.book.issue("principal", principal="alice")
    bob = parts.book.issue("principal", principal="bob")
    with ServedApp(app) as running:
        yield Served(url=running.url, parts=parts, alice=alice, bob=bob, touched=touched)
    parts.pool.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path)


@pytest.fixture
def crowded(tmp_path: Path) -> Iterator[Served]:
    """Room for one engine and one MCP server: every switch of principal closes the other."""
    yield from _serve(tmp_path, capacity=1)


async def _call(url: str, token: str, tool: str, args: dict[str, Any]) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool(tool, args)
        assert not result.is_error, result
        return result.structured_content


def test_mcp_of_bob_never_finds_alices_memory(served: Served) -> None:
    url = served.url + "/mcp"

    async def run() -> None:
        await _call(url, served.alice, "remember", {"text": ALICE_FACT})
        found = await _call(url, served.alice, "search_memory", {"query": "flowerpot"})
        assert len(found["hits"]) == 1
        bobs = await _call(url, served.bob, "search_memory", {"query": "flowerpot key"})
        assert bobs["hits"] == []
        recalled = await _call(url, served.bob, "recall", {"query": "where is the spare key"})
        assert "flowerpot" not in str(recalled)

    anyio.run(run)
    assert served.parts.home.principals() == ["alice", "bob"]
    assert {"alice", "bob"} == set(served.touched)  # the background maintenance is told


def test_with_room_for_one_principal_each_switch_stays_isolated(crowded: Served) -> None:
    url = crowded.url + "/mcp"

    async def run() -> None:
        for round_ in range(2):
            await _call(url, crowded.alice, "remember", {"text": f"{ALICE_FACT} ({round_})"})
            bobs = await _call(url, crowded.bob, "search_memory", {"query": "flowerpot"})
            assert bobs["hits"] == []
        found = await _call(url, crowded.alice, "search_memory", {"query": "flowerpot"})
        assert len(found["hits"]) == 2

    anyio.run(run)
    stats = crowded.parts.pool.stats()
    assert stats.open == 1
    assert stats.closed >= 3  # engines were closed and opened again between principals


def _mcp_post(served: Served, token: str, body: dict[str, Any], **headers: str) -> httpx2.Response:
    sent = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **headers,
    }
    return httpx2.post(served.url + "/mcp", json=body, headers=sent, timeout=30)


HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LATEST_HANDSHAKE_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def test_a_stopped_mcp_server_forgets_its_sessions(crowded: Served) -> None:
    started = _mcp_post(crowded, crowded.alice, HELLO)
    session = started.headers["mcp-session-id"]
    assert _mcp_post(crowded, crowded.bob, HELLO).status_code == 200  # Alice's server stops
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
    headers = {"mcp-session-id": session, "mcp-protocol-version": LATEST_HANDSHAKE_VERSION}
    assert _mcp_post(crowded, crowded.alice, ping, **headers).status_code == 404


def test_an_mcp_session_of_alice_is_unknown_with_bobs_token(served: Served) -> None:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LATEST_HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    started = _mcp_post(served, served.alice, hello)
    assert started.status_code == 200
    session = started.headers["mcp-session-id"]
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read_memory", "arguments": {"file": "USER.md"}},
    }
    headers = {"mcp-session-id": session, "mcp-protocol-version": LATEST_HANDSHAKE_VERSION}
    crossed = _mcp_post(served, served.bob, call, **headers)
    assert crossed.status_code == 404
    assert "alice" not in crossed.text.lower()
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _mcp_post(served, served.alice, initialized, **headers).status_code == 202
    own = _mcp_post(served, served.alice, call, **headers)
    assert own.status_code == 200
    assert "# User" in own.text


def test_mcp_refuses_a_principal_token_naming_another(served: Served) -> None:
    refused = _mcp_post(
        served,
        served.bob,
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        **{"X-Reverie-Principal": "alice"},
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "principal_not_allowed"
    assert _mcp_post(served, "wrong", {"jsonrpc": "2.0", "id": 1}).status_code == 401


class Browser:
    """A viewer session over real HTTP: the login cookie, then pages (no redirect followed)."""

    def __init__(self, served: Served, token: str) -> None:
        self.url = served.url
        self.http = httpx2.Client(base_url=served.url, timeout=30, follow_redirects=False)
        login = self.http.get("/", params={"token": token})
        assert login.status_code == 303, login.text
        self.cookie = login.headers["set-cookie"].split(";", 1)[0]

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.http.close()

    def get(self, where: str, **params: str) -> httpx2.Response:
        return self.http.get(where, params=params, headers={"Cookie": self.cookie})

    def post(self, where: str, form: dict[str, str]) -> httpx2.Response:
        headers = {"Cookie": self.cookie, "Origin": self.url}
        return self.http.post(where, data=form, headers=headers)


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def _alice_with_memory(served: Served) -> None:
    with served.parts.lease("alice") as alice:
        alice.record("tg:alice", [{"role": "user", "content": ALICE_FACT}])
        workspace_of(alice).files.write("USER", "# User\n\n- Alice lives in Leeds\n")
    with served.parts.lease("bob") as bob:
        bob.record("tg:bob", [{"role": "user", "content": "Bob likes chess"}])


def test_the_viewer_with_bobs_token_shows_bob_and_nothing_of_alice(served: Served) -> None:
    _alice_with_memory(served)
    with Browser(served, served.bob) as bob:
        _bob_sees_only_bob(bob)


def _bob_sees_only_bob(bob: Browser) -> None:
    pages = [
        bob.get("/"),
        bob.get("/search", q="flowerpot"),
        bob.get("/search", q="Leeds"),
        bob.get("/sessions"),
        bob.get("/session", key="tg:alice"),
        bob.get("/timeline"),
    ]
    assert "Bob likes chess" in bob.get("/session", key="tg:bob").text
    for page in pages:
        assert "spare key" not in page.text
        assert "Alice lives" not in page.text
        assert "alice" not in page.text.lower().replace("tg:alice", "")  # the asked key only
    assert "0 result(s)" in pages[1].text
    assert "0 result(s)" in pages[2].text
    assert bob.get("/principals").status_code == 403
    editor = bob.get("/edit", path="USER.md")
    assert "# User" in editor.text
    assert "Alice lives" not in editor.text
    chosen = bob.post("/principals", {"csrf": _csrf(editor.text), "principal": "alice"})
    assert chosen.status_code == 403
    assert "Alice lives" not in bob.get("/").text


def test_an_app_token_or_a_wrong_one_does_not_log_in(served: Served) -> None:
    app_token = served.parts.book.issue("app")
    for token in (app_token, "wrong"):
        response = httpx2.get(served.url + "/", params={"token": token}, timeout=30)
        assert response.status_code == 401
        assert "Leeds" not in response.text


def test_the_admin_lists_the_principals_and_opens_one(served: Served) -> None:
    _alice_with_memory(served)
    with Browser(served, TOKEN) as admin:
        _admin_walk(admin)


def _admin_walk(admin: Browser) -> None:
    first = admin.get("/")
    assert first.status_code == 303
    assert first.headers["location"] == "/principals"
    listing = admin.get("/principals")
    assert listing.status_code == 200
    for name in ("alice", "bob"):
        assert f'value="{name}"' in listing.text
    assert "Leeds" not in listing.text
    missing = admin.post("/principals", {"csrf": _csrf(listing.text), "principal": "zed"})
    assert missing.status_code == 404
    forged = admin.post("/principals", {"csrf": "forged", "principal": "alice"})
    assert forged.status_code == 403
    opened = admin.post("/principals", {"csrf": _csrf(listing.text), "principal": "alice"})
    assert opened.status_code == 303
    overview = admin.get("/")
    assert "Alice lives in Leeds" in overview.text
    assert "Bob likes chess" not in admin.get("/search", q="chess").text
    admin.post("/principals", {"csrf": _csrf(listing.text), "principal": "bob"})
    assert "Leeds" not in admin.get("/").text
