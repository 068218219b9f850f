"""Raw transcripts, the owner's opt-in: kept for the session itself, shown nowhere else.

With ``[sessions] raw_transcripts = true`` a session keeps the raw text of a message a secret
was redacted from; the session's own prompt and the owner's ``transcript(raw=True)`` (``reverie
session KEY --raw``) read it. Search, recall, MCP, the viewer, the export, history (after
compaction), the ledger, every other session's prompt and every file but the session database
still see only the redacted text; ``forget`` removes the raw copy too. Off (the default),
nothing raw is kept.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path, PurePath

import pytest
from mcp import Client

from reverie import MemoryEngine
from reverie.config.sections import ModelConfig, SessionsConfig
from reverie.config.settings import Config
from reverie.core.messages import Message
from reverie.engine.owners.export import export_document
from reverie.mcp import build_server
from reverie.testing.parts import agent_of
from reverie.viewer import RunningViewer, serve_viewer
from tests.conftest import StepClock

PASSWORD = "Quokka-Lantern-4471"
SAID = f"my wifi password is {PASSWORD}, and the router sits upstairs"
VIEWER_TOKEN = "viewer-token-0123456789"
RAW_ON = Config(sessions=SessionsConfig(raw_transcripts=True))


def _open(root: Path, config: Config = RAW_ON) -> MemoryEngine:
    return MemoryEngine.open(root, config, clock=StepClock(), environ={}, dense="off")


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[MemoryEngine]:
    engine = _open(tmp_path / "ws")
    engine.record("tg:ada", [Message(role="user", content=SAID)])
    engine.record("tg:ada", [Message(role="assistant", content="Noted, the router upstairs.")])
    engine.record("tg:bob", [Message(role="user", content="Where is the router?")])
    yield engine
    engine.close()


def _texts(messages: tuple[Message, ...]) -> str:
    return "\n".join(m.text for m in messages)


def _files_but_sessions(root: Path) -> list[str]:
    return [
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file()
        and not p.name.startswith("sessions.sqlite3")
        and PASSWORD.encode() in p.read_bytes()
    ]


def test_the_session_and_its_own_prompt_keep_the_raw_text(engine: MemoryEngine) -> None:
    assert PASSWORD not in _texts(engine.session("tg:ada").messages)  # the session: redacted
    assert PASSWORD in _texts(engine.transcript("tg:ada", raw=True).messages)
    assert PASSWORD not in _texts(engine.transcript("tg:ada").messages)
    own = engine.prompt("tg:ada", "what is the wifi password?").prompt.messages
    assert PASSWORD in _texts(own)


def test_no_other_reader_sees_the_raw_text(engine: MemoryEngine) -> None:
    other = engine.prompt("tg:bob", "what is the wifi password?").prompt.messages
    assert PASSWORD not in _texts(other)
    hits = engine.search("router upstairs") + engine.search("wifi password")
    assert hits
    assert all(PASSWORD not in hit.snippet for hit in hits)
    assert PASSWORD not in engine.recall("what is the wifi password?").text
    document = export_document(engine, PurePath(engine.location.rstrip("/")).name)
    assert PASSWORD not in json.dumps(document, default=str)
    engine.compact("tg:ada")
    engine.dream()
    assert all(PASSWORD not in entry.content for entry in engine.history())
    assert _files_but_sessions(Path(engine.location)) == []  # index, ledger, git, files


def _get(running: RunningViewer, path: str, cookie: str = "") -> tuple[int, str, str]:
    conn = http.client.HTTPConnection(running.host, running.port, timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        answer = conn.getresponse()
        return answer.status, answer.getheader("set-cookie") or "", answer.read().decode("utf-8")
    finally:
        conn.close()


def test_the_viewer_shows_only_the_redacted_text(engine: MemoryEngine) -> None:
    with serve_viewer(engine, VIEWER_TOKEN, author="Ada <a@b.c>") as running:
        status, cookie, _ = _get(running, f"/?token={VIEWER_TOKEN}")
        assert status == 303
        cookie = cookie.split(";", 1)[0]
        for path in ("/search?q=router", "/sessions", "/session?key=tg:ada", "/timeline"):
            status, _, page = _get(running, path, cookie)
            assert status == 200, path
            assert PASSWORD not in page, path
        assert "upstairs" in _get(running, "/search?q=router", cookie)[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def mcp_client(engine: MemoryEngine) -> AsyncIterator[Client]:
    async with Client(build_server(engine, watch_seconds=0.05)) as connected:
        yield connected


@pytest.mark.anyio
async def test_mcp_reads_only_the_redacted_text(mcp_client: Client) -> None:
    for tool, arguments in (
        ("search_memory", {"query": "router upstairs"}),
        ("recall", {"query": "where is the router upstairs?"}),
    ):
        result = await mcp_client.call_tool(tool, arguments)
        said = json.dumps(result.model_dump(mode="json"))
        assert not result.is_error, said
        assert "upstairs" in said, tool
        assert PASSWORD not in said, tool


def test_forget_removes_the_raw_copy_too(engine: MemoryEngine) -> None:
    engine.forget("router sits upstairs", confirm_broad=True)
    assert PASSWORD not in _texts(engine.transcript("tg:ada", raw=True).messages)
    database = Path(engine.location) / ".reverie" / "sessions.sqlite3"
    assert PASSWORD.encode() not in database.read_bytes()


def test_off_by_default_nothing_raw_is_kept(tmp_path: Path) -> None:
    engine = _open(tmp_path / "ws", Config())
    try:
        engine.record("tg:ada", [Message(role="user", content=SAID)])
        assert PASSWORD not in _texts(engine.transcript("tg:ada", raw=True).messages)
        assert PASSWORD not in _texts(engine.prompt("tg:ada", "and?").prompt.messages)
        state = Path(engine.location) / ".reverie"
        assert all(PASSWORD.encode() not in p.read_bytes() for p in state.rglob("*") if p.is_file())
    finally:
        engine.close()


def test_a_database_workspace_refuses_the_setting_before_writing(pg_url: str) -> None:
    from reverie.errors import StoreUnsupportedError
    from tests.postgres.conftest import new_workspace

    name = new_workspace(pg_url, "raw")
    engine = MemoryEngine.open(
        name, RAW_ON, store=pg_url, clock=StepClock(), environ={}, dense="off"
    )
    try:
        with pytest.raises(StoreUnsupportedError, match="raw_transcripts"):
            engine.record("tg:ada", [Message(role="user", content=SAID)])
        assert engine.session("tg:ada").messages == ()
    finally:
        engine.close()


def test_the_built_in_agent_keeps_and_replays_the_raw_text(tmp_path: Path) -> None:
    from reverie import ScriptedProvider

    chat = ScriptedProvider()
    chat.reply("Noted.")
    chat.reply("It is written down.")
    config = Config(
        model=ModelConfig(model="chat", context_window=8000, max_output_tokens=500),
        sessions=SessionsConfig(raw_transcripts=True),
    )
    engine = MemoryEngine.open(
        tmp_path / "ws", config, provider=chat, clock=StepClock(), environ={}, dense="off"
    )
    try:
        agent = agent_of(engine)
        agent.turn("cli:me", SAID)
        agent.turn("cli:me", "what was it?")
        assert PASSWORD in _texts(chat.requests[-1].messages)  # its own prompt: what was said
        assert PASSWORD not in _texts(engine.session("cli:me").messages)
        assert PASSWORD in _texts(engine.transcript("cli:me", raw=True).messages)
    finally:
        engine.close()
