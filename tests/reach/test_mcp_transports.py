"""The MCP server over its real transports: a ``reverie mcp`` subprocess, and HTTP at /mcp."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from reverie.serve import create_app
from tests.cli.conftest import clean_env
from tests.reach.conftest import TOKEN, new_home
from tests.reach.running import ServedApp

TOOLS = {
    "search_memory",
    "remember",
    "record",
    "read_memory",
    "status",
    "dream",
    "recall",
    "why",
    "forget",
}


async def _exercise(client: Client) -> None:
    """List the tools, call each one, and read a resource."""
    assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
    calls: list[tuple[str, dict[str, Any]]] = [
        ("remember", {"text": "The ferry leaves at 7:40"}),
        ("record", {"messages": [{"role": "assistant", "content": "ferry or bridge?"}]}),
        ("search_memory", {"query": "ferry"}),
        ("read_memory", {"file": "MEMORY.md"}),
        ("status", {}),
        ("dream", {}),
    ]
    results = {name: await client.call_tool(name, args) for name, args in calls}
    assert not [name for name, result in results.items() if result.is_error]
    hits = results["search_memory"].structured_content
    assert hits is not None
    assert len(hits["hits"]) == 2
    status = results["status"].structured_content
    assert status is not None
    assert status["mode"] == "model-free"
    read = await client.read_resource("reverie://memory/SOUL.md")
    assert read.contents[0].text.startswith("# Soul")  # type: ignore[union-attr]


@pytest.mark.slow
def test_reverie_mcp_over_stdio(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "reverie", "mcp", "-w", str(workspace)],
        env=clean_env(tmp_path, workspace),
    )

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(params) as client:
                await _exercise(client)

    anyio.run(session)
    assert (workspace / "SOUL.md").exists()


def test_mcp_over_streamable_http_behind_the_token(tmp_path: Path) -> None:
    parts = new_home(tmp_path)

    async def session(url: str) -> None:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            await _exercise(client)

    with ServedApp(create_app(parts.pool, gate=parts.gate, upstream=None)) as served:
        anyio.run(session, served.url + "/mcp")
    parts.pool.close()
