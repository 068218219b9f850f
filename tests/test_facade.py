"""The engine's thin operations that surfaces use instead of reaching into its parts."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from reverie import InputError, MemoryEngine, ModelNotConfiguredError
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.engine.async_engine import AsyncMemoryEngine
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))


def _engine(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off")


def test_has_session_and_location_answer_without_the_workspace(
    tmp_path: Path, clock: StepClock
) -> None:
    with _engine(tmp_path, clock) as engine:
        assert engine.location == str((tmp_path / "ws").absolute())
        assert not engine.has_session("cli:a")
        engine.record("cli:a", [{"role": "user", "content": "the harbour opens at nine"}])
        assert engine.has_session("cli:a")


def test_check_chat_model_says_how_to_configure_one(tmp_path: Path, clock: StepClock) -> None:
    with _engine(tmp_path, clock) as engine, pytest.raises(ModelNotConfiguredError) as caught:
        engine.check_chat_model()
    assert "REVERIE_MODEL" in str(caught.value)


def test_compact_idle_compacts_a_quiet_session_and_spares_one_in_flight(
    tmp_path: Path, clock: StepClock
) -> None:
    with _engine(tmp_path, clock) as engine:
        for key in ("cli:quiet", "cli:busy"):
            engine.record(
                key,
                [
                    {"role": "user", "content": f"{key}: the harbour opens at nine"},
                    {"role": "assistant", "content": "noted"},
                ],
            )
        clock.advance(timedelta(minutes=engine.config.compaction.idle_minutes + 1))
        results = engine.compact_idle(in_flight=["cli:busy"])
        assert results["cli:busy"].outcome == "busy"
        assert results["cli:quiet"].outcome != "busy"
        assert engine.session("cli:quiet").compacted_upto == 2
        assert engine.session("cli:busy").compacted_upto == 0


def test_the_wire_form_carries_only_chat_completions_fields(
    tmp_path: Path, clock: StepClock
) -> None:
    with _engine(tmp_path, clock) as engine:
        engine.record(
            "cli:a",
            [
                {"role": "user", "content": "hi", "_hidden_history": True},
                {"role": "assistant", "content": "hello", "reasoning_content": "thinking..."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "ok"},
            ],
        )
        prompt = engine.prompt("cli:a", "next")
        wire = prompt.wire()
    allowed = {"role", "content", "tool_calls", "tool_call_id", "name"}
    assert all(isinstance(m, dict) and set(m) <= allowed for m in wire)
    assert [m["role"] for m in wire if isinstance(m, dict)][-4:] == [
        "assistant",
        "assistant",
        "tool",
        "user",
    ]
    assert any(m.extra for m in prompt.messages)  # the stored form keeps them


def test_remember_reaches_the_durable_files_at_once(tmp_path: Path, clock: StepClock) -> None:
    with _engine(tmp_path, clock) as engine:
        before = len(engine.log())
        kept = engine.remember("My dentist is Dr. Lee on Harbour Road.")
        assert kept.compaction.outcome == "summarised"
        assert kept.dream.outcome == "completed"
        assert "Dentist is Dr. Lee on Harbour Road" in engine.read_memory("USER")
        assert len(engine.log()) == before + 1  # one audit commit, as any dream
        chatter = engine.remember("ok")
        assert chatter.dream.outcome == "no_pending"
        assert len(engine.log()) == before + 1
        with pytest.raises(InputError, match="white space"):
            engine.remember("   ")


def test_the_async_remember_is_the_same_operation(tmp_path: Path, clock: StepClock) -> None:
    engine = AsyncMemoryEngine(_engine(tmp_path, clock))

    async def run() -> str:
        await engine.remember("I prefer Celsius for temperatures.", session_key="tg:ada")
        return await engine.read_memory("USER")

    assert "Prefers Celsius" in asyncio.run(run())
    engine.engine.close()
