from __future__ import annotations

import itertools

import pytest

from reverie import (
    ChatReply,
    ChatRequest,
    Message,
    ModelHTTPError,
    ModelTimeoutError,
    ScriptedProvider,
    ToolCall,
)
from reverie.core.turns import unsafe_cuts
from reverie.llm.tokens import count_request
from reverie.memory.compaction.transcript import RAW_MARKER
from reverie.prompts import load
from reverie.storage.folder.workspace import Workspace
from tests.compaction.build import COUNTER, build


def _facts(request: ChatRequest) -> ChatReply:
    words = len(request.messages[-1].text.split())
    return ChatReply(text=f"- [durable] a conversation of {words} words happened")


def _fill(workspace: Workspace, key: str, turns: int, words: int = 120, text: str = "word") -> None:
    for index in range(turns):
        workspace.sessions.append(
            key, Message(role="user", content=f"q{index} " + f"{text} " * words)
        )
        workspace.sessions.append(
            key, Message(role="assistant", content=f"a{index} " + f"{text} " * words)
        )


def test_under_budget_nothing_happens(workspace: Workspace) -> None:
    provider = ScriptedProvider()
    compactor, _, _ = build(workspace, provider)
    _fill(workspace, "cli:a", 2)
    result = compactor.ensure_budget("cli:a", user_text="hi")
    assert result.outcome == "not_needed"
    assert provider.requests == ()


def test_over_budget_the_oldest_turns_become_one_tagged_entry(workspace: Workspace) -> None:
    provider = ScriptedProvider().respond(_facts).respond(_facts).respond(_facts)
    compactor, assembler, _ = build(workspace, provider)
    _fill(workspace, "cli:a", 30)
    result = compactor.ensure_budget("cli:a", user_text="next question")
    assert result.outcome == "summarised"
    assert result.tokens_before >= compactor.budget
    assert result.tokens_after <= compactor.budget // 2
    session = workspace.sessions.load("cli:a")
    entry = result.entries[0]
    assert entry.session_key == "cli:a"
    assert entry.kind == "summary"
    assert entry.range is not None
    assert entry.range[0] == 0
    last_range = result.entries[-1].range
    assert last_range is not None
    assert session.compacted_upto == last_range[1]
    assert session.messages[session.compacted_upto].role == "user"  # cut at a turn boundary
    assert session.summary is not None
    assert session.summary.text == result.entries[-1].content
    request = provider.requests[0]
    assert request.tool_choice == "none"
    assert request.messages[0].text == load("compaction")
    assert "USER: q0" in request.messages[1].text
    prompt = assembler.assemble(session, "next question", budget=compactor.budget)
    assert prompt.tokens <= compactor.budget
    ledger = list(workspace.ledger.records())
    assert [r.job for r in ledger if r] == ["compaction"] * len(provider.requests)


def test_a_long_conversation_never_sends_a_prompt_over_budget(workspace: Workspace) -> None:
    # Each turn reloads the whole session, so the cost grows with the square of the turns:
    # 260 turns make compactions fall on every phase of the 7-turn length cycle (checked
    # below) since curation marks are no longer shown in recent history and summary (210 did
    # before; 200 before the fence lines); the 300 used once made 34 at over twice the cost.
    turns = 260
    provider = ScriptedProvider(*itertools.repeat(_facts, turns))
    compactor, assembler, summariser = build(workspace, provider, chat_window=3000, max_output=500)
    worst = 0
    phases: set[int] = set()
    for turn in range(turns):
        user = f"turn {turn}: " + "tell me more about the plan " * (turn % 7 + 1)
        if compactor.ensure_budget("cli:long", user_text=user).outcome == "summarised":
            phases.add(turn % 7)
        prompt = assembler.assemble(
            workspace.sessions.load("cli:long"), user, budget=compactor.budget
        )
        worst = max(worst, prompt.tokens)
        workspace.sessions.append("cli:long", Message(role="user", content=user))
        workspace.sessions.append("cli:long", Message(role="assistant", content="sure " * 40))
    assert worst <= compactor.budget
    assert phases == set(range(7)), f"compactions fell only on phases {sorted(phases)}"
    assert 15 <= len(provider.requests) < turns
    for request in provider.requests:
        assert (
            count_request(request)
            <= summariser.input_budget + COUNTER.text(load("compaction")) + 64
        )


