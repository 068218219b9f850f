"""The MCP server in process with the official client: every tool, the resources, change events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, types

from reverie import MemoryEngine
from reverie.mcp import build_server
from reverie.testing.folders import workspace_of

pytestmark = pytest.mark.anyio

USER_URI = "reverie://memory/USER.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def engine(tmp_path: Path) -> MemoryEngine:
    """A workspace whose MCP client relays the person's words (``[mcp] person_notes``)."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "reverie.toml").write_text("[mcp]\nperson_notes = true\n", "utf-8")
    return MemoryEngine.open(tmp_path / "ws", environ={}, dense="off")


@pytest.fixture
async def client(engine: MemoryEngine) -> AsyncIterator[Client]:
    async with Client(build_server(engine, watch_seconds=0.05)) as connected:
        yield connected
    engine.close()


async def test_tools_are_listed_with_schemas_and_hints(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {
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
    search = tools["search_memory"]
    assert search.input_schema["required"] == ["query"]
    assert set(search.input_schema["properties"]) == {"query", "limit", "session"}
    assert search.output_schema is not None
    forget = tools["forget"].annotations
    assert forget is not None
    assert forget.destructive_hint is True
    for name in ("search_memory", "read_memory", "status", "recall", "why"):
        hints = tools[name].annotations
        assert hints is not None
        assert hints.read_only_hint is True
    for name in ("remember", "record", "dream"):
        hints = tools[name].annotations
        assert hints is not None
        assert hints.read_only_hint is False
        assert hints.destructive_hint is False
    assert all(tool.description for tool in tools.values())


async def test_remember_then_search_finds_the_note_with_its_source(client: Client) -> None:
    added = await client.call_tool("remember", {"text": "The boat is moored at Cais do Sodré"})
    assert added.structured_content == {
        "session": "mcp:default",
        "first_index": 0,
        "count": 1,
        "compaction": "not_needed",
    }
    found = await client.call_tool("search_memory", {"query": "moored", "limit": 5})
    assert found.structured_content is not None
    (hit,) = found.structured_content["hits"]
    assert hit["session_key"] == "mcp:default"
    assert hit["role"] == "assistant"  # the client's own note, not the person's
    assert "**moored**" in hit["snippet"]
    assert hit["timestamp"] is not None


async def test_record_adds_a_conversation_to_the_named_session(
    client: Client, engine: MemoryEngine
) -> None:
    messages = [
        {"role": "user", "content": "which harbour?"},
        {"role": "assistant", "content": "Lisbon's"},
    ]
    result = await client.call_tool("record", {"messages": messages, "session": "tg:ada"})
    assert result.structured_content is not None
    assert result.structured_content["count"] == 2
    assert [m.text for m in engine.session("tg:ada").messages] == ["which harbour?", "Lisbon's"]
    scoped = await client.call_tool("search_memory", {"query": "harbour", "session": "nobody"})
    assert scoped.structured_content == {"hits": []}


async def test_a_malformed_message_is_a_tool_error_naming_it(client: Client) -> None:
    result = await client.call_tool(
        "record", {"messages": [{"role": "user", "content": "ok"}, {"role": "robot"}]}
    )
    assert result.is_error
    assert "messages[1]" in result.content[0].text  # type: ignore[union-attr]
    unknown = await client.call_tool("read_memory", {"file": "../secrets"})
    assert unknown.is_error
    internal = await client.call_tool("remember", {"text": "x", "session": "dream:forged"})
    assert internal.is_error


async def test_read_memory_and_the_resource_give_the_same_text(
    client: Client, engine: MemoryEngine
) -> None:
    workspace_of(engine).files.write("USER", "# User\n\n- Ada, lives in Lisbon\n")
    tool = await client.call_tool("read_memory", {"file": "USER.md"})
    assert tool.structured_content == {"file": "USER.md", "text": engine.read_memory("USER")}
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    assert listed == {f"reverie://memory/{name}" for name in ("SOUL.md", "USER.md", "MEMORY.md")}
    read = await client.read_resource(USER_URI)
    assert read.contents[0].text == "# User\n\n- Ada, lives in Lisbon\n"  # type: ignore[union-attr]


async def test_status_reports_the_workspace(client: Client, engine: MemoryEngine) -> None:
    result = await client.call_tool("status", {})
    assert result.structured_content is not None
    assert result.structured_content["workspace"] == engine.location
    assert result.structured_content["mode"] == "model-free"


async def test_a_dream_through_the_tool_notifies_listeners_of_the_changed_file(
    client: Client, engine: MemoryEngine
) -> None:
    text = "My name is Ada Lovelace. I prefer green tea over coffee."
    await client.call_tool(
        "record",
        {"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]},
    )
    engine.compact("mcp:default")
    async with client.listen(resource_subscriptions=[USER_URI]) as events:
        dreamt = await client.call_tool("dream", {})
        assert dreamt.structured_content is not None
        assert dreamt.structured_content["files_changed"] == ["USER.md"]
        with anyio.fail_after(5):
            event = await anext(aiter(events))
    assert getattr(event, "uri", None) == USER_URI


async def test_a_change_made_elsewhere_is_announced_by_the_watch(
    client: Client, engine: MemoryEngine
) -> None:
    async with client.listen(resource_subscriptions=[USER_URI]) as events:
        workspace_of(engine).files.write("USER", "# User\n\n- edited by hand\n")
        with anyio.fail_after(5):
            event = await anext(aiter(events))
    assert getattr(event, "uri", None) == USER_URI


async def test_a_handshake_era_client_hears_of_its_own_dream(engine: MemoryEngine) -> None:
    heard: list[str] = []

    async def on_message(message: object) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            heard.append(str(root.params.uri))

    text = "My name is Ada Lovelace. I prefer green tea over coffee."
    engine.record("mcp:default", [{"role": "user", "content": text}])
    engine.compact("mcp:default")
    server = build_server(engine, watch_seconds=60)
    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.call_tool("dream", {})
        with anyio.fail_after(5):
            while not heard:
                await anyio.sleep(0.01)
    engine.close()
    assert heard == [USER_URI]


async def test_recall_why_and_forget_work_through_the_tools(
    client: Client, engine: MemoryEngine
) -> None:
    text = "My dog is called Quasimodo and he loves the beach. I play the cello on Sundays."
    await client.call_tool(
        "record",
        {"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]},
    )
    engine.compact("mcp:default")
    await client.call_tool("dream", {})
    recalled = await client.call_tool("recall", {"query": "what is my dog called?"})
    assert recalled.structured_content is not None
    (item,) = [i for i in recalled.structured_content["items"] if "Quasimodo" in i["text"]][:1]
    assert item["source"].startswith("#")
    assert "Quasimodo" in recalled.structured_content["text"]
    why = await client.call_tool("why", {"text": "Quasimodo"})
    assert why.structured_content is not None
    assert "Quasimodo" in str(why.structured_content)
    gone = await client.call_tool("forget", {"text": "Quasimodo"})
    assert gone.structured_content is not None
    assert gone.structured_content["commit"]
    assert "Quasimodo" not in engine.read_memory("USER")
    assert "cello" in engine.read_memory("USER")
    assert engine.search("Quasimodo") == []
    short = await client.call_tool("why", {"text": "x"})
    assert short.is_error


async def test_a_reverie_error_reaches_the_client_with_its_message(tmp_path: Path) -> None:
    engine = MemoryEngine.open(
        tmp_path / "ws", environ={"REVERIE_DREAM_MODE": "model"}, dense="off"
    )
    try:
        async with Client(build_server(engine, watch_seconds=0.05)) as connected:
            await connected.call_tool("remember", {"text": "I live in Porto."})
            engine.compact("mcp:default")
            result = await connected.call_tool("dream", {})
    finally:
        engine.close()
    assert result.is_error
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    assert "Error executing tool dream" in content.text
    assert "REVERIE_MODEL" in content.text  # reverie's own message says what to set
