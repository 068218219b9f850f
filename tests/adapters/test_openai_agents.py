"""``ReverieSession`` driven by the real Agents SDK against the loopback model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from reverie import MemoryEngine
from reverie.adapters.openai_agents import ReverieSession
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from tests.conftest import StepClock
from tests.llm.loopback import LoopbackServer, chat_text

NO_MODEL = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))


@pytest.fixture
def memory(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off")


def _agent(loopback: LoopbackServer) -> Agent:
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=loopback.base_url, api_key="test", max_retries=0)
    model = OpenAIChatCompletionsModel(model="loopback-model", openai_client=client)
    return Agent(name="helper", instructions="Be brief.", model=model)


def test_a_run_records_the_turn_and_the_next_run_replays_it(
    memory: MemoryEngine, loopback: LoopbackServer
) -> None:
    loopback.script(chat_text("Hello Ada."), chat_text("You are Ada."))
    agent = _agent(loopback)
    session = ReverieSession("chat-1", memory)

    first = asyncio.run(Runner.run(agent, "I am Ada.", session=session))
    second = asyncio.run(Runner.run(agent, "Who am I?", session=session))

    assert (first.final_output, second.final_output) == ("Hello Ada.", "You are Ada.")
    sent = json.loads(loopback.requests[-1].body)["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1]["content"] == "I am Ada."
    stored = memory.session("agents:chat-1").messages
    assert [(m.role, m.text) for m in stored] == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "Who am I?"),
        ("assistant", "You are Ada."),
    ]
    assert loopback.unscripted == []


def test_items_come_back_as_added_and_pop_and_clear_keep_the_old_ones(
    memory: MemoryEngine,
) -> None:
    session = ReverieSession("chat-2", memory)
    call = {"type": "function_call", "call_id": "c1", "name": "now", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "noon"}
    items = [{"role": "user", "content": "time?"}, call, output]

    asyncio.run(session.add_items(items))  # type: ignore[arg-type]
    assert asyncio.run(session.get_items()) == items
    assert asyncio.run(session.get_items(limit=1)) == [output]
    assert [m.role for m in memory.session("agents:chat-2").messages] == [
        "user",
        "assistant",
        "tool",
    ]

    assert asyncio.run(session.pop_item()) == output
    assert asyncio.run(ReverieSession("chat-2", memory).get_items()) == items[:2]
    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []
    assert asyncio.run(session.pop_item()) is None
    assert len(memory.session("agents:chat-2").messages) == 3  # set aside, not erased


def test_reverie_and_its_engine_load_no_framework() -> None:
    code = (
        "import sys, reverie\n"
        "reverie.MemoryEngine\n"
        "frameworks = ('agents', 'langchain_core', 'langgraph')\n"
        "print(sorted(m for m in frameworks if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
