"""docs/recipes.md's MCP client configs, started exactly as the client would start them.

Each ``json`` block under a client's heading is parsed as that client parses it (an
``mcpServers`` object; Claude Code's ``.mcp.json`` also says ``"type": "stdio"``), and the
``reverie`` entry's command line is run by the official MCP client's stdio transport, with
the entry's ``env`` on top of a clean one. Only the example user's two paths are swapped for
this machine's (the ``reverie`` of this environment, a fresh workspace); nothing else of the
command line is changed. The ``claude mcp add`` line must say the same command line.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.cli.conftest import clean_env

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "recipes.md"
REVERIE = "/home/ada/.venv/bin/reverie"
WORKSPACE = "/home/ada/.reverie/default"
CLIENTS = ("Claude Desktop", "Claude Code", "Cursor")


def _section(title: str) -> str:
    text = RECIPES.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : None if end < 0 else end]


def _entry(title: str) -> dict[str, Any]:
    blocks = re.findall(r"```json\n(.*?)```", _section(title), flags=re.DOTALL)
    assert len(blocks) == 1, f"{title}: one json block"
    config = json.loads(blocks[0])
    assert set(config) == {"mcpServers"}
    entry: dict[str, Any] = config["mcpServers"]["reverie"]
    assert isinstance(entry["command"], str)
    assert all(isinstance(arg, str) for arg in entry["args"])
    assert all(isinstance(v, str) for v in entry.get("env", {}).values())
    return entry


def _here(value: str, workspace: Path) -> str:
    reverie = str(Path(sys.executable).with_name("reverie"))
    return value.replace(REVERIE, reverie).replace(WORKSPACE, str(workspace))


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
def test_the_recipes_config_starts_reverie_mcp_and_its_tools_answer(
    client: str, tmp_path: Path
) -> None:
    entry = _entry(client)
    assert entry["command"] == REVERIE
    assert WORKSPACE in entry["args"]
    if client == "Claude Code":
        assert entry["type"] == "stdio"
    workspace = tmp_path / "ws"
    env = clean_env(tmp_path, tmp_path / "not-this-one") | entry.get("env", {})
    params = StdioServerParameters(
        command=_here(entry["command"], workspace),
        args=[_here(arg, workspace) for arg in entry["args"]],
        env=env,
    )

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(params) as mcp:
                names = {tool.name for tool in (await mcp.list_tools()).tools}
                assert {"search_memory", "remember", "recall"} <= names
                kept = await mcp.call_tool("remember", {"text": "The ferry leaves at 7:40"})
                assert not kept.is_error
                found = await mcp.call_tool("search_memory", {"query": "ferry"})
                assert found.structured_content is not None
                assert len(found.structured_content["hits"]) == 1

    anyio.run(session)
    assert (workspace / "SOUL.md").exists()  # the -w of the config, not $REVERIE_WORKSPACE


def test_the_claude_code_command_says_the_same_command_line_as_its_json() -> None:
    entry = _entry("Claude Code")
    line = next(
        line for line in _section("Claude Code").splitlines() if line.startswith("claude mcp add")
    )
    words = shlex.split(line)
    assert words[:6] == ["claude", "mcp", "add", "--scope", "project", "reverie"]
    assert words[6] == "--"
    assert words[7:] == [entry["command"], *entry["args"]]
