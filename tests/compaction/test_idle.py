from __future__ import annotations

import itertools
from datetime import timedelta

from reverie import ChatReply, ChatRequest, Message, ScriptedProvider
from reverie.memory.compaction.idle import IdleScanner
from reverie.storage.folder.workspace import Workspace
from tests.compaction.build import build
from tests.conftest import StepClock


def _facts(request: ChatRequest) -> ChatReply:
    return ChatReply(text="- [durable] the user planned a trip to Kyoto")


def test_idle_sessions_are_compacted_and_their_summary_opens_the_next_prompt(
    workspace: Workspace, clock: StepClock
) -> None:
    provider = ScriptedProvider(*itertools.repeat(_facts, 10))
    compactor, assembler, _ = build(workspace, provider, clock=clock)
    for key in ("cli:idle", "cli:busy", "dream:20261130", "cli:fresh"):
        workspace.sessions.append(key, Message(role="user", content="let's plan Kyoto"))
        workspace.sessions.append(key, Message(role="assistant", content="sure"))
    clock.advance(timedelta(minutes=20))
    workspace.sessions.append("cli:fresh", Message(role="user", content="still here"))
    scanner = IdleScanner(
        workspace.sessions,
        compactor,
        ttl_minutes=15,
        clock=clock,
        in_flight=lambda key: key == "cli:busy",
    )
    assert scanner.idle_keys() == ["cli:idle", "cli:busy"]
    results = scanner.scan()
    assert results["cli:idle"].outcome == "summarised"
    assert results["cli:busy"].outcome == "busy"
    idle = workspace.sessions.load("cli:idle")
    assert idle.compacted_upto == 2
    assert idle.summary is not None
    prompt = assembler.assemble(idle, "back again")
    assert "Previous conversation summary" in prompt.messages[0].text
    assert "Kyoto" in prompt.messages[0].text
    assert set(scanner.scan()) == {"cli:busy"}  # nothing left but the busy one
    assert len(provider.requests) == 1


def test_a_zero_ttl_disables_idle_compaction(workspace: Workspace, clock: StepClock) -> None:
    compactor, _, _ = build(workspace, ScriptedProvider())
    workspace.sessions.append("cli:a", Message(role="user", content="x"))
    clock.advance(timedelta(days=1))
    scanner = IdleScanner(
        workspace.sessions, compactor, ttl_minutes=0, clock=clock, in_flight=lambda k: False
    )
    assert scanner.scan() == {}
