from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import pytest

from reverie import (
    ChatReply,
    ChatRequest,
    ContextLengthExceededError,
    Message,
    ModelConnectionError,
    ModelNotConfiguredError,
    ScriptedProvider,
    ToolCall,
    Usage,
)
from reverie.config.sections import CompactionConfig, ModelConfig
from reverie.config.settings import Config
from reverie.engine.async_engine import AsyncMemoryEngine
from reverie.engine.facade import MemoryEngine
from reverie.llm.endpoints import build_provider
from reverie.llm.openai_provider import OpenAIProvider
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock

SMALL = Config(model=ModelConfig(model="chat", context_window=4000, max_output_tokens=500))
NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))


def _summary(request: ChatRequest) -> ChatReply:
    return ChatReply(text=f"- [durable] summarised {len(request.messages[-1].text)} chars")


def _engine(
    tmp_path: Path,
    clock: StepClock,
    *,
    provider: ScriptedProvider | None = None,
    memory_provider: ScriptedProvider | None = None,
    config: Config = SMALL,
) -> MemoryEngine:
    return MemoryEngine.open(
        tmp_path / "ws",
        config,
        clock=clock,
        environ={},
        provider=provider,
        memory_provider=memory_provider,
        dense="off",
    )


def test_record_and_prompt_keep_a_foreign_agent_under_budget(
    tmp_path: Path, clock: StepClock
) -> None:
    memory = ScriptedProvider(*itertools.repeat(_summary, 100))
    engine = _engine(tmp_path, clock, memory_provider=memory)
    assert engine.mode == "model"
    for turn in range(80):
        user = f"turn {turn}: tell me about the harbour project " + "detail " * 30
        result = engine.prompt("slack:42", user)
        assert result.tokens <= result.budget
        assert result.messages[-1].content == user
        engine.record(
            "slack:42",
            [{"role": "user", "content": user}, {"role": "assistant", "content": "noted " * 40}],
        )
    entries = list(engine.history())
    assert entries
    assert all(entry.session_key == "slack:42" for entry in entries)
    session = engine.session("slack:42")
    assert len(session.messages) == 160
    assert all(message.timestamp is not None for message in session.messages)
    engine.close()


def test_without_any_model_memory_runs_model_free(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock, config=NO_MODEL)
    assert engine.mode == "model-free"
    for turn in range(60):
        engine.record(
            "cli:me",
            [
                Message(
                    role="user", content=f"I live in Lyon and I prefer green tea. Note {turn}. " * 3
                ),
                Message(role="assistant", content="Got it. " * 30),
            ],
        )
    entries = list(engine.history())
    assert entries
    assert any("Lyon" in entry.content for entry in entries)
    with pytest.raises(ModelNotConfiguredError, match="REVERIE_MODEL"):
        engine.turn("cli:me", "hello")


