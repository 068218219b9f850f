"""The dream prompt states the real-chat curation rules to the model, as a run sends it.

A ScriptedProvider records the request a real dream run makes; its system text must say
every rule the model-free curator follows on real chat: no speaker labels, no vocative
chatter, no subject-less encouragement, requests are not facts ("Remember that ..." is the
fact inside or nothing), one line per fact, two people's alike facts kept apart.
"""

from __future__ import annotations

from reverie import ScriptedProvider
from reverie.core.token_estimate import EstimatingCounter
from reverie.memory.dream.runner import Dreamer
from reverie.storage.folder.workspace import Workspace


def _system_text(workspace: Workspace) -> str:
    workspace.history.append(
        "- [durable] Maria: I moved to Lyon\n- [durable] Cool, thanks Maria", session_key="c:1"
    )
    provider = ScriptedProvider().reply("done")
    result = Dreamer(workspace, provider, counter=EstimatingCounter()).run(trigger="manual")
    assert result.outcome == "completed", result.reason
    (request,) = provider.requests
    assert request.messages[0].role == "system"
    return " ".join(request.messages[0].text.split())


def test_the_dream_prompt_sent_to_the_model_states_the_real_chat_rules(
    workspace: Workspace,
) -> None:
    text = _system_text(workspace)
    for rule in (
        "Never copy a message with its speaker label",
        '"Maria: I moved to Lyon" becomes "Maria moved to Lyon"',
        "Words addressed to someone by name are chatter",
        '"Cool, thanks Maria"',
        '"Hey Sam, long time no chat"',
        "encouragement with no subject",
        '"Is up for the challenge"',
        "photo shares",
        "A request is not a fact",
        '"Deploy on Thursday please"',
        '"Remember that I prefer Celsius" is the fact "Prefers Celsius"',
        "merge them into one",
        "are two facts",
    ):
        assert rule in text, rule
