"""``ReverieHistory`` and ``memory_tools`` driven by the real ``pydantic-ai-slim``.

A real ``Agent`` with pydantic-ai's own ``OpenAIChatModel`` talks to the loopback model
server: what the model receives is what pydantic-ai built from the history reverie gave back,
and the tool calls are answered by pydantic-ai running reverie's tools.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ImageUrl,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from reverie import MemoryEngine
from reverie.adapters.pydantic_ai import ReverieHistory, memory_tools, message_of
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.messages import Message
from tests.conftest import StepClock
from tests.llm.loopback import LoopbackServer, chat_text, chat_tool_calls

NO_MODEL = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))


@pytest.fixture(autouse=True)
def _close_the_loop_run_sync_leaves() -> Iterator[None]:
    """Close the event loop ``Agent.run_sync`` made for this thread.

    pydantic-ai's ``run_sync`` creates the thread's event loop when there is none and leaves it
    open and set (``pydantic_graph._utils.get_event_loop``: the loop is the caller's). Left
    open, it is collected during some later test on this worker, when another call replaces
    the thread's loop, and that test fails on the unclosed loop and its socket pair.
    """
    yield
    policy = asyncio.get_event_loop_policy()
    try:
        loop = policy.get_event_loop()
    except RuntimeError:  # no loop set on this thread: nothing was left
        return
    if not loop.is_running():
        loop.close()
        policy.set_event_loop(None)


@pytest.fixture
def memory(tmp_path: Path, clock: StepClock) -> Iterator[MemoryEngine]:
    with MemoryEngine.open(
        tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off"
    ) as engine:
        yield engine


def _agent(loopback: LoopbackServer, memory: MemoryEngine | None = None) -> Agent[None, str]:
    provider = OpenAIProvider(base_url=loopback.base_url, api_key="unused")
    model = OpenAIChatModel("gpt-4o-mini", provider=provider)
    toolsets = [] if memory is None else [memory_tools(memory)]
    return Agent(model, instructions="Be brief.", toolsets=toolsets)


def _sent(loopback: LoopbackServer, number: int = -1) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = json.loads(loopback.requests[number].body)["messages"]
    return messages


def test_two_runs_keep_their_conversation_in_reverie_and_replay_it(
    memory: MemoryEngine, loopback: LoopbackServer
) -> None:
    loopback.script(chat_text("Hi Ada."), chat_text("You write Rust."))
    agent = _agent(loopback)
    history = ReverieHistory("chat-1", memory)
    first = agent.run_sync("My name is Ada and I write Rust.", message_history=history.messages)
    history.add(first.new_messages())

    again = ReverieHistory("chat-1", memory)  # a later process: only the disk carries it
    second = agent.run_sync("What do I write?", message_history=again.messages)
    again.add(second.new_messages())

    assert second.output == "You write Rust."
    assert [(m["role"], m["content"]) for m in _sent(loopback)] == [
        ("system", "Be brief."),
        ("user", "My name is Ada and I write Rust."),
        ("assistant", "Hi Ada."),
        ("user", "What do I write?"),
    ]
    stored = memory.session("pydantic_ai:chat-1").messages
    assert [(m.role, m.text) for m in stored] == [
        ("user", "My name is Ada and I write Rust."),
        ("assistant", "Hi Ada."),
        ("user", "What do I write?"),
        ("assistant", "You write Rust."),
    ]
    assert ModelMessagesTypeAdapter.dump_json(again.messages) == ModelMessagesTypeAdapter.dump_json(
        second.all_messages()
    )
    assert memory.search("Rust")  # an ordinary session: search and recall find it


def test_the_agent_searches_memory_and_the_tool_exchange_is_recorded(
    memory: MemoryEngine, loopback: LoopbackServer
) -> None:
    memory.record("earlier", [Message(role="user", content="I moved to Porto in May.")])
    call = ("c1", "search_memory", json.dumps({"query": "Porto"}))
    loopback.script(chat_tool_calls([call]), chat_text("You live in Porto."))
    history = ReverieHistory("chat-2", memory)
    result = _agent(loopback, memory).run_sync("Where do I live?")
    history.add(result.new_messages())

    offered = json.loads(loopback.requests[0].body)["tools"]
    names = {tool["function"]["name"] for tool in offered}
    assert names == {"search_memory", "recall", "read_memory", "remember"}
    returned = [m for m in _sent(loopback) if m["role"] == "tool"]
    assert len(returned) == 1
    assert "earlier message 0 user] I moved to **Porto** in May." in str(returned[0]["content"])
    stored = memory.session("pydantic_ai:chat-2").messages
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1].text == 'called search_memory({"query":"Porto"})'
    assert stored[2].tool_call_id == "c1"
    # pydantic-ai's JSON form is what is kept: the same messages in that form.
    kept = ModelMessagesTypeAdapter.dump_json(history.messages)
    assert kept == ModelMessagesTypeAdapter.dump_json(result.new_messages())


def test_remember_keeps_the_fact_now_and_a_refusal_goes_back_to_the_model(
    memory: MemoryEngine, loopback: LoopbackServer
) -> None:
    empty = ("c1", "remember", json.dumps({"text": "   "}))
    fact = ("c2", "remember", json.dumps({"text": "Ada's cat is called Miso."}))
    read = ("c3", "read_memory", json.dumps({"file": "USER.md"}))
    loopback.script(
        chat_tool_calls([empty]), chat_tool_calls([fact, read]), chat_text("Noted: Miso.")
    )
    result = _agent(loopback, memory).run_sync("Remember my cat's name: Miso.")

    assert result.output == "Noted: Miso."
    refusal = next(m for m in _sent(loopback, 1) if m["role"] == "tool")
    assert "white space" in str(refusal["content"])
    answers = [str(m["content"]) for m in _sent(loopback, 2) if m["role"] == "tool"][1:]
    assert answers[0].startswith("kept (dream: ")
    assert answers[1] == memory.read_memory("USER")
    assert [hit.snippet for hit in memory.search("Miso")]  # in memory at once


def test_messages_from_elsewhere_come_back_plain_and_clear_keeps_them(
    memory: MemoryEngine,
) -> None:
    memory.record(
        "pydantic_ai:chat-3",
        [
            Message(role="system", content="Be kind."),
            Message(role="user", content="I am Bo."),
            Message(role="assistant", content="Hello Bo."),
        ],
    )
    history = ReverieHistory("chat-3", memory)
    plain = history.messages
    assert isinstance(plain[0], ModelRequest)
    assert isinstance(plain[0].parts[0], SystemPromptPart)
    assert isinstance(plain[1], ModelRequest)
    assert isinstance(plain[1].parts[0], UserPromptPart)
    assert isinstance(plain[2], ModelResponse)
    assert plain[2].parts == [TextPart(content="Hello Bo.")]

    history.clear()
    assert history.messages == []
    assert history.key == "pydantic_ai:chat-3~1"
    assert len(memory.session("pydantic_ai:chat-3").messages) == 3  # set aside, not erased


def test_every_kind_of_request_is_recorded_with_its_role_and_text(memory: MemoryEngine) -> None:
    system = ModelRequest(parts=[SystemPromptPart(content="Be kind.")])
    refused = ToolReturnPart(
        tool_name="weather", content="bad city", tool_call_id="c9", outcome="retried"
    )
    retry = ModelRequest(parts=[refused])
    feedback = RetryFeedbackPart(content="Answer in JSON.", retry=RetryInfo(cause="no_output"))
    unusable = ModelRequest(parts=[feedback])
    image = ImageUrl(url="https://example.org/beds.png")
    looked = ModelRequest(parts=[UserPromptPart(content=["Look at my beds.", image])])
    assert (message_of(system).role, message_of(system).text) == ("system", "Be kind.")
    assert message_of(retry).role == "tool"
    assert message_of(retry).tool_call_id == "c9"
    assert "bad city" in message_of(retry).text
    assert message_of(looked).text == "Look at my beds."
    assert message_of(unusable).role == "system"  # the framework's words, not the person's
    assert "Answer in JSON." in message_of(unusable).text

    history = ReverieHistory("chat-4", memory)
    history.add([])  # nothing to record: no session appears
    assert not memory.has_session(history.key)
    history.add([system, retry, looked])
    kept = ModelMessagesTypeAdapter.dump_json(history.messages)
    assert kept == ModelMessagesTypeAdapter.dump_json([system, retry, looked])


def test_the_recall_tool_gives_the_recalled_section(memory: MemoryEngine) -> None:
    recall = cast("Callable[[str], str]", memory_tools(memory).tools["recall"].function)
    assert recall("Porto") == "nothing recalled"
    memory.record("earlier", [Message(role="user", content="I moved to Porto in May.")])
    assert "I moved to Porto in May." in recall("Porto")