def test_turn_runs_the_memory_tools_and_records_everything(
    tmp_path: Path, clock: StepClock
) -> None:
    chat = ScriptedProvider()
    chat.reply(tool_calls=[ToolCall(id="t1", name="search_memory", arguments='{"query": "kyoto"}')])
    chat.reply(
        tool_calls=[ToolCall(id="t2", name="read_memory_file", arguments='{"name": "USER"}')]
    )
    chat.reply("You planned Kyoto for April.")
    engine = _engine(tmp_path, clock, provider=chat, memory_provider=ScriptedProvider())
    workspace_of(engine).history.append(
        "- [durable] trip to Kyoto planned for April", session_key="cli:a"
    )
    workspace_of(engine).files.write("USER", "# User\n- name: Lin\n")
    result = engine.turn("cli:a", "when is my trip?")
    assert result.reply == "You planned Kyoto for April."
    assert result.model_calls == 3
    roles = [m.role for m in engine.session("cli:a").messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    tool_results = [m for m in result.messages if m.role == "tool"]
    assert "Kyoto" in tool_results[0].text
    assert "name: Lin" in tool_results[1].text
    assert chat.requests[0].tools == engine.tools
    assert chat.requests[0].messages[-1].content == "when is my trip?"


def test_bad_tool_calls_are_answered_as_errors(tmp_path: Path, clock: StepClock) -> None:
    chat = ScriptedProvider()
    chat.reply(
        tool_calls=[
            ToolCall(id="a", name="write_file", arguments="{}"),
            ToolCall(id="b", name="search_memory", arguments="not json"),
            ToolCall(id="c", name="read_memory_file", arguments='{"name": "../etc/passwd"}'),
            ToolCall(id="d", name="search_memory", arguments='{"query": ""}'),
        ]
    )
    chat.reply("done")
    engine = _engine(tmp_path, clock, provider=chat, memory_provider=ScriptedProvider())
    result = engine.turn("cli:a", "hi")
    errors = [m.text for m in result.messages if m.role == "tool"]
    assert all(text.startswith("error:") for text in errors)
    assert len(errors) == 4


def test_the_last_iteration_forbids_tools_so_a_turn_always_ends(
    tmp_path: Path, clock: StepClock
) -> None:
    call = ToolCall(id="x", name="search_memory", arguments='{"query": "a"}')
    chat = ScriptedProvider(*[ChatReply(tool_calls=(call,), finish_reason="tool_calls")] * 5)
    chat.reply("final answer")
    engine = _engine(tmp_path, clock, provider=chat, memory_provider=ScriptedProvider())
    result = engine.turn("cli:a", "loop please")
    assert result.reply == "final answer"
    assert chat.requests[-1].tool_choice == "none"
    assert result.model_calls == 6


def test_context_length_errors_trigger_one_harder_compaction_and_a_retry(
    tmp_path: Path, clock: StepClock
) -> None:
    chat = ScriptedProvider()
    chat.fail(ContextLengthExceededError("too long", status=400, body="context_length_exceeded"))
    chat.reply("fine now")
    memory = ScriptedProvider(*itertools.repeat(_summary, 20))
    engine = _engine(tmp_path, clock, provider=chat, memory_provider=memory)
    for turn in range(6):
        engine.record("cli:a", [Message(role="user", content=f"q{turn} " + "w " * 100)])
    result = engine.turn("cli:a", "next")
    assert result.reply == "fine now"
    assert any(c.outcome == "summarised" for c in result.compactions)
    assert len(memory.requests) >= 1


def test_a_failed_model_call_records_nothing_of_the_turn(tmp_path: Path, clock: StepClock) -> None:
    chat = ScriptedProvider()
    chat.fail(ModelConnectionError("the endpoint is down"))
    chat.fail(ModelConnectionError("the endpoint is down"))
    chat.reply("hello again")
    engine = _engine(tmp_path, clock, provider=chat)
    for _ in range(2):
        with pytest.raises(ModelConnectionError):
            engine.turn("cli:a", "hi")
        assert engine.session("cli:a").messages == ()
    result = engine.turn("cli:a", "hi")
    assert [m.role for m in engine.session("cli:a").messages] == ["user", "assistant"]
    assert result.reply == "hello again"
    assert chat.requests[-1].messages[-1].text == "hi"  # the model saw the question once


def test_the_async_wrapper_delegates(tmp_path: Path, clock: StepClock) -> None:
    memory = ScriptedProvider(_summary)
    engine = AsyncMemoryEngine(_engine(tmp_path, clock, memory_provider=memory))

    async def run() -> int:
        await engine.record("cli:a", [{"role": "user", "content": "hello"}])
        prompt = await engine.prompt("cli:a", "next")
        compaction = await engine.compact("cli:a")
        assert compaction.outcome in ("summarised", "nothing_noteworthy", "raw_fallback")
        return len(prompt.messages)

    assert asyncio.run(run()) >= 2
    assert len(memory.requests) == 1


def test_search_finds_a_compacted_message_by_its_source(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock, memory_provider=ScriptedProvider(_summary))
    engine.record("cli:a", [Message(role="user", content="my locker code is the word pelican")])
    engine.record("cli:a", [Message(role="assistant", content="noted")])
    engine.compact("cli:a")
    assert engine.session("cli:a").compacted_upto == 2
    [hit] = [h for h in engine.search("pelican") if h.kind == "message"]
    assert (hit.session_key, hit.message_index) == ("cli:a", 0)


def test_providers_come_from_config(tmp_path: Path) -> None:
    assert build_provider(ModelConfig()) is None
    provider = build_provider(
        ModelConfig(model="gpt-x", base_url="http://127.0.0.1:9/v1"), {"REVERIE_API_KEY": "sk-test"}
    )
    assert isinstance(provider, OpenAIProvider)
    assert "sk-test" not in repr(provider)
    (tmp_path / "ws").mkdir()
    engine = MemoryEngine.open(
        tmp_path / "ws",
        environ={"REVERIE_MODEL": "m", "REVERIE_BASE_URL": "http://127.0.0.1:9/v1"},
        dense="off",
    )
    assert engine.mode == "model"
    assert engine.config.compaction == CompactionConfig()
    assert json.dumps(engine.config.model.model) == '"m"'


def test_reported_prompt_tokens_correct_later_estimates(tmp_path: Path, clock: StepClock) -> None:
    chat = ScriptedProvider()
    chat.reply("hi", usage=Usage(prompt_tokens=5000, completion_tokens=3))
    engine = _engine(tmp_path, clock, provider=chat, memory_provider=ScriptedProvider())
    before = engine.counter.text("a sentence of several words")
    engine.turn("cli:a", "hello")
    assert engine.counter.text("a sentence of several words") > before
