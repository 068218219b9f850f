"""``forget`` refuses a text too short or too broad to be one fact; only a person confirms.

The workspace is the demo's (the examples ingested model-free), where ``forget("in")`` used
to take most durable lines and messages. An agent calls the MCP tool with the official client
and cannot confirm a broad purge; a person at the CLI (a real process) can, with ``--broad``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client, types

from reverie import MemoryEngine
from reverie.errors import InputError
from reverie.mcp import build_server
from reverie.memory.provenance.breadth import check_query
from reverie.memory.provenance.plan import ForgetPlan, PlannedLine
from tests.cli.conftest import clean_env

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "ws"
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        engine.ingest([EXAMPLES / "conversations.json", EXAMPLES / "chatgpt-export"])
    return root


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(demo, root, symlinks=True)
    return root


def _state(root: Path) -> tuple[str, ...]:
    with MemoryEngine.open(root, environ={}, read_only=True, dense="off") as engine:
        texts = tuple(engine.read_memory(name) for name in ("SOUL", "USER", "MEMORY"))
        messages = sum(len(engine.session(s.key).messages) for s in engine.sessions())
        forgotten = sum(
            m.content == "[forgotten]"
            for s in engine.sessions()
            for m in engine.session(s.key).messages
        )
        log = tuple(info.sha for info in engine.log(50))
    return (*texts, str(messages), str(forgotten), *log)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(workspace: Path) -> AsyncIterator[Client]:
    engine = MemoryEngine.open(workspace, environ={}, dense="off")
    try:
        async with Client(build_server(engine, watch_seconds=0.05)) as connected:
            yield connected
    finally:
        engine.close()


@pytest.mark.anyio
async def test_an_agent_cannot_purge_a_broad_match_through_mcp(
    client: Client, workspace: Path
) -> None:
    before = _state(workspace)
    for text in ("in", "the", "port"):
        result = await client.call_tool("forget", {"text": text, "purge": True})
        assert result.is_error
        (content,) = result.content
        assert isinstance(content, types.TextContent)
        assert "too broad" in content.text or "at least 3 letters or digits" in content.text
    assert _state(workspace) == before
    named = await client.call_tool("forget", {"text": "Utrecht"})
    assert not named.is_error


def _cli(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reverie", *args],
        env=clean_env(workspace.parent, workspace),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_cli_refuses_a_broad_match_unless_the_person_confirms_it(workspace: Path) -> None:
    before = _state(workspace)
    short = _cli(workspace, "forget", "in", "--yes", "--purge")
    assert short.returncode == 1
    assert "at least 3 letters or digits" in short.stderr
    broad = _cli(workspace, "forget", "and the", "--yes", "--purge")
    assert broad.returncode == 1
    assert "too broad" in broad.stderr
    assert "--broad" in broad.stderr
    assert "Traceback" not in broad.stderr
    assert _state(workspace) == before
    confirmed = _cli(workspace, "forget", "and the", "--yes", "--broad")
    assert confirmed.returncode == 0, confirmed.stderr
    assert _state(workspace) != before


def test_the_sdk_refuses_without_confirm_broad(workspace: Path) -> None:
    with MemoryEngine.open(workspace, environ={}, dense="off") as engine:
        with pytest.raises(InputError, match="inside the longer word"):
            engine.forget("trech")  # in "Utrecht"
        with pytest.raises(InputError, match="at least 3 letters or digits"):
            engine.forget("  ")
        assert engine.forget("Utrecht").removed


def test_check_query_counts_letters_and_accepts_two_cjk_signs() -> None:
    for text in ("a", "in", "12", "  ", "-- !"):
        with pytest.raises(InputError):
            check_query(text)
    for text in ("Ana", "小明", "Porto", "120"):
        check_query(text)


def test_a_whole_word_in_a_few_lines_is_not_broad() -> None:
    def plan(query: str, *texts: str) -> ForgetPlan:
        lines = tuple(
            PlannedLine(file="USER.md", number=n, text=t, reason="matches")
            for n, t in enumerate(texts, start=1)
        )
        return ForgetPlan(query=query, lines=lines)

    assert plan("Porto", "- Lives in Porto's old town").broad is None
    assert plan("小明", "- 小明的猫叫咪咪").broad is None
    assert plan("port", "- Moved to Portugal").broad is not None
    assert plan("Porto", *[f"- Porto fact {n}" for n in range(9)]).broad is not None
