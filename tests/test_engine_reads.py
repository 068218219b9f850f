"""The engine's reads for surfaces (history, sessions, log, show, restore, costs) and the
providers it builds only when a model is first called."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reverie import ChatReply, ChatRequest, Message, RevisionNotFoundError, ScriptedProvider
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.llm.lazy import LazyProvider
from reverie.llm.openai_provider import OpenAIProvider
from reverie.testing.folders import workspace_of

NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))


@pytest.fixture
def engine_config() -> Config:
    return NO_MODEL  # the shared ``engine`` fixture opens with these settings


@pytest.fixture
def engine(engine: MemoryEngine) -> MemoryEngine:
    """The shared engine, with six history entries of sessions "a" and "b"."""
    for n in range(1, 7):
        workspace_of(engine).history.append(f"entry {n}", session_key="a" if n % 2 else "b")
    return engine


def test_history_without_since_keeps_the_newest(engine: MemoryEngine) -> None:
    assert [e.cursor for e in engine.history()] == [1, 2, 3, 4, 5, 6]
    assert [e.cursor for e in engine.history(limit=2)] == [5, 6]
    assert [e.cursor for e in engine.history(session_key="a", limit=2)] == [3, 5]


def test_history_with_since_pages_forward(engine: MemoryEngine) -> None:
    assert [e.cursor for e in engine.history(since=2, limit=2)] == [3, 4]
    assert [e.cursor for e in engine.history(since=4)] == [5, 6]
    assert [e.cursor for e in engine.history(since=0, session_key="b")] == [2, 4, 6]
    assert engine.history(since=6) == []
    with pytest.raises(ValueError, match="limit"):
        engine.history(limit=0)


def test_sessions_log_show_restore_and_costs(engine: MemoryEngine) -> None:
    engine.record("tg:x", [Message(role="user", content="My name is Zoe and I live in Riga.")])
    assert [info.key for info in engine.sessions()] == ["tg:x"]
    workspace = workspace_of(engine)
    workspace.files.write("USER", "# User\n- Zoe\n")
    workspace.audit.commit("hand edit")
    assert [c.subject for c in engine.log(2)] == ["hand edit", "init: workspace"]
    assert "+- Zoe" in engine.show("HEAD").diff
    restored = engine.restore("HEAD~1")
    assert restored.subject.startswith("restore: ")
    assert "Zoe" not in engine.read_memory("USER")
    with pytest.raises(RevisionNotFoundError):
        engine.show("feedface")
    assert engine.dream().outcome == "completed"
    assert engine.costs().by_job["dream"].calls == 1


def test_configured_providers_are_built_on_the_first_call(tmp_path: Path) -> None:
    environ = {"REVERIE_MODEL": "m", "REVERIE_BASE_URL": "http://127.0.0.1:9/v1"}
    engine = MemoryEngine.open(tmp_path / "ws", environ=environ, dense="off")
    chat = engine._chat
    assert isinstance(chat, LazyProvider)
    states = [chat.built]
    engine.status()
    states.append(chat.built)
    assert isinstance(chat.provider(), OpenAIProvider)
    states.append(chat.built)
    assert states == [False, False, True]
    assert "built=True" in repr(chat)
    engine.close()


def test_a_lazy_provider_is_built_once_across_threads() -> None:
    builds: list[int] = []

    def build() -> ScriptedProvider:
        builds.append(1)
        return ScriptedProvider(*[ChatReply(text="hi")] * 8)

    lazy = LazyProvider(build, label="scripted")
    request = ChatRequest(messages=(Message(role="user", content="hello"),))
    threads = [threading.Thread(target=lazy.complete, args=(request,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert builds == [1]


def test_a_failed_build_is_tried_again() -> None:
    attempts: list[int] = []

    def build() -> ScriptedProvider:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first build fails")
        return ScriptedProvider(ChatReply(text="ok"))

    lazy = LazyProvider(build)
    request = ChatRequest(messages=(Message(role="user", content="hello"),))
    with pytest.raises(RuntimeError):
        lazy.complete(request)
    assert lazy.complete(request).text == "ok"
    assert "unbuilt" in repr(LazyProvider(build))
