"""A chat loop over LangChain messages whose history lives in reverie (reverie.adapters.langchain).

Run: python examples/langchain_history.py WORKSPACE BASE_URL [MODEL]

BASE_URL is any OpenAI-compatible Chat Completions endpoint (the key from OPENAI_API_KEY,
"unused" when unset). The history is a ReverieChatHistory: each turn reads it, calls the
model with it (converted by langchain-core), and adds the exchange back. Use the same
history with any LangChain chat model. Needs ``pip install 'reverie[langchain]'``.
"""

from __future__ import annotations

import os
import sys

from langchain_core.messages import AIMessage, HumanMessage, convert_to_openai_messages
from openai import OpenAI

from reverie import MemoryEngine
from reverie.adapters.langchain import ReverieChatHistory


def main(workspace: str, base_url: str, model: str) -> None:
    """Run two turns in reverie session ``example`` of ``workspace``, printing the answers."""
    client = OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "unused"))
    with MemoryEngine.open(workspace) as memory:
        history = ReverieChatHistory("example", memory)
        for text in ("My name is Ada and I write Rust.", "What do I write?"):
            asked = HumanMessage(content=text)
            wire = convert_to_openai_messages([*history.messages, asked])
            reply = client.chat.completions.create(model=model, messages=wire)  # type: ignore[arg-type]
            answer = AIMessage(content=reply.choices[0].message.content or "")
            history.add_messages([asked, answer])
            print(f"> {text}\n{answer.content}")
        print(f"{len(history.messages)} messages in reverie session langchain:example")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    main(args[0], args[1], args[2] if len(args) == 3 else "gpt-4o-mini")
