"""``ReverieChatHistory`` driven by the real ``langchain-core``."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from reverie import MemoryEngine
from reverie.adapters.langchain import ReverieChatHistory
from reverie.config.settings import Config, ModelConfig
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))


@pytest.fixture
def memory(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={})


def test_messages_go_in_come_out_as_added_and_clear_keeps_them_in_memory(
    memory: MemoryEngine,
) -> None:
    history = ReverieChatHistory("chat-1", memory)
    added: list[BaseMessage] = [
        SystemMessage(content="Be brief."),
        HumanMessage(content="I am Ada."),
        AIMessage(content="Hello Ada.", tool_calls=[{"name": "note", "args": {}, "id": "t1"}]),
        ToolMessage(content="noted", tool_call_id="t1"),
    ]
    history.add_messages(added)

    assert ReverieChatHistory("chat-1", memory).messages == added
    stored = memory.session("langchain:chat-1").messages
    assert [(m.role, m.text) for m in stored] == [
        ("system", "Be brief."),
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("tool", "noted"),
    ]
    history.clear()
    assert history.messages == []
    history.add_user_message("again")
    assert history.messages == [HumanMessage(content="again")]
    assert len(memory.session("langchain:chat-1").messages) == 4  # set aside, not erased


def test_messages_recorded_elsewhere_come_back_as_their_role(memory: MemoryEngine) -> None:
    memory.record("langchain:chat-2", [{"role": "user", "content": "hi"}])
    memory.record("langchain:chat-2", [{"role": "assistant", "content": "hello"}])
    assert ReverieChatHistory("chat-2", memory).messages == [
        HumanMessage(content="hi"),
        AIMessage(content="hello"),
    ]
