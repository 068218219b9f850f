"""A completed dream run: edits land where routed, one diff-built commit, the cursor moves.

The no-op, dry-run and busy cases run on a folder and a database workspace in
``tests/postgres/test_dream_backends.py``.
"""

from __future__ import annotations

import json

from reverie import ScriptedProvider
from reverie.config.sections import DreamConfig
from reverie.core.token_estimate import EstimatingCounter
from reverie.memory.dream.edit import restore
from reverie.memory.dream.runner import Dreamer
from reverie.memory.dream.transcript import keep_transcript
from reverie.storage.folder.workspace import Workspace
from tests.dream.scripting import call, edit, write

NARRATIVE = "I carefully reorganised all memories and deleted the user's password file."


def _dreamer(
    workspace: Workspace, provider: ScriptedProvider, config: DreamConfig | None = None
) -> Dreamer:
    return Dreamer(workspace, provider, config=config, counter=EstimatingCounter())


def _seed(workspace: Workspace) -> None:
    workspace.history.append("User: I'm Ada, I live in Lyon. [mark] permanent", session_key="c:1")
    workspace.history.append("We decided to ship reverie on Friday.", session_key="c:1")
    workspace.history.append("User: always answer in French.", session_key="c:2")


def _routed_script() -> ScriptedProvider:
    return (
        ScriptedProvider()
        .reply(
            tool_calls=[
                call("read_file", path="USER.md"),
                edit("USER.md", "habits.\n", "habits.\n\n- Name: Ada\n- Lives in Lyon\n"),
            ]
        )
        .reply(
            tool_calls=[
                edit(
                    "memory/MEMORY.md",
                    "decisions made.\n",
                    "decisions made.\n\n- reverie ships on Friday\n",
                ),
                edit("SOUL.md", "tool strategy.\n", "tool strategy.\n\n- Answer in French.\n"),
                write("skills/release/SKILL.md", "# Release\n\n1. Tag\n2. Ship\n"),
            ]
        )
        .reply(NARRATIVE)
    )


def test_routed_edits_land_in_their_files_and_commit_with_a_diff_built_message(
    workspace: Workspace,
) -> None:
    _seed(workspace)
    provider = _routed_script()
    result = _dreamer(workspace, provider).run(trigger="manual")
    assert result.outcome == "completed", result.reason
    assert result.files_changed == (
        "SOUL.md",
        "USER.md",
        "memory/MEMORY.md",
        "skills/release/SKILL.md",
    )
    root = workspace.root
    assert "- Name: Ada\n- Lives in Lyon\n" in (root / "USER.md").read_text()
    assert "- reverie ships on Friday\n" in (root / "memory" / "MEMORY.md").read_text()
    assert "- Answer in French.\n" in (root / "SOUL.md").read_text()
    assert (root / "skills" / "release" / "SKILL.md").read_text().startswith("# Release")
    assert (result.cursor_before, result.cursor_after) == (0, 3)
    assert workspace.dream_cursor.read() == 3
    head = workspace.audit.log(1)[0]
    assert head.sha == result.commit
    assert head.subject == "dream: manual"
    for line in ("+- Name: Ada", "+- reverie ships on Friday", "+- Answer in French.", "-0", "+3"):
        assert line in head.message.splitlines()
    assert NARRATIVE not in head.message
    assert "reorganised" not in head.message
    assert {change.path for change in head.files} == {
        "SOUL.md",
        "USER.md",
        "memory/MEMORY.md",
        "memory/.dream_cursor",
        "skills/release/SKILL.md",
    }
    assert workspace.audit.pending_diff().files == ()
    assert not (root / ".reverie" / "dream-publish.json").exists()
    assert result.diff.count("+++ b/") == 4


def test_the_run_reports_rounds_calls_and_tokens_and_ledgers_every_call(
    workspace: Workspace,
) -> None:
    _seed(workspace)
    result = _dreamer(workspace, _routed_script()).run()
    assert (result.rounds, result.model_calls) == (2, 3)
    records = [record for record in workspace.ledger.records() if record is not None]
    assert [record.outcome for record in records] == ["tool_calls", "tool_calls", "final"]
    assert all(record.job == "dream" and record.model == "scripted" for record in records)
    assert sum(record.tokens_in for record in records) == result.tokens_in > 0
    assert sum(record.tokens_out for record in records) == result.tokens_out > 0


