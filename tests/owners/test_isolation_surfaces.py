"""Isolation through every surface of ``reverie serve``, as a property, over real HTTP.

The scenario of ``tests.owners.isolation`` again, its messages now arriving by a surface the
example picks for each: the SDK (the server's own pool), the proxy (the official ``openai``
client against the real app on a loopback port) with an app token naming the principal in
``user`` or with the principal's own token, and MCP over HTTP (the official MCP client's
``remember``). Then ``Maintenance`` and a dream for each principal. Then, with each
principal's token: the prompt the proxy forwards upstream, the 403 of naming another
principal, MCP's search, recall, files, status and resources, and the viewer's pages hold
no token of another principal; a viewer search for another principal's word finds nothing.
A folder home and a database home (the real PostgreSQL test cluster), model-free.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.routing import Mount

from reverie.engine.owners import EnginePool, Home
from reverie.serve import Gate, Upstream, create_app
from reverie.viewer import HomeMemories, create_viewer
from tests.llm.loopback import LoopbackServer, chat_text
from tests.owners.isolation import Facts, engine_pool, examples, maintain, opened_home, scenarios
from tests.reach.running import ServedApp

pytestmark = pytest.mark.slow

TOKEN = "isolation-admin-token-0123456789"
SESSION_HEADER = "X-Reverie-Session"
ROUTES = ("sdk", "proxy-app", "proxy-own", "mcp")


@dataclass
class Server:
    """A served home: its URL, pool, upstream, and a principal token for each principal."""

    url: str
    pool: EnginePool
    upstream: LoopbackServer
    app_token: str
    own: dict[str, str]
    forwarded: list[tuple[int, str]]  # (principal number, prompt sent upstream)

    def chat(self, token: str, number: int, text: str, **options: Any) -> None:
        self.upstream.script(chat_text("Noted, I will keep that in mind."))
        with openai.OpenAI(base_url=self.url + "/v1", api_key=token, max_retries=0) as client:
            client.chat.completions.create(
                model="chat-model", messages=[{"role": "user", "content": text}], **options
            )
        self.forwarded.append((number, json.dumps(self.upstream.bodies()[-1]["messages"])))


@contextmanager
def serving(home: Home, ids: list[str]) -> Iterator[Server]:
    """The real ``reverie serve`` app (proxy, MCP, viewer) over ``home`` on a loopback port."""
    book = home.tokens()  # the folder's SQLite book, or the database's table
    gate = Gate(home, TOKEN, book=book)
    with engine_pool(home) as pool, LoopbackServer() as upstream:
        served = Upstream(base_url=upstream.base_url, api_key="k", model="chat-model", timeout=30)
        viewer = create_viewer(HomeMemories(pool, gate.grant))
        app = create_app(pool, gate=gate, upstream=served, mounts=[Mount("/", app=viewer)])
        own = {principal: book.issue("principal", principal=principal) for principal in ids}
        with ServedApp(app) as running:
            yield Server(running.url, pool, upstream, book.issue("app"), own, [])


async def _mcp(url: str, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Run MCP tool calls (then read every resource) with ``token``; their results as text."""
    headers = {"Authorization": f"Bearer {token}"}
    texts = []
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http)) as client,
    ):
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            content = result.structured_content or {}
            for item in content.get("items", []):  # recall: its query words are not data
                item.pop("why", None)
            texts.append(json.dumps(content) + repr(result.content))
        listed = await client.list_resources()
        for resource in listed.resources:
            texts.append(repr(await client.read_resource(resource.uri)))
    return texts


def deliver(server: Server, ids: list[str], facts: Facts, routes: list[str]) -> None:
    """Each fact by the surface its route names, in arrival order."""
    for number, fact in enumerate(facts.arrivals):
        principal = ids[fact.principal]
        route = routes[number % len(routes)]
        if route == "sdk":
            with server.pool.lease(principal, create=True) as engine:
                engine.record(fact.session, [{"role": "user", "content": fact.text}])
        elif route == "proxy-app":
            server.chat(server.app_token, fact.principal, fact.text, user=principal)
        elif route == "proxy-own":
            headers = {SESSION_HEADER: fact.session}
            server.chat(server.own[principal], fact.principal, fact.text, extra_headers=headers)
        else:
            calls = [("remember", {"text": fact.text, "session": fact.session})]
            anyio.run(_mcp, server.url, server.own[principal], calls)


def _viewer(server: Server, token: str, facts: Facts, number: int) -> list[str]:
    """The viewer's pages for ``token``; a search for another principal's word finds none."""
    with httpx2.Client(base_url=server.url, timeout=60, follow_redirects=False) as http:
        login = http.get("/", params={"token": token})
        assert login.status_code == 303, login.text
        cookie = {"Cookie": login.headers["set-cookie"].split(";", 1)[0]}
        pages = [http.get(where, headers=cookie).text for where in ("/", "/sessions", "/timeline")]
        for key in ("api:default", "chat:7", "mcp:default"):
            pages.append(http.get("/session", params={"key": key}, headers=cookie).text)
        pages.append(http.get("/edit", params={"path": "USER.md"}, headers=cookie).text)
        own = facts.tokens(number)[0]
        assert own in http.get("/search", params={"q": own}, headers=cookie).text.lower()
        for word in facts.foreign(number):
            found = http.get("/search", params={"q": word}, headers=cookie).text
            assert "0 result(s)" in found
    return pages


def inspect(server: Server, ids: list[str], facts: Facts) -> None:
    """What every surface shows each principal holds none of the others' tokens."""
    everything = " ".join(facts.tokens())
    for number, principal in enumerate(ids):
        token = server.own[principal]
        server.chat(token, number, " ".join(facts.tokens(number)))
        server.chat(server.app_token, number, "What do you know about me?", user=principal)
        other = ids[(number + 1) % len(ids)]
        with pytest.raises(openai.PermissionDeniedError) as refused:
            server.chat(token, number, everything, user=other)
        shown = [str(refused.value.body), refused.value.message]
        calls = [("search_memory", {"query": word}) for word in facts.tokens()]
        calls += [("recall", {"query": everything})]
        calls += [("read_memory", {"file": f}) for f in ("USER.md", "MEMORY.md", "SOUL.md")]
        calls += [("status", {})]
        shown += anyio.run(_mcp, server.url, token, calls)
        shown += _viewer(server, token, facts, number)
        for text in shown:
            assert facts.leaks(text, number) == set(), text
    for number, prompt in server.forwarded:
        if everything not in prompt:  # the refused request was never forwarded
            assert facts.leaks(prompt, number) == set(), prompt


def run_served(kind: str, facts: Facts, routes: list[str], pg_url: str | None) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        opened_home(kind, facts, Path(folder), pg_url, model=None) as (home, ids, clock),
        serving(home, ids) as server,
    ):
        deliver(server, ids, facts, routes)
        maintain(server.pool, ids, clock)
        inspect(server, ids, facts)


ROUTE_LISTS = st.permutations(ROUTES * 3)  # every surface carries some of the facts


@examples(2)
@given(facts=scenarios(), routes=ROUTE_LISTS)
def test_no_surface_shows_a_principal_another_principals_facts_in_a_folder_home(
    facts: Facts, routes: list[str]
) -> None:
    run_served("folder", facts, routes, None)


@examples(1)
@given(facts=scenarios(), routes=ROUTE_LISTS)
def test_no_surface_shows_a_principal_another_principals_facts_in_a_database_home(
    facts: Facts, routes: list[str], pg_url: str
) -> None:
    run_served("postgres", facts, routes, pg_url)
