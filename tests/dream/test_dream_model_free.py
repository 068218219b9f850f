from __future__ import annotations

from reverie.memory.dream.runner import Dreamer
from reverie.storage.folder.workspace import Workspace


def test_model_free_dream_curates_commits_and_advances_the_cursor(workspace: Workspace) -> None:
    workspace.history.append(
        "- [permanent] User: I live in Lyon.\n"
        "- [permanent] User instruction: always reply in French.",
        session_key="cli:me",
    )
    last = workspace.history.append("- [durable] Decided: the atlas launch is on 2026-12-15.")
    result = Dreamer(workspace, None).run()
    assert result.outcome == "completed"
    assert result.mode == "model-free"
    assert result.model_calls == 0
    assert workspace.dream_cursor.read() == last.cursor
    assert "Lyon" in workspace.files.read("USER")
    assert "French" in workspace.files.read("SOUL")
    assert "atlas" in workspace.files.read("MEMORY")
    [head, *_] = workspace.audit.log(5)
    assert head.subject == "dream: manual (model-free)"
    assert "+- " in head.message or "+ " in head.message  # the body is the real diff
    assert "curated without a model" not in head.message
    records = [r for r in workspace.ledger.records() if r is not None]
    assert [(r.job, r.model, r.outcome) for r in records] == [("dream", "model-free", "completed")]


def test_a_model_free_correction_replaces_the_old_fact(workspace: Workspace) -> None:
    workspace.history.append("- [permanent] User: I live in Lyon.")
    Dreamer(workspace, None).run()
    workspace.history.append("- [correction] User correction: I live in Grenoble, not Lyon.")
    result = Dreamer(workspace, None).run()
    assert result.outcome == "completed"
    user = workspace.files.read("USER")
    assert "Grenoble" in user
    assert "I live in Lyon" not in user


def test_model_free_dream_with_nothing_pending_does_nothing(workspace: Workspace) -> None:
    result = Dreamer(workspace, None).run()
    assert result.outcome == "no_pending"
    assert len(workspace.audit.log(5)) == 1


def test_every_model_free_outcome_names_its_mode(workspace: Workspace) -> None:
    assert Dreamer(workspace, None).run().mode == "model-free"  # no_pending
    with workspace.lock("dream").hold():
        busy = Dreamer(workspace, None).run()
    assert (busy.outcome, busy.mode) == ("busy", "model-free")
