from __future__ import annotations

from datetime import UTC, datetime

from reverie import Message, ToolCall, ToolSchema
from reverie.config.sections import PromptConfig
from reverie.core.session import is_internal
from reverie.core.token_estimate import EstimatingCounter
from reverie.memory.prompt import CONTINUATION_NOTE, PromptAssembler
from reverie.storage.folder.workspace import Workspace

COUNTER = EstimatingCounter()


def _assembler(workspace: Workspace, *, unified_session: bool = False) -> PromptAssembler:
    return PromptAssembler(
        workspace,
        config=PromptConfig(unified_session=unified_session),
        counter=COUNTER,
        identity="You are reverie.",
    )


def _chat(workspace: Workspace, key: str, turns: int, words: int = 5) -> None:
    for index in range(turns):
        workspace.sessions.append(
            key, Message(role="user", content=f"question {index} " + "w " * words)
        )
        workspace.sessions.append(
            key, Message(role="assistant", content=f"answer {index} " + "w " * words)
        )


def _system(prompt_messages: tuple[Message, ...]) -> str:
    assert prompt_messages[0].role == "system"
    return prompt_messages[0].text


def test_sections_come_in_cache_friendly_order(workspace: Workspace) -> None:
    workspace.files.write("SOUL", "# Soul\n- be brief\n")
    workspace.files.write("USER", "# User\n- name: Lin\n")
    workspace.files.write("MEMORY", "# Memory\n- atlas ships in May\n")
    workspace.history.append("- [durable] likes tea", session_key="cli:a")
    _chat(workspace, "cli:a", 2)
    workspace.sessions.set_summary("cli:a", "- talked about tea", datetime(2026, 11, 1, tzinfo=UTC))
    prompt = _assembler(workspace).assemble(workspace.sessions.load("cli:a"), "hello")
    text = _system(prompt.messages)
    order = [
        text.index("You are reverie."),
        text.index("## SOUL.md"),
        text.index("## USER.md"),
        text.index("## memory/MEMORY.md"),
        text.index("## Recent history"),
        text.index("## Previous conversation summary (last active"),
    ]
    assert order == sorted(order)
    assert prompt.messages[-1] == Message(role="user", content="hello")
    assert [m.role for m in prompt.messages[1:-1]] == ["user", "assistant"] * 2
    names = [section.name for section in prompt.sections]
    assert names[:6] == ["identity", "soul", "user", "memory", "recent_history", "summary"]
    assert prompt.tokens == sum(section.tokens for section in prompt.sections)
    assert prompt.tokens >= sum(COUNTER.message(m) for m in prompt.messages) - 8


def test_starter_files_are_left_out(workspace: Workspace) -> None:
    prompt = _assembler(workspace).assemble(workspace.sessions.load("cli:a"), "hi")
    assert _system(prompt.messages) == "You are reverie."
    assert prompt.recent == ()


def test_recent_history_is_isolated_per_session(workspace: Workspace) -> None:
    workspace.history.append("alice's secret plan", session_key="telegram:alice")
    workspace.history.append("bob's note", session_key="telegram:bob")
    workspace.history.append("dream bookkeeping", session_key="dream:2026")
    workspace.history.append("cron output", session_key="cron:daily")
    alice = workspace.sessions.load("telegram:alice")
    isolated = _system(_assembler(workspace).assemble(alice, "hi").messages)
    assert "alice's secret plan" in isolated
    assert "bob's note" not in isolated
    unified = _system(_assembler(workspace, unified_session=True).assemble(alice, "hi").messages)
    assert "bob's note" in unified
    assert "dream bookkeeping" not in unified
    assert "cron output" not in unified
    assert is_internal("dream:x")
    assert not is_internal(None)


def test_recent_history_is_capped_by_entries_and_tokens(workspace: Workspace) -> None:
    for index in range(70):
        workspace.history.append(f"fact number {index}", session_key="cli:a")
    session = workspace.sessions.load("cli:a")
    recent = _assembler(workspace).recent_history(session)
    assert len(recent) == 50
    assert recent[-1].content == "fact number 69"
    for _ in range(10):
        workspace.history.append("long " * 3000, session_key="cli:a")
    capped = _assembler(workspace).recent_history(session)
    assert sum(COUNTER.text(entry.content) for entry in capped) <= 8000
    assert capped  # the newest that fit are kept


def test_entries_after_the_dream_cursor_only_and_summary_not_repeated(workspace: Workspace) -> None:
    workspace.history.append("already dreamt", session_key="cli:a")
    kept = workspace.history.append("fresh fact", session_key="cli:a")
    summary = workspace.history.append("- the summary itself", session_key="cli:a")
    workspace.dream_cursor.write(kept.cursor - 1)
    workspace.sessions.append("cli:a", Message(role="user", content="x"))
    workspace.sessions.set_summary("cli:a", summary.content, datetime(2026, 11, 1, tzinfo=UTC))
    recent = _assembler(workspace).recent_history(workspace.sessions.load("cli:a"))
    assert [entry.content for entry in recent] == ["fresh fact"]


def test_a_replay_that_does_not_fit_falls_back_to_the_pending_view(workspace: Workspace) -> None:
    _chat(workspace, "cli:a", 10, words=200)
    workspace.sessions.append(
        "cli:a",
        Message(role="assistant", tool_calls=(ToolCall(id="c1", name="search", arguments="{}"),)),
    )
    workspace.sessions.append("cli:a", Message(role="tool", tool_call_id="c1", content="found"))
    workspace.sessions.set_compacted_upto("cli:a", 20)
    session = workspace.sessions.load("cli:a")
    assembler = _assembler(workspace)
    full = assembler.assemble(session, "next")
    assert full.replayed > 2  # the suffix of compacted messages, for continuity
    tight = assembler.assemble(session, "next", budget=full.tokens - 1)
    assert [m.role for m in tight.messages] == ["system", "user", "assistant", "tool", "user"]
    assert tight.messages[1].content == CONTINUATION_NOTE
    assert tight.tokens < full.tokens
    minimal = assembler.assemble(session, None, minimal=True)
    assert minimal.messages[-1].role == "tool"


def test_tool_schemas_are_counted(workspace: Workspace) -> None:
    tool = ToolSchema(
        name="search_memory", description="Search memory", parameters={"type": "object"}
    )
    prompt = _assembler(workspace).assemble(workspace.sessions.load("k"), "hi", tools=[tool])
    assert {s.name: s.tokens for s in prompt.sections}["tools"] > 5


def test_a_full_prompts_pressure_is_what_the_minimal_measure_reports(
    workspace: Workspace,
) -> None:
    from reverie.memory.recall import Recaller
    from reverie.storage.folder.index.index import SearchIndex

    index = SearchIndex(workspace)
    assembler = PromptAssembler(
        workspace,
        config=PromptConfig(),
        counter=COUNTER,
        identity="You are reverie.",
        recaller=Recaller(lambda: index, counter=COUNTER),
        recall_tokens=300,
        input_budget=4000,
    )
    _chat(workspace, "cli:a", 12, words=40)
    workspace.sessions.set_compacted_upto("cli:a", 10)
    workspace.history.append("the harbour opens at nine", session_key="cli:a")
    tools = (ToolSchema(name="look", description="look it up", parameters={"type": "object"}),)
    session = workspace.sessions.load("cli:a")
    for budget in (None, 4000, 600):
        full = assembler.assemble(session, "the harbour?", tools=tools, budget=budget)
        minimal = assembler.assemble(session, "the harbour?", tools=tools, minimal=True)
        assert full.pressure == minimal.tokens == minimal.pressure
    index.close()