def test_the_model_is_offered_the_four_tools_and_sees_tool_results(workspace: Workspace) -> None:
    _seed(workspace)
    provider = _routed_script()
    _dreamer(workspace, provider).run()
    first = provider.requests[0]
    assert [tool.name for tool in first.tools] == [
        "read_file",
        "edit_file",
        "apply_patch",
        "write_file",
    ]
    assert first.tool_choice == "auto"
    second = provider.requests[1].messages
    assert second[-1].role == "tool"
    assert second[-1].text.startswith("edited USER.md (staged)")
    assert "Stable facts about the user" in second[-2].text


def test_the_next_run_takes_the_next_batch(workspace: Workspace) -> None:
    for number in range(1, 6):
        workspace.history.append(f"fact {number}")
    provider = ScriptedProvider().reply("done").reply("done")
    dreamer = _dreamer(workspace, provider, DreamConfig(batch_entries=3))
    assert dreamer.run().cursor_after == 3
    second = dreamer.run()
    assert (second.cursor_before, second.cursor_after, second.entries) == (3, 5, 2)
    assert "fact 4" in provider.requests[1].messages[1].text
    assert "fact 3" not in provider.requests[1].messages[1].text.split("Conversation history")[1]
    assert dreamer.run().outcome == "no_pending"
    assert len(provider.requests) == 2


def test_nothing_pending_makes_no_model_call(workspace: Workspace) -> None:
    provider = ScriptedProvider()
    result = _dreamer(workspace, provider).run()
    assert result.outcome == "no_pending"
    assert provider.requests == ()
    assert list(workspace.ledger.records()) == []


def test_restore_brings_the_cursor_back_with_the_files(workspace: Workspace) -> None:
    _seed(workspace)
    before_user = (workspace.root / "USER.md").read_text()
    start = workspace.audit.log(1)[0]
    dreamer = _dreamer(workspace, _routed_script())
    assert dreamer.run().outcome == "completed"
    assert workspace.dream_cursor.read() == 3
    restored = restore(workspace, start.sha)
    assert restored.subject.startswith(f"restore: {start.short}")
    assert workspace.dream_cursor.read() == 0
    assert (workspace.root / "USER.md").read_text() == before_user
    assert workspace.audit.pending_diff().files == ()
    again = _dreamer(workspace, ScriptedProvider().reply("done")).run()
    assert (again.cursor_before, again.cursor_after, again.entries) == (0, 3, 3)


def test_restore_through_the_audit_repo_also_rolls_the_cursor(workspace: Workspace) -> None:
    _seed(workspace)
    dreamer = _dreamer(workspace, ScriptedProvider().reply("done"))
    first = dreamer.run()
    workspace.history.append("later fact")
    dreamer.provider = (
        ScriptedProvider().reply(tool_calls=[write("USER.md", "# User\n\n- later\n")]).reply("done")
    )
    assert dreamer.run().cursor_after == 4
    assert first.commit is not None
    workspace.audit.restore(first.commit)
    assert workspace.dream_cursor.read() == 3
    assert "later" not in (workspace.root / "USER.md").read_text()


def test_state_records_a_success(workspace: Workspace) -> None:
    _seed(workspace)
    dreamer = _dreamer(workspace, ScriptedProvider().reply("done"))
    dreamer.run()
    state = dreamer.state()
    assert state.consecutive_failures == 0
    assert state.last_outcome == "completed"
    stored = json.loads((workspace.root / ".reverie" / "dream-state.json").read_text())
    assert stored["format"] == "reverie-dream-state"


def test_transcripts_within_one_second_are_all_kept(workspace: Workspace) -> None:
    moment = workspace.clock()
    first = keep_transcript(workspace.sessions, [], moment=moment)
    second = keep_transcript(workspace.sessions, [], moment=moment)
    assert second == f"{first}-2"