def test_one_endless_turn_is_compacted_in_safe_pieces(workspace: Workspace) -> None:
    provider = ScriptedProvider(*itertools.repeat(_facts, 50))
    compactor, assembler, _ = build(workspace, provider)
    key = "cli:tools"
    workspace.sessions.append(key, Message(role="user", content="research everything"))
    for index in range(40):
        call = ToolCall(id=f"c{index}", name="search", arguments='{"q": "x"}')
        workspace.sessions.append(key, Message(role="assistant", tool_calls=(call,)))
        workspace.sessions.append(
            key, Message(role="tool", tool_call_id=f"c{index}", content="r " * 150)
        )
    result = compactor.ensure_budget(key)
    assert result.outcome == "summarised"
    session = workspace.sessions.load(key)
    assert 0 < session.compacted_upto < len(session.messages)
    assert not unsafe_cuts(session.messages)[session.compacted_upto]
    prompt = assembler.assemble(session, None, budget=compactor.budget)
    assert prompt.tokens <= compactor.budget


def test_a_chunk_larger_than_the_summarisers_window_goes_in_pieces(workspace: Workspace) -> None:
    provider = ScriptedProvider(*itertools.repeat(_facts, 80))
    compactor, _, summariser = build(
        workspace, provider, chat_window=16000, memory_window=2500, max_output=400
    )
    _fill(workspace, "cli:big", 40, words=150)
    giant = "giant " * 20000
    workspace.sessions.append("cli:big", Message(role="user", content=giant))
    workspace.sessions.append("cli:big", Message(role="assistant", content="ok"))
    result = compactor.ensure_budget("cli:big", user_text="and now?")
    assert result.outcome == "summarised"
    assert result.model_calls > 1
    for request in provider.requests:
        assert COUNTER.text(request.messages[1].text) <= summariser.input_budget
    assert any("truncated" in r.messages[1].text for r in provider.requests)


def test_chinese_conversations_compact_too(workspace: Workspace) -> None:
    provider = ScriptedProvider(*itertools.repeat(_facts, 10))
    compactor, _, _ = build(workspace, provider)
    _fill(workspace, "cli:zh", 30, words=60, text="我喜欢在周末喝咖啡")
    result = compactor.ensure_budget("cli:zh", user_text="你好")
    assert result.outcome == "summarised"
    assert "我喜欢在周末喝咖啡" in provider.requests[0].messages[1].text


FAILURES = [
    ("error", ModelHTTPError("server exploded", status=500, body="boom")),
    ("timeout", ModelTimeoutError("no answer in 30s")),
    ("length", ChatReply(text="- [durable] half a fac", finish_reason="length")),
    ("empty", ChatReply(text="   ")),
    ("tools", ChatReply(tool_calls=(ToolCall(id="x", name="write", arguments="{}"),))),
]


@pytest.mark.parametrize(("kind", "step"), FAILURES, ids=[kind for kind, _ in FAILURES])
def test_every_failure_keeps_the_raw_facts(workspace: Workspace, kind: str, step: object) -> None:
    provider = ScriptedProvider(step)  # type: ignore[arg-type]
    compactor, _, _ = build(workspace, provider)
    _fill(workspace, "cli:f", 30)
    result = compactor.ensure_budget("cli:f", user_text="next")
    assert result.outcome == "raw_fallback", kind
    assert result.reason
    assert len(provider.requests) == 1  # this call stops compacting after a failure
    [entry] = result.entries
    assert entry.kind == "raw"
    assert entry.content.startswith(RAW_MARKER.split("(")[0])
    assert "USER: q0" in entry.content
    assert len(entry.content) <= 16_000
    assert workspace.sessions.load("cli:f").compacted_upto == entry.range[1]  # type: ignore[index]
    [record] = [r for r in workspace.ledger.records() if r]
    assert record.outcome == ("error" if kind in ("error", "timeout") else "failed")
    assert record.reason
    assert result.reason in entry.content


