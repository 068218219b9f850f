"""The engine's thin operations that surfaces use instead of reaching into its parts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from reverie import MemoryEngine, ModelNotConfiguredError
from reverie.config import Config, ModelConfig
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))


def _engine(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={})


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


def test_compact_idle_archives_a_quiet_session_and_spares_one_in_flight(
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
