"""An OpenAI Agents SDK agent whose conversation lives in reverie (reverie.adapters.openai_agents).

Run: python examples/agents_sdk.py WORKSPACE BASE_URL [MODEL]

BASE_URL is any OpenAI-compatible Chat Completions endpoint (``http://127.0.0.1:8080/v1``;
the key is read from OPENAI_API_KEY, "unused" when unset). Two turns run in one session; the
second sees the first because ReverieSession replays it from the workspace, and the turns
are there afterwards for ``reverie recall`` and dream. Needs ``pip install 'reverie[agents]'``.
"""

from __future__ import annotations

import asyncio
import os
import sys

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from reverie import MemoryEngine
from reverie.adapters.openai_agents import ReverieSession


async def main(workspace: str, base_url: str, model: str) -> None:
    """Run two turns in reverie session ``example`` of ``workspace``, printing the answers."""
    set_tracing_disabled(True)  # no traces leave the machine
    client = AsyncOpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "unused"))
    agent = Agent(
        name="helper",
        instructions="Be brief.",
        model=OpenAIChatCompletionsModel(model=model, openai_client=client),
    )
    with MemoryEngine.open(workspace) as memory:
        session = ReverieSession("example", memory)
        for text in ("My name is Ada and I write Rust.", "What do I write?"):
            result = await Runner.run(agent, text, session=session)
            print(f"> {text}\n{result.final_output}")
        print(f"{len(await session.get_items())} items in reverie session agents:example")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    asyncio.run(main(args[0], args[1], args[2] if len(args) == 3 else "gpt-4o-mini"))