def test_nothing_noteworthy_moves_the_mark_without_an_entry(workspace: Workspace) -> None:
    provider = ScriptedProvider(*itertools.repeat(ChatReply(text="(nothing)"), 10))
    compactor, _, _ = build(workspace, provider)
    _fill(workspace, "cli:n", 30)
    result = compactor.ensure_budget("cli:n", user_text="next")
    assert result.outcome == "nothing_noteworthy"
    assert result.entries == ()
    assert workspace.sessions.load("cli:n").compacted_upto > 0
    assert list(workspace.history.entries()) == []


def test_an_entry_left_by_a_crash_before_the_mark_moved_is_not_written_twice(
    workspace: Workspace,
) -> None:
    compactor, _, _ = build(workspace, ScriptedProvider(*itertools.repeat(_facts, 10)))
    _fill(workspace, "cli:c", 30)
    done = compactor.ensure_budget("cli:c", user_text="next")
    first = done.entries[0]
    # Simulate the crash: the entries exist but the mark never moved.
    workspace.sessions.set_compacted_upto("cli:c", 0)
    workspace.sessions.clear_summary("cli:c")
    again = ScriptedProvider(*itertools.repeat(_facts, 10))
    compactor2, _, _ = build(workspace, again)
    result = compactor2.ensure_budget("cli:c", user_text="next")
    assert result.entries[0].cursor == first.cursor
    assert result.reason == "reused the entry a crash left behind"
    ranges = [e.range for e in workspace.history.entries()]
    assert len(ranges) == len(set(ranges))


def test_harder_compaction_runs_even_under_budget(workspace: Workspace) -> None:
    provider = ScriptedProvider(*itertools.repeat(_facts, 10))
    compactor, _, _ = build(workspace, provider)
    _fill(workspace, "cli:h", 8)
    assert compactor.ensure_budget("cli:h").outcome == "not_needed"
    result = compactor.ensure_budget("cli:h", harder=True)
    assert result.outcome == "summarised"
    assert result.tokens_after <= compactor.budget // 4


def test_a_turn_appended_during_compaction_keeps_its_messages(workspace: Workspace) -> None:
    def slow(request: ChatRequest) -> ChatReply:
        workspace.sessions.append("cli:r", Message(role="user", content="late message"))
        return _facts(request)

    compactor, _, _ = build(workspace, ScriptedProvider(slow, *itertools.repeat(_facts, 5)))
    _fill(workspace, "cli:r", 30)
    compactor.ensure_budget("cli:r", user_text="next")
    session = workspace.sessions.load("cli:r")
    assert session.messages[60].content == "late message"
    assert session.compacted_upto <= 60


def test_entries_are_dated_when_their_last_message_was_said(workspace: Workspace) -> None:
    from datetime import UTC, datetime, timedelta

    from reverie.core.entries import nanobot_timestamp

    compactor, _, _ = build(workspace, ScriptedProvider(*itertools.repeat(_facts, 10)))
    said = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    for index in range(30):
        at = said + timedelta(minutes=index)
        workspace.sessions.append("cli:old", Message(role="user", content="w " * 120, timestamp=at))
        workspace.sessions.append(
            "cli:old", Message(role="assistant", content="w " * 120, timestamp=at)
        )
    result = compactor.ensure_budget("cli:old", user_text="next")
    entry = result.entries[0]
    assert entry.time is not None
    assert said <= entry.time < said + timedelta(minutes=30)
    assert entry.timestamp == nanobot_timestamp(entry.time)


def test_a_provider_error_after_a_summarised_piece_keeps_the_whole_chunk_raw(
    workspace: Workspace,
) -> None:
    provider = ScriptedProvider(_facts).fail(ModelTimeoutError("no answer in 30s"))
    compactor, _, _ = build(workspace, provider, memory_window=2500, max_output=400)
    _fill(workspace, "cli:mid", 30)
    result = compactor.ensure_budget("cli:mid", user_text="next")
    assert result.outcome == "raw_fallback"
    assert len(provider.requests) == 2  # one piece summarised, the next call failed
    [entry] = result.entries
    assert entry.kind == "raw"
    assert "USER: q0" in entry.content  # the raw facts, from the first message on
    assert "ModelTimeoutError: no answer in 30s" in entry.content
    records = [r for r in workspace.ledger.records() if r]
    assert [r.outcome for r in records] == ["ok", "error"]
    assert all(r.estimated_in is not None and r.tokens_in > 0 for r in records)
