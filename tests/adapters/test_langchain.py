"""``ReverieChatHistory`` driven by the real ``langchain-core``."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from reverie import MemoryEngine
from reverie.adapters.langchain import ReverieChatHistory
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.messages import JSONObject
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))


@pytest.fixture
def memory(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off")


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


def test_an_empty_history_and_every_role_recorded_elsewhere(memory: MemoryEngine) -> None:
    history = ReverieChatHistory("chat-3", memory)
    assert history.messages == []
    history.add_messages([])
    assert not memory.has_session("langchain:chat-3")
    memory.record(
        "langchain:chat-3",
        [
            {"role": "system", "content": "Be brief."},
            {"role": "assistant", "content": None, "tool_calls": [_CALL]},
            {"role": "tool", "content": "noon", "tool_call_id": "t1"},
        ],
    )
    assert history.messages == [
        SystemMessage(content="Be brief."),
        AIMessage(content=""),
        ToolMessage(content="noon", tool_call_id="t1"),
    ]


def test_content_parts_are_recorded_as_their_text(memory: MemoryEngine) -> None:
    parts: list[str | dict[str, str]] = ["look:", {"type": "text", "text": "a harbour"}]
    ReverieChatHistory("chat-4", memory).add_messages([HumanMessage(content=parts)])
    assert memory.session("langchain:chat-4").messages[0].text == "look:\na harbour"
    assert ReverieChatHistory("chat-4", memory).messages == [HumanMessage(content=parts)]


_CALL: JSONObject = {"id": "t1", "type": "function", "function": {"name": "now", "arguments": "{}"}}
