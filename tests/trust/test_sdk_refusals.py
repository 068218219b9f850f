"""The SDK's refusals of a caller's values are ``InputError`` (reverie's), never a bare ValueError.

So a surface reports them with reverie's own message: the MCP client sees what was wrong
(before, a builtin ValueError reached it as a bare "Error executing tool"), the CLI prints
one line. Nothing is written by a refused call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path

import pytest
from mcp import Client, types

from reverie import MemoryEngine
from reverie.errors import InputError
from reverie.mcp import build_server

REFUSALS: dict[str, tuple[Callable[[MemoryEngine], object], str]] = {
    "edit_file with a bracketed author": (
        lambda e: e.edit_file("USER.md", "# User\n\n- x\n", author="<evil>"),
        "an author is",
    ),
    "edit_file with a blank author": (
        lambda e: e.edit_file("USER.md", "# User\n\n- x\n", author="  "),
        "an author is",
    ),
    "forget of blanks": (lambda e: e.forget("  "), "at least 3 letters"),
    "why of blanks": (lambda e: e.why("  "), "why needs a text"),
    "search since a naive time": (
        lambda e: e.search("tea", since=datetime(2026, 1, 1)),  # noqa: DTZ001 (the point)
        "timezone-aware",
    ),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_a_refused_value_is_an_input_error_and_writes_nothing(
    engine: MemoryEngine, name: str
) -> None:
    call, said = REFUSALS[name]
    before = (engine.read_memory("USER"), [info.sha for info in engine.log(5)])
    with engine, pytest.raises(InputError, match=said):
        call(engine)
    with MemoryEngine.open(Path(engine.location), environ={}, dense="off") as again:
        assert (again.read_memory("USER"), [info.sha for info in again.log(5)]) == before


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(engine: MemoryEngine) -> AsyncIterator[Client]:
    async with Client(build_server(engine, watch_seconds=0.05)) as connected:
        yield connected
    engine.close()


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        ("forget", {"text": "  "}, "at least 3 letters"),
        ("why", {"text": "  "}, "why needs a text"),
    ],
)
async def test_the_mcp_client_sees_reverie_s_reason(
    client: Client, tool: str, arguments: dict[str, str], said: str
) -> None:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    assert said in content.text
