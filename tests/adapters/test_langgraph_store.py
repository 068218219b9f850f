"""``ReverieStore`` driven by the real LangGraph: its store API and a compiled graph."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from reverie import InputError, MemoryEngine
from reverie.adapters.langgraph_store import ReverieStore
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))
ADA = ("users", "ada")


@pytest.fixture
def memory(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off")


def test_put_get_delete_and_namespaces(memory: MemoryEngine) -> None:
    store = ReverieStore(memory)
    store.put(ADA, "food", {"content": "Ada likes lentil soup", "kind": "taste"})
    store.put(ADA, "food", {"content": "Ada likes miso soup", "kind": "taste"})
    store.put(ADA, "job", {"content": "Ada writes Rust", "kind": "work"})
    store.put(("users", "bo"), "job", {"title": "baker"})

    item = store.get(ADA, "food")
    assert item is not None
    assert item.value["content"] == "Ada likes miso soup"
    assert item.created_at <= item.updated_at
    assert store.list_namespaces() == [("users", "ada"), ("users", "bo")]
    assert store.list_namespaces(prefix=("users", "*"), max_depth=1) == [("users",)]
    assert [i.key for i in store.search(("users",), filter={"kind": "work"})] == ["job"]
    store.delete(ADA, "job")
    assert store.get(ADA, "job") is None
    texts = [m.text for m in memory.session('langgraph:["users","ada"]').messages]
    assert texts[:2] == ["Ada likes lentil soup", "Ada likes miso soup"]  # every version kept
    assert texts[-1] == "stored item 'job' deleted"
    with pytest.raises(InputError, match=r"\$eq and \$ne"):
        store.search(ADA, filter={"kind": {"$gt": 1}})


def test_search_with_a_query_goes_to_reverie_search(memory: MemoryEngine) -> None:
    store = ReverieStore(memory)
    store.put(ADA, "food", {"content": "Ada likes lentil soup"})
    store.put(ADA, "job", {"content": "Ada writes Rust at the harbour office"})
    memory.record("chat", [{"role": "user", "content": "the harbour office is closed"}])

    found = store.search(("users",), query="harbour office")
    # best first, as reverie ranks it; the chat session's message is no store item
    assert (found[0].namespace, found[0].key) == (ADA, "job")
    assert {i.namespace for i in found} == {ADA}
    assert found[0].score is not None


class State(TypedDict):
    text: str
    answer: str


def test_a_graph_node_keeps_and_finds_memories_through_the_store(memory: MemoryEngine) -> None:
    def remember(state: State, *, store: BaseStore) -> dict[str, str]:
        store.put(ADA, "said", {"content": state["text"]})
        hits = store.search(ADA, query="lentil")
        return {"answer": hits[0].value["content"] if hits else "nothing"}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", END)
    app = graph.compile(store=ReverieStore(memory))

    result = app.invoke({"text": "I like lentil soup", "answer": ""})
    assert result["answer"] == "I like lentil soup"
    assert memory.session('langgraph:["users","ada"]').messages[0].text == "I like lentil soup"


def test_the_async_api_answers_like_the_sync_one(memory: MemoryEngine) -> None:
    store = ReverieStore(memory)
    asyncio.run(store.aput(ADA, "pet", {"text": "a cat named Ink"}))
    item = asyncio.run(store.aget(ADA, "pet"))
    assert item is not None
    assert item.value == {"text": "a cat named Ink"}
    assert store.get(("nobody",), "pet") is None
    store.put(ADA, "shape", {"size": 3})
    assert memory.session('langgraph:["users","ada"]').messages[-1].text == '{"size": 3}'
    assert [i.key for i in store.search(ADA, filter={"size": {"$ne": 3}})] == ["pet"]
    assert [i.key for i in store.search(ADA, filter={"size": {"$eq": 3}})] == ["shape"]
    assert store.list_namespaces(suffix=("ada",)) == [ADA]
