"""The OpenAI Agents SDK (``openai-agents``) runs an agent against ``reverie serve``.

An ``Agent`` with ``OpenAIResponsesModel`` over an ``AsyncOpenAI`` client of the proxy,
its endpoint the loopback server: the agent calls a function tool, the SDK runs it and sends
the result back as a ``function_call_output``, the model answers, and the principal's session
holds the exchange once (user, tool call, tool result, answer). A second run of the same
conversation, chained with ``previous_response_id``, reaches the same session.
"""

from __future__ import annotations

import asyncio

import openai
from agents import Agent, OpenAIResponsesModel, RunConfig, Runner, RunResult, function_tool
from agents.tracing import set_tracing_disabled

from tests.llm.loopback import chat_text, chat_tool_calls
from tests.reach.conftest import TOKEN, Proxy


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


async def _two_runs(url: str) -> tuple[RunResult, RunResult]:
    """Ask, then follow up on the same chain, with one client closed at the end."""
    set_tracing_disabled(disabled=True)
    config = RunConfig(tracing_disabled=True)
    async with openai.AsyncOpenAI(base_url=url + "/v1", api_key=TOKEN, max_retries=0) as client:
        model = OpenAIResponsesModel(model="chat-model", openai_client=client)
        agent = Agent(name="helper", instructions="Be brief.", model=model, tools=[weather])
        first = await Runner.run(agent, "Weather in Porto?", run_config=config)
        second = await Runner.run(
            agent,
            "What did I ask?",
            previous_response_id=first.last_response_id,
            run_config=config,
        )
    return first, second


def test_an_agent_calls_a_tool_through_reverie_and_the_session_holds_it_once(
    proxy: Proxy,
) -> None:
    proxy.upstream.script(
        chat_tool_calls([("call_w", "weather", '{"city": "Porto"}')]),
        chat_text("It is sunny in Porto."),
        chat_text("You asked about Porto."),
    )
    first, second = asyncio.run(_two_runs(proxy.url))
    assert first.final_output == "It is sunny in Porto."
    tool_turn = proxy.upstream.bodies()[1]["messages"]
    assert isinstance(tool_turn, list)
    assert [m["role"] for m in tool_turn if isinstance(m, dict)] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]
    assert second.final_output == "You asked about Porto."
    with proxy.lease() as engine:
        held = engine.session("api:default").messages
    assert [(m.role, m.text) for m in held] == [
        ("user", "Weather in Porto?"),
        ("assistant", ""),
        ("tool", "sunny in Porto"),
        ("assistant", "It is sunny in Porto."),
        ("user", "What did I ask?"),
        ("assistant", "You asked about Porto."),
    ]
    assert held[1].tool_calls[0].name == "weather"
