"""A pydantic-ai agent whose conversation lives in reverie (reverie.adapters.pydantic_ai).

Run: python examples/pydantic_ai_agent.py WORKSPACE BASE_URL [MODEL]

BASE_URL is any OpenAI-compatible Chat Completions endpoint (the key from OPENAI_API_KEY,
"unused" when unset), reached through pydantic-ai's own OpenAI model. Two runs share one
ReverieHistory: each run takes its ``message_history`` from reverie and records its new
messages back, so the second sees the first. The agent is also offered reverie's memory tools
(``memory_tools``: search_memory, recall, read_memory, remember). Needs
``pip install 'reverie[pydantic-ai]' 'pydantic-ai-slim[openai]'``.
"""

from __future__ import annotations

import os
import sys

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from reverie import MemoryEngine
from reverie.adapters.pydantic_ai import ReverieHistory, memory_tools


def main(workspace: str, base_url: str, model: str) -> None:
    """Run two turns in reverie session ``pydantic_ai:example`` of ``workspace``, printing them."""
    key = os.environ.get("OPENAI_API_KEY", "unused")
    chat = OpenAIChatModel(model, provider=OpenAIProvider(base_url=base_url, api_key=key))
    with MemoryEngine.open(workspace) as memory:
        agent = Agent(chat, instructions="Be brief.", toolsets=[memory_tools(memory)])
        history = ReverieHistory("example", memory)
        for text in ("My name is Ada and I write Rust.", "What do I write?"):
            result = agent.run_sync(text, message_history=history.messages)
            history.add(result.new_messages())
            print(f"> {text}\n{result.output}")
        print(f"{len(history.messages)} messages in reverie session {history.key}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    main(args[0], args[1], args[2] if len(args) == 3 else "gpt-4o-mini")
