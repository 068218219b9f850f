"""A LangGraph agent whose long-term memories live in reverie (reverie.adapters.langgraph_store).

Run: python examples/langgraph_store.py WORKSPACE BASE_URL [MODEL]

BASE_URL is any OpenAI-compatible Chat Completions endpoint (the key from OPENAI_API_KEY,
"unused" when unset). The graph has one node: it searches the store for what the user said,
calls the model with what it found, and puts the user's words into the store. The second turn
finds the first through reverie's search. Needs ``pip install 'reverie[langgraph]'``.
"""

from __future__ import annotations

import os
import sys
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from openai import OpenAI

from reverie import MemoryEngine
from reverie.adapters.langgraph_store import ReverieStore

USER = ("users", "ada")


class State(TypedDict):
    """One turn: what the user said, what the model answered."""

    text: str
    answer: str


def main(workspace: str, base_url: str, model: str) -> None:
    """Run two turns of the graph over ``workspace``, printing the answers."""
    client = OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "unused"))

    def answer(state: State, *, store: BaseStore) -> dict[str, str]:
        found = store.search(USER, query=state["text"], limit=3)
        notes = "\n".join(f"- {item.value['content']}" for item in found) or "(nothing yet)"
        reply = client.chat.completions.create(
            model=model,
            messages=[
                {"role": "system", "content": f"What you remember about the user:\n{notes}"},
                {"role": "user", "content": state["text"]},
            ],
        )
        store.put(USER, f"said-{len(found)}-{state['text'][:20]}", {"content": state["text"]})
        return {"answer": reply.choices[0].message.content or ""}

    graph = StateGraph(State)
    graph.add_node("answer", answer)
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    with MemoryEngine.open(workspace) as memory:
        app = graph.compile(store=ReverieStore(memory))
        for text in ("My name is Ada and I write Rust.", "What do I write in Rust?"):
            print(f"> {text}\n{app.invoke({'text': text, 'answer': ''})['answer']}")
        print(f"{len(ReverieStore(memory).search(USER))} items in namespace users/ada")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    main(args[0], args[1], args[2] if len(args) == 3 else "gpt-4o-mini")
