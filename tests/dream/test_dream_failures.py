"""A dream run that fails at any step leaves the files, the cursor and git as they were."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reverie import ChatRequest, ModelTimeoutError, ScriptedProvider, Usage
from reverie.config.sections import DreamConfig
from reverie.core.token_estimate import EstimatingCounter
from reverie.llm.provider import ChatReply
from reverie.memory.dream.runner import Dreamer
from reverie.memory.dream.staging import Staging
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL
from reverie.storage.folder.workspace import Workspace
from tests.dream.scripting import call, changed_paths, tool_results, tree_hashes, write
from tests.dream.staged import publish

DURABLE = ("SOUL.md", "USER.md", "memory/MEMORY.md")


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    files: dict[str, str]
    cursor: int
    head: str
    commits: int


def _snapshot(workspace: Workspace) -> Snapshot:
    return Snapshot(
        files={path: (workspace.root / path).read_text() for path in DURABLE},
        cursor=workspace.dream_cursor.read(),
        head=workspace.audit.log(1)[0].sha,
        commits=len(workspace.audit.log(100)),
    )


def _dreamer(
    workspace: Workspace, provider: ScriptedProvider, config: DreamConfig | None = None
) -> Dreamer:
    return Dreamer(workspace, provider, config=config, counter=EstimatingCounter())


@pytest.fixture
def seeded(workspace: Workspace) -> Workspace:
    for number in range(1, 4):
        workspace.history.append(f"User fact number {number}.", session_key="c:1")
    return workspace


def _assert_nothing_moved(workspace: Workspace, before: Snapshot, outcome: str) -> None:
    assert _snapshot(workspace) == before
    assert not (workspace.root / "skills").exists()
    assert not (workspace.root / DEFAULT_JOURNAL).exists()
    last = [record for record in workspace.ledger.records() if record is not None][-1]
    assert last.outcome == outcome
    assert last.reason
    assert workspace.dream_cursor.read() == before.cursor


def _edit_user(text: str) -> ScriptedProvider:
    return ScriptedProvider().reply(tool_calls=[write("USER.md", text)])


def test_a_provider_error_fails_the_run_and_changes_nothing(seeded: Workspace) -> None:
    before = _snapshot(seeded)
    provider = _edit_user("# User\n\n- new fact\n").fail(ModelTimeoutError("no answer in 120s"))
    result = _dreamer(seeded, provider).run()
    assert result.outcome == "failed"
    assert "no answer in 120s" in result.reason
    assert result.failed
    assert result.cursor_after == before.cursor
    _assert_nothing_moved(seeded, before, "failed")
    outcomes = [record.outcome for record in seeded.ledger.records() if record is not None]
    assert outcomes == ["tool_calls", "error", "failed"]
    [error] = [r for r in seeded.ledger.records() if r is not None and r.outcome == "error"]
    assert error.reason == "ModelTimeoutError: no answer in 120s"
    assert error.estimated_in is not None
    assert error.tokens_in == error.estimated_in > 0  # a timed-out call may still be billed
    assert result.transcript is not None


def test_the_step_limit_ends_a_model_that_keeps_calling_tools(seeded: Workspace) -> None:
    before = _snapshot(seeded)
    provider = ScriptedProvider()
    for number in range(5):
        provider.reply(tool_calls=[write("USER.md", f"# User\n\n- version {number}\n")])
    result = _dreamer(seeded, provider, DreamConfig(max_rounds=2)).run()
    assert result.outcome == "step_limit"
    assert (result.rounds, result.model_calls) == (2, 3)
    _assert_nothing_moved(seeded, before, "step_limit")


def test_a_prompt_larger_than_the_budget_is_never_sent(seeded: Workspace) -> None:
    before = _snapshot(seeded)
    provider = ScriptedProvider()
    result = _dreamer(seeded, provider, DreamConfig(token_budget=200)).run()
    assert result.outcome == "over_budget"
    assert result.model_calls == 0
    assert provider.requests == ()
    _assert_nothing_moved(seeded, before, "over_budget")


def test_a_run_whose_spend_crosses_the_budget_fails_even_with_a_final_answer(
    seeded: Workspace,
) -> None:
    before = _snapshot(seeded)
    provider = _edit_user("# User\n\n- fact\n").reply(
        "done", usage=Usage(prompt_tokens=9_000, completion_tokens=5)
    )
    result = _dreamer(seeded, provider, DreamConfig(token_budget=10_000)).run()
    assert result.outcome == "over_budget"
    assert result.tokens > 10_000 - 5_000
    _assert_nothing_moved(seeded, before, "over_budget")


def test_the_reply_cap_shrinks_with_the_budget_left(seeded: Workspace) -> None:
    provider = ScriptedProvider().reply("done")
    _dreamer(seeded, provider, DreamConfig(token_budget=2_500)).run()
    cap = provider.requests[0].max_output_tokens
    assert cap is not None
    assert 0 < cap < 2_500


def test_the_same_edit_repeated_ends_the_run_as_no_progress(seeded: Workspace) -> None:
    before = _snapshot(seeded)
    same = "# User\n\n- loops forever\n"
    provider = _edit_user(same).reply(tool_calls=[write("USER.md", same)]).reply("done")
    result = _dreamer(seeded, provider).run()
    assert result.outcome == "no_progress"
    assert "repeated_edit" in result.reason
    assert provider.remaining == 1
    _assert_nothing_moved(seeded, before, "no_progress")


def test_rounds_without_any_change_end_the_run_as_stalled(seeded: Workspace) -> None:
    before = _snapshot(seeded)
    provider = ScriptedProvider()
    for _ in range(4):
        provider.reply(tool_calls=[call("read_file", path="USER.md")])
    result = _dreamer(seeded, provider, DreamConfig(stall_rounds=3)).run()
    assert result.outcome == "no_progress"
    assert "stalled" in result.reason
    assert result.model_calls == 3
    _assert_nothing_moved(seeded, before, "no_progress")


def test_a_final_answer_cut_off_at_the_length_limit_is_not_completion(seeded: Workspace) -> None:
    before = _snapshot(seeded)
    provider = _edit_user("# User\n\n- x\n").reply("I will now", finish_reason="length")
    result = _dreamer(seeded, provider).run()
    assert result.outcome == "failed"
    assert "cut off" in result.reason
    _assert_nothing_moved(seeded, before, "failed")


def test_a_file_edited_by_a_person_during_the_run_is_a_conflict_not_an_overwrite(
    seeded: Workspace,
) -> None:
    before = _snapshot(seeded)
    person = "# User\n\n- written by a person during the dream\n"

    def person_edits_then_model_finishes(_request: ChatRequest) -> ChatReply:
        (seeded.root / "USER.md").write_text(person)
        return ChatReply(text="done")

    provider = ScriptedProvider().reply(
        tool_calls=[write("USER.md", "# User\n\n- model\n"), write("SOUL.md", "# Soul\n\nnew\n")]
    )
    provider.respond(person_edits_then_model_finishes)
    result = _dreamer(seeded, provider).run()
    assert result.outcome == "conflict"
    assert "USER.md" in result.reason
    assert (seeded.root / "USER.md").read_text() == person
    assert (seeded.root / "SOUL.md").read_text() == before.files["SOUL.md"]
    assert seeded.dream_cursor.read() == before.cursor
    assert seeded.audit.log(1)[0].sha == before.head
    assert not (seeded.root / DEFAULT_JOURNAL).exists()


def test_bad_tool_calls_are_fed_back_and_the_run_can_still_complete(seeded: Workspace) -> None:
    provider = (
        ScriptedProvider()
        .reply(
            tool_calls=[
                call("delete_everything", path="USER.md"),
                call("edit_file", path="USER.md", old_text="not there", new_text="x"),
                call("write_file", path="USER.md"),
            ]
        )
        .reply(tool_calls=[write("USER.md", "# User\n\n- fixed\n")])
        .reply("done")
    )
    result = _dreamer(seeded, provider).run()
    assert result.outcome == "completed"
    feedback = tool_results(provider.requests[1])
    assert len(feedback) == 3
    assert all(text.startswith("error: ") for text in feedback)
    assert "unknown tool" in feedback[0]
    assert "matches 0 places" in feedback[1]
    assert "missing argument" in feedback[2]
    assert (seeded.root / "USER.md").read_text() == "# User\n\n- fixed\n"


def _publish_by_hand(workspace: Workspace, cursor: int) -> dict[str, str]:
    staging = Staging(workspace.dream_files)
    texts = {"USER.md": "# User\n\n- crashed fact\n", "skills/crash/SKILL.md": "# Crash\n"}
    for path, text in texts.items():
        staging.write(path, text)
    publish(staging, workspace.root / DEFAULT_JOURNAL, cursor=cursor, trigger="interval")
    return texts


@pytest.mark.parametrize("crash_after", ["publish", "cursor", "commit"])
def test_a_crash_after_publishing_is_finished_by_the_next_run(
    seeded: Workspace, crash_after: str
) -> None:
    commits = len(seeded.audit.log(100))
    texts = _publish_by_hand(seeded, cursor=2)
    if crash_after in ("cursor", "commit"):
        seeded.dream_cursor.write(2)
    if crash_after == "commit":
        seeded.audit.commit("dream: interval")
    assert (seeded.root / DEFAULT_JOURNAL).exists()
    provider = ScriptedProvider().reply("done")
    result = _dreamer(seeded, provider).run()
    assert result.recovered
    assert (result.cursor_before, result.cursor_after) == (2, 3)
    for path, text in texts.items():
        assert (seeded.root / path).read_text() == text
    log = seeded.audit.log(100)
    assert len(log) == commits + 2
    recovered_commit = log[1]
    assert recovered_commit.subject == "dream: interval"
    assert {change.path for change in recovered_commit.files} == {
        "USER.md",
        "memory/.dream_cursor",
        "skills/crash/SKILL.md",
    }
    assert "+- crashed fact" in recovered_commit.message
    assert seeded.audit.pending_diff().files == ()
    assert not (seeded.root / DEFAULT_JOURNAL).exists()
    assert "entry 3" in provider.requests[0].messages[1].text
    assert "entry 2 " not in provider.requests[0].messages[1].text


def test_a_tampered_journal_fails_the_run_and_writes_nothing(seeded: Workspace) -> None:
    journal = seeded.root / DEFAULT_JOURNAL
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text(
        '{"format": "reverie-dream-publish", "version": 1, "cursor": 9, "trigger": "x",'
        ' "files": [{"path": ".git/config", "text": "evil"}]}'
    )
    before = tree_hashes(seeded.root)
    provider = ScriptedProvider()
    result = _dreamer(seeded, provider).run()
    assert result.outcome == "failed"
    assert "forbidden path" in result.reason
    assert provider.requests == ()
    changed = {
        path
        for path in changed_paths(before, tree_hashes(seeded.root))
        if not path.startswith(".reverie/locks/")
    }
    assert changed == {"memory/ledger.jsonl", ".reverie/dream-state.json"}
    assert seeded.dream_cursor.read() == 0
