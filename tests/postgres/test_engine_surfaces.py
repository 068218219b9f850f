"""The MCP server and the viewer on a PostgreSQL workspace: what runs (``why``, ``forget`` too)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from mcp import Client

from reverie import MemoryEngine
from reverie.mcp import build_server
from reverie.viewer import serve_viewer
from tests.postgres.conftest import new_workspace
from tests.viewer.conftest import TOKEN
from tests.viewer.test_viewer_http import login, request

pytestmark = pytest.mark.slow


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def engine(pg_url: str) -> Iterator[MemoryEngine]:
    name = new_workspace(pg_url, "surf")
    with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as opened:
        yield opened


@pytest.fixture
async def client(engine: MemoryEngine) -> AsyncIterator[Client]:
    async with Client(build_server(engine, watch_seconds=0.05)) as connected:
        yield connected


@pytest.mark.anyio
async def test_mcp_tools_run_on_the_database(client: Client, engine: MemoryEngine) -> None:
    # The person's words come through the SDK; an MCP client's note is its own (assistant).
    engine.record("mcp:default", [{"role": "user", "content": "I live in Lisbon."}])
    noted = {"text": "The person plays the cello."}
    assert not (await client.call_tool("remember", noted)).is_error
    found = await client.call_tool("search_memory", {"query": "cello"})
    assert found.structured_content is not None
    assert found.structured_content["hits"]
    engine.compact("mcp:default")
    dreamed = await client.call_tool("dream", {})
    assert not dreamed.is_error, dreamed.content
    assert "Lisbon" in engine.read_memory("USER")
    why = await client.call_tool("why", {"text": "Lisbon"})
    assert not why.is_error, why.content
    assert "Lisbon" in str(why.content)
    assert "mcp:default" in str(why.content)  # the session it was said in


def test_the_viewer_shows_a_database_workspace(engine: MemoryEngine) -> None:
    engine.record("tg:ana", [{"role": "user", "content": "I live in Lisbon and I play the cello."}])
    engine.compact("tg:ana")
    engine.dream()
    with serve_viewer(engine, TOKEN, author="Ada <ada@example.org>") as viewer:
        cookie = login(viewer)
        for path in ("/", "/timeline", "/search?q=cello", "/sessions", "/session?key=tg:ana"):
            status, _headers, page = request(viewer, path, headers={"Cookie": cookie})
            assert status == 200, (path, page)
            assert "cello" in page or path in ("/timeline", "/sessions")
        status, _headers, page = request(viewer, "/forget?text=Lisbon", headers={"Cookie": cookie})
        assert status == 200, page
        assert "Lisbon" in page
        assert "does not run on a PostgreSQL workspace" not in page
